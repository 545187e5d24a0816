#pragma once
// A leaf queue's jobs in JobQueue (job_order_by_queue.go's per-queue job heaps). Jobs are
// handles the queue resolves; the queue's comparator orders them.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "sim/core/assert.hpp"
#include "sim/core/go_heap.hpp"

namespace sim::sched {

/// A batch view's handle in JobQueue: its place among the batch's views with the top bit set.
constexpr std::size_t kBatchHandle = std::size_t{1}
                                     << (std::numeric_limits<std::size_t>::digits - 1);

/// One leaf's share of a JobQueue batch (JobQueue::set_batch): the handles of its jobs in push
/// order, the least of each prefix, and (once a use pops the leaf) all of them least first.
struct BatchLeaf {
  std::uint32_t queue = 0;           ///< the leaf queue's index
  std::vector<std::size_t> by_push;  ///< handles, in push order
  std::vector<std::size_t> least;    ///< least[i]: the least of by_push[0..i]
  std::vector<std::size_t> sorted;   ///< least first; built when first popped
  bool sorted_ready = false;
  /// by_push[i]'s place among the batch's views.
  std::size_t place(std::size_t i) const { return by_push[i] & ~kBatchHandle; }
};

// Go's heap, or, when the jobs' order is total (keys taken at push, unique names, not negated),
// a list sorted only when the leaf is first popped: a heap of a total order hands out its least
// job whatever its layout, and its top while jobs are pushed is the least so far. The solver
// pushes every pending job into each scenario's queue and pops a few leaves. In a total order a
// leaf may also hold a batch's jobs (`base`): those whose place is before the queue's clock count
// as pushed.
class LeafJobs {
 public:
  using Less = GoHeap<std::size_t>::Less;
  explicit LeafJobs(Less less) : heap_(less), less_(std::move(less)) {}

  void reset(bool total_order, BatchLeaf* base = nullptr, const std::size_t* clock = nullptr) {
    heap_.clear();
    items_.clear();
    total_ = total_order;
    sorted_ = false;
    scanned_ = 0;
    base_ = total_order ? base : nullptr;
    clock_ = clock;
    base_seen_ = 0;
    base_next_ = 0;
  }
  bool empty() const {
    if (!total_) return heap_.empty();
    if (!items_.empty()) return false;
    if (base_ == nullptr) return true;
    return sorted_ ? base_next_ == base_->sorted.size() : base_pushed() == 0;
  }
  std::size_t top() const {
    if (!total_) return heap_.top();
    if (sorted_) {
      if (base_ == nullptr || base_next_ == base_->sorted.size()) return items_.back();
      const std::size_t b = base_->sorted[base_next_];
      return items_.empty() || less_(b, items_.back()) ? b : items_.back();
    }
    // The least pushed so far, found when asked: most leaves of a scenario's queue are never
    // compared again after their first job, nor popped.
    for (; scanned_ < items_.size(); ++scanned_) {
      if (scanned_ == 0 || less_(items_[scanned_], least_)) least_ = items_[scanned_];
    }
    const std::size_t n = base_ ? base_pushed() : 0;
    if (n == 0) return least_;
    const std::size_t b = base_->least[n - 1];
    return items_.empty() || less_(b, least_) ? b : least_;
  }
  void push(std::size_t job) {
    if (!total_) {
      heap_.push(job);
    } else if (sorted_) {
      // Greatest first, so that the least is popped from the back.
      auto at = std::lower_bound(items_.begin(), items_.end(), job,
                                 [&](std::size_t x, std::size_t v) { return less_(v, x); });
      items_.insert(at, job);
    } else {
      items_.push_back(job);
    }
  }
  std::size_t pop() {
    if (!total_) return heap_.pop();
    if (!sorted_) sort();
    if (base_ != nullptr && base_next_ < base_->sorted.size()) {
      const std::size_t b = base_->sorted[base_next_];
      if (items_.empty() || less_(b, items_.back())) {
        ++base_next_;
        return b;
      }
    }
    const std::size_t job = items_.back();
    items_.pop_back();
    return job;
  }

 private:
  // How many of the batch's jobs are pushed by now: those placed before the clock.
  std::size_t base_pushed() const {
    while (base_seen_ < base_->by_push.size() && base_->place(base_seen_) < *clock_) ++base_seen_;
    return base_seen_;
  }

  void sort() {
    std::sort(items_.begin(), items_.end(),
              [&](std::size_t a, std::size_t b) { return less_(b, a); });
    sorted_ = true;
#ifndef NDEBUG
    // The order is total: no two jobs tie.
    for (std::size_t i = 1; i < items_.size(); ++i) SIM_ASSERT(less_(items_[i], items_[i - 1]));
#endif
    if (base_ == nullptr) return;
    SIM_ASSERT(base_pushed() == base_->by_push.size());  // pops come after every push
    if (!base_->sorted_ready) {
      base_->sorted = base_->by_push;
      std::sort(base_->sorted.begin(), base_->sorted.end(), less_);
      base_->sorted_ready = true;
#ifndef NDEBUG
      for (std::size_t i = 1; i < base_->sorted.size(); ++i)
        SIM_ASSERT(less_(base_->sorted[i - 1], base_->sorted[i]));
#endif
    }
  }

  GoHeap<std::size_t> heap_;
  Less less_;
  bool total_ = false;
  bool sorted_ = false;
  std::vector<std::size_t> items_;      // total order: pushed jobs (once sorted: greatest first)
  mutable std::size_t least_ = 0;       // total order, not sorted yet: the least of the scanned
  mutable std::size_t scanned_ = 0;     // items_ up to here are folded into least_
  BatchLeaf* base_ = nullptr;           // the batch's jobs of this leaf, if any
  const std::size_t* clock_ = nullptr;  // the queue's: how many batch views are pushed
  mutable std::size_t base_seen_ = 0;   // base_->by_push up to here is before the clock
  std::size_t base_next_ = 0;           // once sorted: base_->sorted up to here are popped
};

}  // namespace sim::sched
