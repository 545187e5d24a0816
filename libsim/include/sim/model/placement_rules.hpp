#pragma once
// The parts of a Pod and a Node that Kubernetes' node filters look at: taints and tolerations,
// node selector and required node affinity. Plain data; matching lives in sched/predicates.

#include <map>
#include <string>
#include <vector>

namespace sim::model {

using Labels = std::map<std::string, std::string>;

/// A node taint. `effect` is NoSchedule, PreferNoSchedule or NoExecute.
struct Taint {
  std::string key, value, effect;
};

/// A pod toleration. `op` is "Equal" (default) or "Exists"; empty key with Exists tolerates all;
/// empty effect matches every effect.
struct Toleration {
  std::string key, op = "Equal", value, effect;
};

/// One requirement of a node selector term. `op`: In, NotIn, Exists, DoesNotExist, Gt, Lt.
struct SelectorRequirement {
  std::string key, op;
  std::vector<std::string> values;
};

/// Terms of requiredDuringSchedulingIgnoredDuringExecution: a node must match at least one term,
/// and a term matches when all its expressions and fields match (fields: only metadata.name).
struct NodeSelectorTerm {
  std::vector<SelectorRequirement> expressions;
  std::vector<SelectorRequirement> fields;
};

struct PlacementRules {
  Labels node_selector;                      ///< spec.nodeSelector
  std::vector<NodeSelectorTerm> required;    ///< required node affinity; empty = none
  std::vector<Toleration> tolerations;
};

}  // namespace sim::model
