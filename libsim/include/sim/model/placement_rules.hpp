#pragma once
// The parts of a Pod and a Node that Kubernetes' node filters look at: taints and tolerations,
// node selector and required node affinity. Plain data; matching lives in sched/predicates.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sim/model/shared_map.hpp"

namespace sim::model {

/// Kubernetes labels, read-only once built and shared by copies.
using Labels = SharedMap<std::string>;

/// A node taint. `effect` is NoSchedule, PreferNoSchedule or NoExecute.
struct Taint {
  std::string key, value, effect;
};

/// A pod toleration. `op` is "Equal" (default) or "Exists"; empty key with Exists tolerates all;
/// empty effect matches every effect.
struct Toleration {
  std::string key, op = "Equal", value, effect;
  std::optional<std::int64_t>
      seconds;  ///< tolerationSeconds (NoExecute taints: how long the pod stays)
  bool operator==(const Toleration&) const = default;
};

/// Kubernetes' ToleratesTaint: an empty effect matches every effect; an empty key with Exists
/// matches every taint.
inline bool tolerates(const Toleration& t, const Taint& taint) {
  if (!t.effect.empty() && t.effect != taint.effect) return false;
  if (t.key.empty() && t.op == "Exists") return true;
  if (t.key != taint.key) return false;
  return t.op == "Exists" || t.value == taint.value;
}

/// One requirement of a node selector term. `op`: In, NotIn, Exists, DoesNotExist, Gt, Lt.
struct SelectorRequirement {
  std::string key, op;
  std::vector<std::string> values;
  bool operator==(const SelectorRequirement&) const = default;
};

/// Terms of requiredDuringSchedulingIgnoredDuringExecution: a node must match at least one term,
/// and a term matches when all its expressions and fields match (fields: only metadata.name).
struct NodeSelectorTerm {
  std::vector<SelectorRequirement> expressions;
  std::vector<SelectorRequirement> fields;
  bool operator==(const NodeSelectorTerm&) const = default;
};

/// A required pod (anti-)affinity term: pods in `namespaces` (the pod's own namespace when
/// empty; every namespace when `all_namespaces`) whose labels match `selector`, grouped by the
/// value of the node label `topology_key`. No labelSelector at all matches no pod.
struct PodAffinityTerm {
  std::optional<std::vector<SelectorRequirement>> selector;  ///< matchLabels as In requirements
  std::vector<std::string> namespaces;
  bool all_namespaces = false;  ///< namespaceSelector: {}
  std::string topology_key;
  bool operator==(const PodAffinityTerm&) const = default;
};

/// A preferred pod (anti-)affinity term: it only scores nodes, by `weight` (1..100).
struct WeightedPodAffinityTerm {
  std::int32_t weight = 0;
  PodAffinityTerm term;
};

struct PlacementRules {
  Labels node_selector;                    ///< spec.nodeSelector
  std::vector<NodeSelectorTerm> required;  ///< required node affinity; empty = none
  std::vector<Toleration> tolerations;
  std::vector<PodAffinityTerm> pod_affinity;                    ///< required podAffinity terms
  std::vector<PodAffinityTerm> pod_anti_affinity;               ///< required podAntiAffinity terms
  std::vector<WeightedPodAffinityTerm> preferred_pod_affinity;  ///< preferred podAffinity terms
  std::vector<WeightedPodAffinityTerm>
      preferred_pod_anti_affinity;  ///< preferred podAntiAffinity terms

  bool empty() const {
    return node_selector.empty() && required.empty() && tolerations.empty() &&
           pod_affinity.empty() && pod_anti_affinity.empty() && preferred_pod_affinity.empty() &&
           preferred_pod_anti_affinity.empty();
  }
};

/// A pod's placement rules, read-only once built. Copies share them, as Labels do: most pods
/// have none, and every cycle's state holds a copy of every task (16 bytes instead of 160).
class SharedPlacement {
 public:
  SharedPlacement() = default;
  explicit SharedPlacement(PlacementRules rules)
      : rules_(rules.empty() ? nullptr : std::make_shared<const PlacementRules>(std::move(rules))) {
  }

  const PlacementRules& operator*() const { return rules_ ? *rules_ : no_rules(); }
  const PlacementRules* operator->() const { return &**this; }
  /// Changes the rules of this copy only (for tests and converters that build tasks by hand).
  template <typename Change>
  void edit(Change&& change) {
    PlacementRules rules = **this;
    change(rules);
    *this = SharedPlacement(std::move(rules));
  }

 private:
  static const PlacementRules& no_rules() {
    static const PlacementRules none;
    return none;
  }
  std::shared_ptr<const PlacementRules> rules_;
};

}  // namespace sim::model
