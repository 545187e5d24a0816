#include "sim/sched/framework/job_queue.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "leaf_jobs.hpp"
#include "sim/core/assert.hpp"

namespace sim::sched {

namespace {

// A node's key (SessionHooks::queue_order_key) with what it was worked out from: its head job
// then, and the session's counts. Heads change only when a job is popped or pushed, allocations
// only when a pod is placed or evicted, so the scenario queues' many comparisons between
// placements reuse it. With keys taken at push, the node's version and the queue's clock then
// say whether its head may have changed, without finding the head (key_of).
struct KeyMemo {
  ViewStamp head;
  std::uint64_t allocations = 0;  ///< Session::allocation_epoch
  QueueOrderKey key;
  bool versioned = false;  ///< version and clock below are the node's and queue's at the key
  std::uint64_t version = 0;
  std::size_t clock = 0;
};

}  // namespace

constexpr std::size_t kEveryView = std::numeric_limits<std::size_t>::max();

struct JobQueue::Batch {
  std::span<const JobView> views;
  std::span<const JobKeys> keys;
  std::vector<BatchLeaf> leaves;     // in the order of their first views
  std::vector<BatchLeaf*> of_queue;  // by queue index
};

struct JobQueue::Node {
  QueueId queue;
  bool leaf = false;
  bool needs_reorder = false;
  std::uint64_t version = 0;  // bumped by every push, pop and reorder under the node
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
  batch_in_use_ = false;
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
  node.key.versioned = false;
  if (leaf) {
    if (!node.jobs) {
      node.jobs = std::make_unique<LeafJobs>([this](const std::size_t& a, const std::size_t& b) {
        const bool less = job_less(a, b);
        return victim_mode_ ? !less : less;
      });
    }
    BatchLeaf* base = batch_in_use_ ? batch_->of_queue[queue.index()] : nullptr;
    node.jobs->reset(batchable(), base, &clock_);
  } else if (node.children) {
    node.children->clear();
  } else {
    node.children = std::make_unique<GoHeap<NodePtr>>(
        [this](const NodePtr& a, const NodePtr& b) { return node_less(a, b); });
  }
  nodes_[queue.index()] = &node;
  return node;
}

const JobView* JobQueue::view_at(std::size_t handle) const {
  return (handle & kBatchHandle) != 0 ? &batch_->views[handle & ~kBatchHandle] : views_[handle];
}

const JobQueue::JobKeys& JobQueue::keys_at(std::size_t handle) const {
  return (handle & kBatchHandle) != 0 ? batch_->keys[handle & ~kBatchHandle] : keys_[handle];
}

bool JobQueue::job_less(std::size_t a, std::size_t b) const {
  const JobView& va = *view_at(a);
  const JobView& vb = *view_at(b);
  if (!keys_at_push_) return ssn_.job_before(va, vb);
  // Session::job_before on the keys taken at push.
  const JobKeys& ka = keys_at(a);
  const JobKeys& kb = keys_at(b);
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
  if (!decided) less = ssn_.state.jobs[va.id].name < ssn_.state.jobs[vb.id].name;
  SIM_ASSERT(less == ssn_.job_before(va, vb));
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
    int c = QueueOrderKey::compare(key_of(*l), key_of(*r));
    if (c == 0) c = ssn_.hooks.queue_order_key_tie(ssn_, l->queue, r->queue);
    if (c == 0) {
      return ssn_.queue_before(l->queue, r->queue, best_pending(l), best_pending(r), scratch_l_,
                               scratch_r_);
    }
    SIM_ASSERT((c < 0) == ssn_.queue_before(l->queue, r->queue, best_pending(l), best_pending(r),
                                            scratch_l_, scratch_r_));
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
  const JobView* job = leaf->jobs->empty() ? nullptr : view_at(leaf->jobs->top());
#ifndef NDEBUG
  const JobView* pending = nullptr;
  std::vector<const JobView*> victims;
  best_job(node, pending, victims);
  SIM_ASSERT(pending == job && victims.empty());
#endif
  return job;
}

const QueueOrderKey& JobQueue::key_of(Node& node) {
  KeyMemo& m = node.key;
  if (keys_at_push_ && m.versioned && m.version == node.version && m.clock == clock_ &&
      m.allocations == ssn_.allocation_epoch()) {
#ifndef NDEBUG
    const JobView* head = best_pending(&node);
    SIM_ASSERT(m.head.holds(ssn_, head));
    order_key(node, head);  // compares the memo with a fresh key
#endif
    return m.key;
  }
  const QueueOrderKey& key = order_key(node, best_pending(&node));
  m.versioned = true;
  m.version = node.version;
  m.clock = clock_;
  return key;
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
  pending = view_at(node->jobs->top());
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

bool JobQueue::batchable() const {
  return keys_at_push_ && !victim_mode_ && !ssn_.job_name_ranks().empty();
}

void JobQueue::set_batch(std::span<const JobView> views, std::span<const JobKeys> keys,
                         JobId skip) {
  SIM_ASSERT(batchable() && views.size() == keys.size());
  if (!batch_) batch_ = std::make_unique<Batch>();
  Batch& b = *batch_;
  b.views = views;
  b.keys = keys;
  b.leaves.clear();
  b.of_queue.assign(ssn_.state.queue_tree.size(), nullptr);
  std::vector<std::uint32_t> leaf_of(ssn_.state.queue_tree.size(), 0);  // 1 + index in leaves
  for (std::size_t p = 0; p < views.size(); ++p) {
    const JobView& view = views[p];
    const QueueId queue = ssn_.state.jobs[view.id].queue;
    // As push_borrowed: jobs of missing or non-leaf queues are not queued.
    if (view.id == skip || !queue.valid() || !ssn_.state.queue_tree.is_leaf(queue)) continue;
    std::uint32_t& at = leaf_of[queue.index()];
    if (at == 0) {
      b.leaves.emplace_back().queue = static_cast<std::uint32_t>(queue.index());
      at = static_cast<std::uint32_t>(b.leaves.size());
    }
    BatchLeaf& leaf = b.leaves[at - 1];
    const std::size_t handle = p | kBatchHandle;
    leaf.least.push_back(
        leaf.by_push.empty() || job_less(handle, leaf.least.back()) ? handle : leaf.least.back());
    leaf.by_push.push_back(handle);
  }
  for (BatchLeaf& leaf : b.leaves) b.of_queue[leaf.queue] = &leaf;
}

void JobQueue::push_batch(std::span<const std::pair<std::size_t, const JobView*>> extras) {
  SIM_ASSERT(batch_ && views_.empty() && nodes_used_ == 0);
  batch_in_use_ = true;
  std::size_t e = 0;
  for (std::size_t i = 0;; ++i) {
    const bool more = i < batch_->leaves.size();
    // An extra goes before the batch's view at its place.
    const std::size_t first = more ? batch_->leaves[i].place(0) : kEveryView;
    for (; e < extras.size() && extras[e].first <= first; ++e) {
      clock_ = extras[e].first;
      push_borrowed(*extras[e].second, nullptr);
    }
    if (!more) break;
    // The leaf's first view: a new leaf is linked, as push_borrowed links it; the batch's later
    // views of a leaf compare with nothing when pushed.
    clock_ = first + 1;
    const QueueId queue(batch_->leaves[i].queue);
    if (nodes_[queue.index()] == nullptr) {
      Node* leaf = &new_node(queue, true);
      link_ancestors(leaf, queue);
      touch(leaf);
    }
  }
  clock_ = kEveryView;
  // Every push marks its leaf's path, and every node is on a pushed leaf's path.
  for (std::size_t n = 0; n < nodes_used_; ++n) node_store_[n].needs_reorder = true;
}

JobQueue::Node* JobQueue::traverse_to_leaf(GoHeap<NodePtr>& heap, Node* owner) {
  for (;;) {
    if (heap.empty()) return nullptr;
    Node* node = heap.top();
    if (node->needs_reorder) {
      heap.fix(0);
      node->needs_reorder = false;
      touch(owner);  // its head may be another now
      continue;
    }
    if (node->empty()) return nullptr;
    if (node->leaf) return node;
    return traverse_to_leaf(*node->children, node);
  }
}

const JobView* JobQueue::pop_view() {
  if (empty()) return nullptr;
  Node* leaf = traverse_to_leaf(*roots_, nullptr);
  if (leaf == nullptr) return nullptr;
  const std::size_t index = leaf->jobs->pop();
  if (victim_mode_) {
    if (popped_.size() <= leaf->queue.index()) popped_.resize(nodes_.size());
    popped_[leaf->queue.index()].push_back(index);
  }
  handle_pop_from(leaf);
  return view_at(index);
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
  for (Node* current = node; current != nullptr; current = current->parent) {
    current->needs_reorder = true;
    ++current->version;
  }
}

void JobQueue::touch(Node* node) {
  for (Node* current = node; current != nullptr; current = current->parent) ++current->version;
}

}  // namespace sim::sched
