#pragma once
// Private: Kubernetes' InterPodAffinity plugin. Its filter (filtering.go), which KAI runs among
// its k8s predicates: required pod affinity and anti-affinity of the pod, and the required
// anti-affinity of the pods already on nodes. Its scores (scoring.go), which KAI's podaffinity
// plugin adds to the node order: preferred terms of the pod and of the pods already on nodes.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/sched/framework/session.hpp"

namespace sim::sched {

/// Why `task` may not go to `node` by inter-pod (anti-)affinity, or "" when it may. The pods
/// already placed are every pod holding node resources in the session, including pods placed
/// earlier in this cycle. `any_pod_anti_affinity`: some placed pod has required anti-affinity
/// (only then can a pod without terms of its own be kept off a node).
std::string pod_affinity_filter(const Session& ssn, const model::Task& task,
                                const model::Node& node, bool any_pod_anti_affinity);

/// One task's InterPodAffinity PreScore: weights summed per topology key and domain value.
/// KAI builds the plugin with empty arguments (k8s_internal/plugins/plugins.go), so the hard pod
/// affinity weight is 0: existing pods' required terms add nothing.
class PreferredAffinityScores {
 public:
  /// For every pod holding node resources: the task's preferred terms matching that pod, and
  /// that pod's preferred terms matching the task, add their weight (anti-affinity: subtract it)
  /// in the domain of that pod's node.
  static PreferredAffinityScores prescore(const Session& ssn, const model::Task& task,
                                          bool any_preferred_pod_affinity);
  /// No term matched anywhere: PreScore answers Skip.
  bool skip() const { return by_key_.empty(); }
  /// Score: the sums of the node's domains, raw (KAI never normalises them).
  std::int64_t score(const model::Node& node) const;

 private:
  void add(const std::vector<model::WeightedPodAffinityTerm>& terms, const std::string& owner_ns,
           const model::Task& pod, const model::Node& where, int sign);
  std::map<std::string, std::map<std::string, std::int64_t>> by_key_;
};

}  // namespace sim::sched
