#pragma once
// JobsOrderByQueues (actions/utils/job_order_by_queue.go): a tree of Go-style heaps mirroring the
// queue hierarchy, each leaf holding a heap of jobs. Popping walks the heap tops from the root;
// only the path just popped from is re-sorted, lazily, as in KAI.

#include <memory>
#include <unordered_map>
#include <vector>

#include "sim/core/go_heap.hpp"
#include "sim/sched/framework/job_order.hpp"

namespace sim::sched {

class JobQueue {
 public:
  /// `victim_mode` negates both comparators (worst queue and job first) and compares queues by
  /// the jobs already popped from them, as KAI's victim queues do.
  JobQueue(Session& ssn, bool victim_mode);
  ~JobQueue();
  JobQueue(const JobQueue&) = delete;
  JobQueue& operator=(const JobQueue&) = delete;

  bool empty() const;
  JobView pop();
  /// PushJob: jobs of missing or non-leaf queues are ignored.
  void push(JobView view);

 private:
  struct Node;
  using NodePtr = Node*;
  void link_ancestors(Node* child, QueueId queue);
  Node* traverse_to_leaf(GoHeap<NodePtr>& heap);
  void handle_pop_from(Node* node);
  static void mark_for_reorder(Node* node);
  bool node_less(Node* l, Node* r);
  void best_job(Node* node, const JobView*& pending, std::vector<const JobView*>& victims);
  std::unique_ptr<GoHeap<NodePtr>> make_node_heap();

  Session& ssn_;
  bool victim_mode_;
  std::vector<std::unique_ptr<JobView>> views_;  // stable storage; heaps hold indices
  std::unique_ptr<GoHeap<NodePtr>> roots_;
  std::unordered_map<QueueId, std::unique_ptr<Node>> nodes_;
  std::unordered_map<QueueId, std::vector<std::size_t>> popped_;
};

}  // namespace sim::sched
