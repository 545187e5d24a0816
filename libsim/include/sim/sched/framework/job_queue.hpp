#pragma once
// JobsOrderByQueues (actions/utils/job_order_by_queue.go): a tree of Go-style heaps mirroring the
// queue hierarchy, each leaf holding a heap of jobs. Popping walks the heap tops from the root;
// only the path just popped from is re-sorted, lazily, as in KAI.

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "sim/core/go_heap.hpp"
#include "sim/sched/framework/job_order.hpp"

namespace sim::sched {

class JobQueue {
 public:
  /// `victim_mode` negates both comparators (worst queue and job first) and compares queues by
  /// the jobs already popped from them, as KAI's victim queues do.
  ///
  /// With `keys_at_push`, a job's sort keys (the job orders', its creation time) are taken once,
  /// when it is pushed, and its heap compares them: only for a queue whose jobs' pods do not
  /// change while they wait in it (the solver's scenario queue, which pops a job before placing
  /// it). Debug builds check every comparison against Session::job_before.
  JobQueue(Session& ssn, bool victim_mode, bool keys_at_push = false);
  ~JobQueue();
  JobQueue(const JobQueue&) = delete;
  JobQueue& operator=(const JobQueue&) = delete;

  /// Empties the queue for another use, keeping what it allocated (the solver orders the jobs
  /// of every scenario in one queue, which made hundreds of heaps per scenario before).
  void reset();

  bool empty() const;
  JobView pop();
  /// pop() without the copy: the view stays valid as long as the queue (or, for a borrowed
  /// view, its owner) does; nullptr when empty.
  const JobView* pop_view();
  /// PushJob: jobs of missing or non-leaf queues are ignored.
  void push(JobView view);
  /// push() of a view the caller keeps alive for the queue's lifetime: nothing is copied (the
  /// solver pushes the same pending jobs into every scenario's queue).
  void push_borrowed(const JobView& view);

  /// A job's sort keys as its heap compares them (keys_at_push); the name breaks the last ties.
  static constexpr std::size_t kMaxOrderKeys = 4;
  struct JobKeys {
    std::array<std::int64_t, kMaxOrderKeys> order{};
    std::int64_t created_ns = 0;
  };
  /// Whether the heaps compare keys taken at push (see the constructor).
  bool keys_at_push() const { return keys_at_push_; }
  /// The keys push_borrowed would take of `view` now.
  JobKeys keys_of(const JobView& view) const;
  /// push_borrowed() with keys the caller took earlier (keys_of), for a job whose pods have not
  /// changed since: the solver takes them once per solve for the jobs it only queues. Only with
  /// keys_at_push(); Debug builds compare them with keys taken now.
  void push_borrowed(const JobView& view, const JobKeys& keys);

  /// Whether set_batch may be used: keys taken at push, jobs in a total order (unique names), not
  /// in victim mode.
  bool batchable() const;
  /// The jobs every use of this queue starts with (the solver's pending jobs of one solve, which
  /// each of its scenarios queues), in push order, with their keys; the view of `skip` is left
  /// out (the solver queues its own view of that job). `views` and `keys` must stay alive and
  /// unchanged until the next set_batch. Only when batchable().
  void set_batch(std::span<const JobView> views, std::span<const JobKeys> keys, JobId skip);
  /// Right after reset(): pushes the batch's jobs and, in their places, `extras`, each with how
  /// many of the batch's views come before it, in push order. The queue is then as if each had
  /// been pushed with push_borrowed, but the batch costs the time of its leaves, not of its jobs:
  /// only a leaf's first job is compared, when the leaf is linked, and a leaf's jobs are sorted
  /// once per batch.
  void push_batch(std::span<const std::pair<std::size_t, const JobView*>> extras);

 private:
  struct Node;
  struct Batch;
  using NodePtr = Node*;
  void link_ancestors(Node* child, QueueId queue);
  /// `heap`: `owner`'s children, or the roots (no owner).
  Node* traverse_to_leaf(GoHeap<NodePtr>& heap, Node* owner);
  void handle_pop_from(Node* node);
  static void mark_for_reorder(Node* node);
  /// Changes the version of `node` and its ancestors: what is under them may have changed.
  static void touch(Node* node);
  bool node_less(Node* l, Node* r);
  const QueueOrderKey& order_key(Node& node, const JobView* job);
  /// order_key of the node's head job (best_pending), found only when it may have changed.
  const QueueOrderKey& key_of(Node& node);
  void best_job(Node* node, const JobView*& pending, std::vector<const JobView*>& victims);
  /// best_job outside victim mode, without the victims' list.
  const JobView* best_pending(Node* node);
  Node& new_node(QueueId queue, bool leaf);
  bool job_less(std::size_t a, std::size_t b) const;
  /// A job in the heaps: an index into views_, or a batch view's with kBatchHandle set.
  const JobView* view_at(std::size_t handle) const;
  const JobKeys& keys_at(std::size_t handle) const;
  void push_borrowed(const JobView& view, const JobKeys* keys);

  Session& ssn_;
  bool victim_mode_;
  bool keys_at_push_;
  std::vector<JobKeys> keys_;          // by view index, when keys_at_push_
  std::deque<JobView> owned_;          // the views pushed by value
  std::vector<const JobView*> views_;  // every pushed view; heaps hold indices
  std::unique_ptr<GoHeap<NodePtr>> roots_;
  std::deque<Node> node_store_;  // stable storage; a node emptied stays here unused
  std::size_t nodes_used_ = 0;   // node_store_'s nodes in use since the last reset
  std::vector<Node*> nodes_;     // by queue index: the queue's live node, or nullptr
  std::vector<std::vector<std::size_t>> popped_;       // by queue index (victim mode)
  std::vector<const JobView*> scratch_l_, scratch_r_;  // node_less's victim lists
  std::unique_ptr<Batch> batch_;                       // set_batch's jobs, by leaf
  bool batch_in_use_ = false;  // pushed with push_batch since the last reset
  std::size_t clock_ = 0;      // push_batch: how many of the batch's views are pushed
};

}  // namespace sim::sched
