#pragma once
// Where a task may go and which node it prefers (framework/session.go FittingNode,
// OrderedNodesByTask, FittingGPUs; plugins predicates, nodeplacement, nodeavailability,
// resourcetype, gpusharingorder, nominatednode, gpupack/gpuspread; gpu_sharing/gpuSharing.go).

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/sched/framework/session.hpp"

namespace sim::sched {

/// FittingNode: resources on idle + releasing, then the predicates in KAI's order. On failure
/// `why` (if given) receives the reason in plain words.
bool fitting_node(Session& ssn, TaskId task, NodeId node, std::string* why = nullptr);

/// Kubernetes' ToleratesTaint: an empty effect matches every effect; an empty key with Exists
/// matches every taint.
bool tolerates(const model::Toleration& toleration, const model::Taint& taint);

/// Scored nodes handed out best first, ties by node name. A task usually fits one of the first
/// few, so they are sorted a few at a time as the caller asks for more.
class NodeOrder {
 public:
  NodeOrder(std::vector<std::pair<double, NodeId>> scored, const std::vector<std::uint32_t>& name_ranks)
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

/// OrderedNodesByTask: every node of `nodes` scored (sum of plugin scores), best first, ties by
/// node name. Scoring looks at all nodes, fitting or not, as in KAI.
NodeOrder ordered_nodes(Session& ssn, TaskId task, const std::vector<NodeId>& nodes);

/// Candidate GPUs for a fraction task on a node, best first: in-use groups it fits, then one
/// "whole GPU" marker per idle or releasing whole GPU, at most as many as the task's devices.
std::vector<std::string> fitting_gpus(const Session& ssn, const model::Node& node, const model::Task& task);

/// The marker fitting_gpus() uses for "a new whole GPU".
inline constexpr const char* kWholeGpu = "-2";

struct GpuChoice {
  std::vector<std::string> groups;  ///< kWholeGpu entries are replaced by new group ids
  bool releasing = false;           ///< must wait for releasing resources (pipeline)
  bool needs_new_group = false;
};

/// GetNodePreferableGpuForSharing; nullopt when fewer than `count` devices are available.
std::optional<GpuChoice> preferable_gpus(Session& ssn, const model::Node& node, const model::Task& task,
                                         bool pipeline_only, bool assign_new_ids);

/// The names of all nodes that pass the node-condition check, for fit-error messages.
std::string describe_node(const model::Node& node);

}  // namespace sim::sched
