#pragma once
// Private: Kubernetes' InterPodAffinity filter (pkg/scheduler/framework/plugins/interpodaffinity
// filtering.go), which KAI runs among its k8s predicates: required pod affinity and
// anti-affinity of the pod, and the required anti-affinity of the pods already on nodes.

#include <string>

#include "sim/sched/session.hpp"

namespace sim::sched {

/// Why `task` may not go to `node` by inter-pod (anti-)affinity, or "" when it may. The pods
/// already placed are every pod holding node resources in the session, including pods placed
/// earlier in this cycle.
std::string pod_affinity_filter(const Session& ssn, const model::Task& task, const model::Node& node);

}  // namespace sim::sched
