#pragma once
// Why the nodes offered to one pod did not take it, counted node by node as the allocate action
// tries them, and turned into one typed reason (not enough GPUs, GPU memory, fragmentation,
// another resource, node rules, a queue limit on a node). KAI keeps this only as text
// (FitErrors, one message per node); the counts come from the same checks.

#include <optional>

#include "sim/model/node.hpp"
#include "sim/model/task.hpp"
#include "sim/sched/framework/wait_reason.hpp"

namespace sim::sched {

class Session;

class NodeMisses {
 public:
  /// Notes that node `node_id` did not take task `task_id`: fitting_node failed on it.
  void note(const Session& ssn, TaskId task_id, NodeId node_id);
  /// The reason over every node noted, with its numbers (its message is the caller's).
  WaitReason reason(const model::Task& task) const;
  bool operator==(const NodeMisses&) const = default;

 private:
  int nodes_ = 0;
  int short_gpu_ = 0;           // nodes short of GPU (whole devices, or memory on one device)
  int short_other_ = 0;         // nodes short of another resource only
  int ruled_out_ = 0;           // nodes a predicate refused
  std::string other_resource_;  // the first other resource found short
  std::optional<WaitReason> capacity_;  // a queue limit on a node (predicates' capacity check)
  double requested_ = 0, largest_free_ = 0, total_free_ = 0;
};

}  // namespace sim::sched
