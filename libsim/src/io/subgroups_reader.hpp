#pragma once
// Private: a PodGroup's spec.subGroups read into its gang tree (subgroup_info/factory.go
// FromPodGroup).

#include "io/yaml_field.hpp"
#include "sim/model/subgroups.hpp"

namespace sim::io {

/// The tree of `spec` (a PodGroup spec). Without subGroups: one PodSet "default" with
/// minAvailable max(minMember, 1). With them, leaves become PodSets (minAvailable = their
/// minMember, 0 when unset), the others SubGroupSets, and the PodGroup's minMember is unused.
std::shared_ptr<const model::SubGroupTree> read_subgroups(const Field& spec,
                                                          std::int64_t min_member);

}  // namespace sim::io
