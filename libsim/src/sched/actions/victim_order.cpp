#include "victim_order.hpp"

#include <cassert>

namespace sim::sched {

VictimOrder::Cursor::Cursor(VictimOrder& order) : order_(order) {
  if (!order_.shared_) order_.shared_ = order_.make_();
#ifndef NDEBUG
  fresh_ = order_.make_();
#endif
}

bool VictimOrder::Cursor::empty() const {
  bool is_empty = false;
  if (own_)
    is_empty = own_->empty();
  else
    // A kept entry was popped after the builder found the queue not empty.
    is_empty = next_ == order_.popped_.size() && order_.shared_->empty();
#ifndef NDEBUG
  assert(is_empty == fresh_->empty());
#endif
  return is_empty;
}

const JobView& VictimOrder::Cursor::pop() {
  if (own_) {
    own_popped_ = own_->pop();
  } else if (next_ == order_.popped_.size()) {
    order_.popped_.push_back(order_.shared_->pop());
  }
  const JobView& view = own_ ? own_popped_ : order_.popped_[next_++];
#ifndef NDEBUG
  const JobView expected = fresh_->pop();
  assert(view.id == expected.id && view.tasks == expected.tasks && view.groups == expected.groups);
#endif
  return view;
}

void VictimOrder::Cursor::push(JobView view) {
  if (!own_) {
    own_ = order_.make_();
    for (std::size_t i = 0; i < next_; ++i) own_->pop();
  }
#ifndef NDEBUG
  fresh_->push(view);
#endif
  own_->push(std::move(view));
}

}  // namespace sim::sched
