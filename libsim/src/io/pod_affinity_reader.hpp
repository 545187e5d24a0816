#pragma once
// Private: a pod's required inter-pod affinity and anti-affinity terms
// (spec.affinity.podAffinity / podAntiAffinity .requiredDuringSchedulingIgnoredDuringExecution).

#include "io/yaml_field.hpp"
#include "sim/model/placement_rules.hpp"

namespace sim::io {

/// Adds the required terms under `affinity` (a pod's spec.affinity) to `rules`. Preferred terms
/// only score nodes and are not read.
void read_pod_affinity(const Field& affinity, model::PlacementRules& rules);

}  // namespace sim::io
