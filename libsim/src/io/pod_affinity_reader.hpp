#pragma once
// Private: a pod's inter-pod affinity and anti-affinity terms (spec.affinity.podAffinity /
// podAntiAffinity, required and preferred DuringSchedulingIgnoredDuringExecution),
// and the selector requirements they share with node affinity.

#include "io/yaml_field.hpp"
#include "sim/model/placement_rules.hpp"

namespace sim::io {

/// Adds the required and preferred terms under `affinity` (a pod's spec.affinity) to `rules`.
void read_pod_affinity(const Field& affinity, model::PlacementRules& rules);

/// One `{key, operator, values}` requirement of a selector. Node selectors also allow the
/// numeric operators Gt and Lt (`numeric`); label selectors do not.
model::SelectorRequirement read_requirement(const Field& f, bool numeric);

}  // namespace sim::io
