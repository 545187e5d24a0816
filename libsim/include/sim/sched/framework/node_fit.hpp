#pragma once
// Where a task may go and which node and GPU it prefers, as the framework asks the plugins
// (framework/session.go FittingNode, OrderedNodesByTask, FittingGPUs; gpu_sharing/gpuSharing.go
// GetNodePreferableGpuForSharing).

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/sched/framework/session.hpp"

namespace sim::sched {

/// FittingNode: the task's resources fit the node's idle plus releasing ones, then every
/// PredicateFn in plugin order. On failure `why` (if given) receives the reason in plain words.
bool fitting_node(Session& ssn, TaskId task, NodeId node, std::string* why = nullptr);

/// Scored nodes handed out best first, ties by node name. A task usually fits the first or one
/// of the next few, so the best is found alone, then the others are sorted a few at a time as
/// the caller asks for more.
class NodeOrder {
 public:
  NodeOrder(std::vector<std::pair<double, NodeId>> scored,
            const std::vector<std::uint32_t>& name_ranks)
      : scored_(std::move(scored)), ranks_(&name_ranks) {}
  /// The next node, or false when every node was handed out.
  bool next(NodeId& node);
  /// Every node not handed out yet, in order.
  std::vector<NodeId> rest() {
    std::vector<NodeId> out;
    for (NodeId n; next(n);) out.push_back(n);
    return out;
  }

 private:
  std::vector<std::pair<double, NodeId>> scored_;
  const std::vector<std::uint32_t>* ranks_;
  std::size_t sorted_ = 0, handed_ = 0;
};

/// OrderedNodesByTask: every node of `offered` scored (the plugins' scores summed in plugin
/// order), best first, ties by node name. Scoring looks at all nodes, fitting or not, as in KAI.
/// With `fitting_only`, the nodes whose free resources the task does not fit (FittingNode's first
/// check) are left out before scoring: for a caller that takes the first node passing
/// FittingNode and asks no reasons for the others, the choice is the same, as every score of a
/// node is its own (binpack's least and most free node are still taken over all of `offered`).
/// `in_offered`, when given with `fitting_only`, marks the members of `offered` by node index: a
/// pod asking for whole GPUs then finds them in the session's index of nodes by free GPUs
/// instead of walking `offered` (the order handed out is the same: it is total).
NodeOrder ordered_nodes(Session& ssn, TaskId task, const std::vector<NodeId>& offered,
                        bool fitting_only = false, const std::vector<char>* in_offered = nullptr);

/// Candidate GPUs for a fraction task on a node, best first by GpuOrderFn: in-use groups it fits,
/// then one "whole GPU" marker per idle or releasing whole GPU, at most as many as the task's
/// devices. The names point into the node's groups (or are whole_gpu_marker()), valid while the
/// node's groups do not change.
std::vector<const std::string*> fitting_gpus(const Session& ssn, const model::Node& node,
                                             const model::Task& task);

/// The marker fitting_gpus() uses for "a new whole GPU" (pod_info.WholeGpuIndicator).
inline constexpr const char* kWholeGpu = "-2";
/// kWholeGpu as a string that lives for the program.
const std::string& whole_gpu_marker();

struct GpuChoice {
  std::vector<std::string> groups;  ///< kWholeGpu entries are replaced by new group ids
  bool releasing = false;           ///< must wait for releasing resources (pipeline)
  bool needs_new_group = false;
};

/// GetNodePreferableGpuForSharing; nullopt when fewer than `count` devices are available.
std::optional<GpuChoice> preferable_gpus(Session& ssn, const model::Node& node,
                                         const model::Task& task, bool pipeline_only,
                                         bool assign_new_ids);

}  // namespace sim::sched
