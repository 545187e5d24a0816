#pragma once
// Where a task may go and which node it prefers (framework/session.go FittingNode,
// OrderedNodesByTask, FittingGPUs; plugins predicates, nodeplacement, nodeavailability,
// resourcetype, gpusharingorder, nominatednode, gpupack/gpuspread; gpu_sharing/gpuSharing.go).

#include <string>
#include <vector>

#include "sim/sched/session.hpp"

namespace sim::sched {

/// FittingNode: resources on idle + releasing, then the predicates in KAI's order. On failure
/// `why` (if given) receives the reason in plain words.
bool fitting_node(Session& ssn, TaskId task, NodeId node, std::string* why = nullptr);

/// Kubernetes' ToleratesTaint: an empty effect matches every effect; an empty key with Exists
/// matches every taint.
bool tolerates(const model::Toleration& toleration, const model::Taint& taint);

/// OrderedNodesByTask: every node of `nodes` scored (sum of plugin scores), best first, ties by
/// node name. Scoring looks at all nodes, fitting or not, as in KAI.
std::vector<NodeId> ordered_nodes(Session& ssn, TaskId task, const std::vector<NodeId>& nodes);

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
