#include "sim/sched/framework/job_queue.hpp"

namespace sim::sched {

struct JobQueue::Node {
  QueueId queue;
  bool leaf = false;
  bool needs_reorder = false;
  Node* parent = nullptr;
  std::unique_ptr<GoHeap<NodePtr>> children;  // non-leaf
  std::unique_ptr<GoHeap<std::size_t>> jobs;  // leaf: indices into views_
  bool empty() const { return leaf ? jobs->empty() : children->empty(); }
};

JobQueue::JobQueue(Session& ssn, bool victim_mode) : ssn_(ssn), victim_mode_(victim_mode) {}

JobQueue::~JobQueue() = default;

bool JobQueue::empty() const { return !roots_ || roots_->empty(); }

std::unique_ptr<GoHeap<JobQueue::NodePtr>> JobQueue::make_node_heap() {
  return std::make_unique<GoHeap<NodePtr>>(
      [this](const NodePtr& a, const NodePtr& b) { return node_less(a, b); });
}

bool JobQueue::node_less(Node* l, Node* r) {
  if (l->empty()) return !victim_mode_;
  if (r->empty()) return victim_mode_;
  const JobView* l_job = nullptr;
  const JobView* r_job = nullptr;
  std::vector<const JobView*> l_victims, r_victims;
  best_job(l, l_job, l_victims);
  best_job(r, r_job, r_victims);
  const bool less = ssn_.queue_before(l->queue, r->queue, l_job, r_job, l_victims, r_victims);
  return victim_mode_ ? !less : less;
}

void JobQueue::best_job(Node* node, const JobView*& pending, std::vector<const JobView*>& victims) {
  if (!node->leaf) {
    best_job(node->children->top(), pending, victims);
    return;
  }
  if (node->jobs->empty()) return;
  if (victim_mode_) {
    for (std::size_t i : popped_[node->queue]) victims.push_back(views_[i].get());
    victims.push_back(views_[node->jobs->top()].get());
    return;
  }
  pending = views_[node->jobs->top()].get();
}

void JobQueue::link_ancestors(Node* child, QueueId queue) {
  const QueueId parent = ssn_.state.queue_tree.parent(queue);
  if (!parent.valid()) {
    if (!roots_) roots_ = make_node_heap();
    if (child->parent == nullptr) roots_->push(child);
    return;
  }
  auto it = nodes_.find(parent);
  const bool parent_is_new = it == nodes_.end();
  Node* parent_node = nullptr;
  if (parent_is_new) {
    auto node = std::make_unique<Node>();
    node->queue = parent;
    node->children = make_node_heap();
    parent_node = node.get();
    nodes_.emplace(parent, std::move(node));
  } else {
    parent_node = it->second.get();
  }
  if (child->parent == nullptr) {
    child->parent = parent_node;
    parent_node->children->push(child);
  }
  if (parent_is_new) link_ancestors(parent_node, parent);
}

void JobQueue::push(JobView view) {
  const QueueId queue = ssn_.state.jobs[view.id].queue;
  if (!queue.valid() || !ssn_.state.queue_tree.is_leaf(queue)) return;
  const std::size_t index = views_.size();
  views_.push_back(std::make_unique<JobView>(std::move(view)));
  auto it = nodes_.find(queue);
  Node* leaf = nullptr;
  if (it != nodes_.end()) {
    leaf = it->second.get();
    leaf->jobs->push(index);
  } else {
    // KAI pushes the job into the new leaf before linking it, so comparisons see a job there.
    auto node = std::make_unique<Node>();
    node->queue = queue;
    node->leaf = true;
    node->jobs =
        std::make_unique<GoHeap<std::size_t>>([this](const std::size_t& a, const std::size_t& b) {
          const bool less = ssn_.job_before(*views_[a], *views_[b]);
          return victim_mode_ ? !less : less;
        });
    leaf = node.get();
    nodes_.emplace(queue, std::move(node));
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

JobView JobQueue::pop() {
  if (empty()) return JobView{};
  Node* leaf = traverse_to_leaf(*roots_);
  if (leaf == nullptr) return JobView{};
  const std::size_t index = leaf->jobs->pop();
  if (victim_mode_) popped_[leaf->queue].push_back(index);
  handle_pop_from(leaf);
  return *views_[index];
}

void JobQueue::handle_pop_from(Node* node) {
  if (node->empty()) {
    Node* parent = node->parent;
    if (parent != nullptr) {
      parent->children->pop();
    } else {
      roots_->pop();
    }
    nodes_.erase(node->queue);
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
