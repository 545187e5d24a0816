#include "sim/sched/framework/job_queue.hpp"

#include <algorithm>
#include <cmath>

#include "sim/core/assert.hpp"

namespace sim::sched {

namespace {

// A leaf's jobs. Go's heap, or, when the jobs' order is total (keys taken at push, unique names,
// not negated), a list sorted only when the leaf is first popped: a heap of a total order hands
// out its least job whatever its layout, and its top while jobs are pushed is the least so far.
// The solver pushes every pending job into each scenario's queue and pops a few leaves.
class LeafJobs {
 public:
  using Less = GoHeap<std::size_t>::Less;
  explicit LeafJobs(Less less) : heap_(less), less_(std::move(less)) {}

  void reset(bool total_order) {
    heap_.clear();
    items_.clear();
    total_ = total_order;
    sorted_ = false;
    scanned_ = 0;
  }
  bool empty() const { return total_ ? items_.empty() : heap_.empty(); }
  std::size_t top() const {
    if (!total_) return heap_.top();
    if (sorted_) return items_.back();
    // The least pushed so far, found when asked: most leaves of a scenario's queue are never
    // compared again after their first job, nor popped.
    for (; scanned_ < items_.size(); ++scanned_) {
      if (scanned_ == 0 || less_(items_[scanned_], least_)) least_ = items_[scanned_];
    }
    return least_;
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
    if (!sorted_) {
      std::sort(items_.begin(), items_.end(),
                [&](std::size_t a, std::size_t b) { return less_(b, a); });
      sorted_ = true;
#ifndef NDEBUG
      // The order is total: no two jobs tie.
      for (std::size_t i = 1; i < items_.size(); ++i) SIM_ASSERT(less_(items_[i], items_[i - 1]));
#endif
    }
    const std::size_t job = items_.back();
    items_.pop_back();
    return job;
  }

 private:
  GoHeap<std::size_t> heap_;
  Less less_;
  bool total_ = false;
  bool sorted_ = false;
  std::vector<std::size_t> items_;   // total order: pushed jobs (once sorted: greatest first)
  mutable std::size_t least_ = 0;    // total order, not sorted yet: the least of the scanned
  mutable std::size_t scanned_ = 0;  // items_ up to here are folded into least_
};

// A node's key (SessionHooks::queue_order_key) with what it was worked out from: its head job
// then, and the session's counts. Heads change only when a job is popped or pushed, allocations
// only when a pod is placed or evicted, so the scenario queues' many comparisons between
// placements reuse it.
struct KeyMemo {
  ViewStamp head;
  std::uint64_t allocations = 0;  ///< Session::allocation_epoch
  QueueOrderKey key;
};

}  // namespace

struct JobQueue::Node {
  QueueId queue;
  bool leaf = false;
  bool needs_reorder = false;
  Node* parent = nullptr;
  KeyMemo key;                                // not in victim mode
  std::unique_ptr<GoHeap<NodePtr>> children;  // non-leaf
  std::unique_ptr<LeafJobs> jobs;             // leaf: indices into views_
  bool empty() const { return leaf ? jobs->empty() : children->empty(); }
};

JobQueue::JobQueue(Session& ssn, bool victim_mode, bool keys_at_push)
    : ssn_(ssn),
      victim_mode_(victim_mode),
      keys_at_push_(keys_at_push && ssn.hooks.job_order.size() <= kMaxOrderKeys),
      nodes_(ssn.state.queue_tree.size(), nullptr) {}

JobQueue::~JobQueue() = default;

bool JobQueue::empty() const { return !roots_ || roots_->empty(); }

void JobQueue::reset() {
  owned_.clear();
  views_.clear();
  keys_.clear();
  if (roots_) roots_->clear();
  nodes_used_ = 0;
  std::fill(nodes_.begin(), nodes_.end(), nullptr);
  for (std::vector<std::size_t>& p : popped_) p.clear();
}

JobQueue::Node& JobQueue::new_node(QueueId queue, bool leaf) {
  // A stored node from an earlier use keeps its heaps (emptied); the comparators name this queue.
  Node& node =
      nodes_used_ < node_store_.size() ? node_store_[nodes_used_] : node_store_.emplace_back();
  ++nodes_used_;
  node.queue = queue;
  node.leaf = leaf;
  node.needs_reorder = false;
  node.parent = nullptr;
  node.key.head.valid = false;
  if (leaf) {
    if (!node.jobs) {
      node.jobs = std::make_unique<LeafJobs>([this](const std::size_t& a, const std::size_t& b) {
        const bool less = job_less(a, b);
        return victim_mode_ ? !less : less;
      });
    }
    node.jobs->reset(keys_at_push_ && !victim_mode_ && !ssn_.job_name_ranks().empty());
  } else if (node.children) {
    node.children->clear();
  } else {
    node.children = std::make_unique<GoHeap<NodePtr>>(
        [this](const NodePtr& a, const NodePtr& b) { return node_less(a, b); });
  }
  nodes_[queue.index()] = &node;
  return node;
}

bool JobQueue::job_less(std::size_t a, std::size_t b) const {
  if (!keys_at_push_) return ssn_.job_before(*views_[a], *views_[b]);
  // Session::job_before on the keys taken at push.
  const JobKeys& ka = keys_[a];
  const JobKeys& kb = keys_[b];
  bool less = false;
  bool decided = false;
  for (std::size_t i = 0; i < ssn_.hooks.job_order.size() && !decided; ++i) {
    if (ka.order[i] != kb.order[i]) {
      less = ka.order[i] < kb.order[i];
      decided = true;
    }
  }
  if (!decided && ka.created_ns != kb.created_ns) {
    less = ka.created_ns < kb.created_ns;
    decided = true;
  }
  if (!decided) less = ssn_.state.jobs[views_[a]->id].name < ssn_.state.jobs[views_[b]->id].name;
  SIM_ASSERT(less == ssn_.job_before(*views_[a], *views_[b]));
  return less;
}

bool JobQueue::node_less(Node* l, Node* r) {
  if (l->empty()) return !victim_mode_;
  if (r->empty()) return victim_mode_;
  // Comparisons never nest, so the two lists can be reused.
  scratch_l_.clear();
  scratch_r_.clear();
  if (!victim_mode_ && ssn_.hooks.queue_order_key) {
    // No victims on either side: the keys decide, or the order's last steps of the two queues.
    const JobView* l_job = best_pending(l);
    const JobView* r_job = best_pending(r);
    int c = QueueOrderKey::compare(order_key(*l, l_job), order_key(*r, r_job));
    if (c == 0) c = ssn_.hooks.queue_order_key_tie(ssn_, l->queue, r->queue);
    if (c == 0) return ssn_.queue_before(l->queue, r->queue, l_job, r_job, scratch_l_, scratch_r_);
    SIM_ASSERT((c < 0) ==
               ssn_.queue_before(l->queue, r->queue, l_job, r_job, scratch_l_, scratch_r_));
    return c < 0;
  }
  const JobView* l_job = nullptr;
  const JobView* r_job = nullptr;
  best_job(l, l_job, scratch_l_);
  best_job(r, r_job, scratch_r_);
  const bool less = ssn_.queue_before(l->queue, r->queue, l_job, r_job, scratch_l_, scratch_r_);
  return victim_mode_ ? !less : less;
}

const JobView* JobQueue::best_pending(Node* node) {
  Node* leaf = node;
  while (!leaf->leaf) leaf = leaf->children->top();
  const JobView* job = leaf->jobs->empty() ? nullptr : views_[leaf->jobs->top()];
#ifndef NDEBUG
  const JobView* pending = nullptr;
  std::vector<const JobView*> victims;
  best_job(node, pending, victims);
  SIM_ASSERT(pending == job && victims.empty());
#endif
  return job;
}

const QueueOrderKey& JobQueue::order_key(Node& node, const JobView* job) {
  KeyMemo& m = node.key;
  if (m.allocations != ssn_.allocation_epoch() || !m.head.holds(ssn_, job)) {
    m.head.take(ssn_, job);
    m.allocations = ssn_.allocation_epoch();
    m.key = ssn_.hooks.queue_order_key(ssn_, node.queue, job);
    return m.key;
  }
#ifndef NDEBUG
  const QueueOrderKey fresh = ssn_.hooks.queue_order_key(ssn_, node.queue, job);
  auto same = [](double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); };
  SIM_ASSERT(fresh.over == m.key.over && fresh.starved == m.key.starved &&
             fresh.priority == m.key.priority && fresh.violates == m.key.violates &&
             same(fresh.share, m.key.share) && same(fresh.plain, m.key.plain));
#endif
  return m.key;
}

void JobQueue::best_job(Node* node, const JobView*& pending, std::vector<const JobView*>& victims) {
  if (!node->leaf) {
    best_job(node->children->top(), pending, victims);
    return;
  }
  if (node->jobs->empty()) return;
  if (victim_mode_) {
    if (node->queue.index() < popped_.size()) {
      for (std::size_t i : popped_[node->queue.index()]) victims.push_back(views_[i]);
    }
    victims.push_back(views_[node->jobs->top()]);
    return;
  }
  pending = views_[node->jobs->top()];
}

void JobQueue::link_ancestors(Node* child, QueueId queue) {
  const QueueId parent = ssn_.state.queue_tree.parent(queue);
  if (!parent.valid()) {
    if (!roots_) {
      roots_ = std::make_unique<GoHeap<NodePtr>>(
          [this](const NodePtr& a, const NodePtr& b) { return node_less(a, b); });
    }
    if (child->parent == nullptr) roots_->push(child);
    return;
  }
  Node* parent_node = nodes_[parent.index()];
  const bool parent_is_new = parent_node == nullptr;
  if (parent_is_new) parent_node = &new_node(parent, false);
  if (child->parent == nullptr) {
    child->parent = parent_node;
    parent_node->children->push(child);
  }
  if (parent_is_new) link_ancestors(parent_node, parent);
}

void JobQueue::push(JobView view) { push_borrowed(owned_.emplace_back(std::move(view))); }

JobQueue::JobKeys JobQueue::keys_of(const JobView& view) const {
  const model::Job& job = ssn_.state.jobs[view.id];
  JobKeys keys;
  for (std::size_t i = 0; i < ssn_.hooks.job_order.size(); ++i)
    keys.order[i] = ssn_.hooks.job_order[i](ssn_, job, view);
  keys.created_ns = job.created_ns;
  return keys;
}

void JobQueue::push_borrowed(const JobView& view) { push_borrowed(view, nullptr); }

void JobQueue::push_borrowed(const JobView& view, const JobKeys& keys) {
  SIM_ASSERT(keys_at_push_);
  push_borrowed(view, &keys);
}

// Both pushes: `keys` taken earlier, or (when null) now if the heaps compare keys.
void JobQueue::push_borrowed(const JobView& view, const JobKeys* keys) {
  const QueueId queue = ssn_.state.jobs[view.id].queue;
  if (!queue.valid() || !ssn_.state.queue_tree.is_leaf(queue)) return;
  const std::size_t index = views_.size();
  views_.push_back(&view);
  if (keys_at_push_) {
    keys_.push_back(keys ? *keys : keys_of(view));
#ifndef NDEBUG
    const JobKeys now = keys_of(view);  // keys taken earlier still hold
    SIM_ASSERT(keys_.back().order == now.order && keys_.back().created_ns == now.created_ns);
#endif
  }
  Node* leaf = nodes_[queue.index()];
  if (leaf != nullptr) {
    leaf->jobs->push(index);
  } else {
    // KAI pushes the job into the new leaf before linking it, so comparisons see a job there.
    leaf = &new_node(queue, true);
    leaf->jobs->push(index);
    link_ancestors(leaf, queue);
  }
  mark_for_reorder(leaf);
}

JobQueue::Node* JobQueue::traverse_to_leaf(GoHeap<NodePtr>& heap) {
  for (;;) {
    if (heap.empty()) return nullptr;
    Node* node = heap.top();
    if (node->needs_reorder) {
      heap.fix(0);
      node->needs_reorder = false;
      continue;
    }
    if (node->empty()) return nullptr;
    if (node->leaf) return node;
    return traverse_to_leaf(*node->children);
  }
}

const JobView* JobQueue::pop_view() {
  if (empty()) return nullptr;
  Node* leaf = traverse_to_leaf(*roots_);
  if (leaf == nullptr) return nullptr;
  const std::size_t index = leaf->jobs->pop();
  if (victim_mode_) {
    if (popped_.size() <= leaf->queue.index()) popped_.resize(nodes_.size());
    popped_[leaf->queue.index()].push_back(index);
  }
  handle_pop_from(leaf);
  return views_[index];
}

JobView JobQueue::pop() {
  const JobView* view = pop_view();
  return view != nullptr ? *view : JobView{};
}

void JobQueue::handle_pop_from(Node* node) {
  if (node->empty()) {
    Node* parent = node->parent;
    if (parent != nullptr) {
      parent->children->pop();
    } else {
      roots_->pop();
    }
    nodes_[node->queue.index()] = nullptr;
    if (parent != nullptr) handle_pop_from(parent);
    return;
  }
  mark_for_reorder(node);
}

void JobQueue::mark_for_reorder(Node* node) {
  for (Node* current = node; current != nullptr; current = current->parent)
    current->needs_reorder = true;
}

}  // namespace sim::sched
