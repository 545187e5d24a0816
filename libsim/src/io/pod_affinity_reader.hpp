#pragma once
// Private: a pod's required inter-pod affinity and anti-affinity terms
// (spec.affinity.podAffinity / podAntiAffinity .requiredDuringSchedulingIgnoredDuringExecution),
// and the selector requirements they share with node affinity.

#include "io/yaml_field.hpp"
#include "sim/model/placement_rules.hpp"

namespace sim::io {

/// Adds the required terms under `affinity` (a pod's spec.affinity) to `rules`. Preferred terms
/// only score nodes and are not read.
void read_pod_affinity(const Field& affinity, model::PlacementRules& rules);

/// One `{key, operator, values}` requirement of a selector. Node selectors also allow the
/// numeric operators Gt and Lt (`numeric`); label selectors do not.
model::SelectorRequirement read_requirement(const Field& f, bool numeric);

}  // namespace sim::io
