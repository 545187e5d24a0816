#pragma once
// A PodGroup's gang structure (pkg/scheduler/api/podgroup_info/subgroup_info): a tree of
// SubGroupSets whose leaves are PodSets. A PodGroup without spec.subGroups is one root set
// holding one PodSet "default" with minAvailable = max(minMember, 1).

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sim::model {

/// Where a subgroup's pods must or should land (PodGroup spec.topologyConstraint,
/// api/topology_info): all of them within one domain of `required_level`, and preferably within
/// one of `preferred_level`, levels being node labels of the Topology named `topology`.
/// No constraint when `topology` is empty.
struct TopologyConstraint {
  std::string topology;
  std::string required_level;
  std::string preferred_level;
  bool empty() const { return topology.empty(); }
  bool operator==(const TopologyConstraint&) const = default;
};

/// A leaf subgroup: the pods labelled kai.scheduler/subgroup-name=<name>.
struct PodSet {
  std::string name;
  std::int64_t min_available = 1;
  int parent = 0;  ///< index of its SubGroupSet
  TopologyConstraint topology;
};

/// An inner subgroup (or the PodGroup itself, set 0). Satisfied when min_subgroup of its members
/// are (all of them when unset).
struct SubGroupSet {
  std::string name;
  std::optional<std::int64_t> min_subgroup;
  int parent = -1;              ///< -1 for the root
  std::vector<int> child_sets;  ///< in spec order
  std::vector<int> pod_sets;    ///< in spec order
  TopologyConstraint topology;  ///< the root's is the PodGroup's own
  /// minMembersToSatisfy: min_subgroup, or every member.
  std::int64_t members_to_satisfy() const {
    return min_subgroup.value_or(static_cast<std::int64_t>(child_sets.size() + pod_sets.size()));
  }
};

struct SubGroupTree {
  std::vector<SubGroupSet> sets = {SubGroupSet{}};  ///< [0] is the root
  std::vector<PodSet> pod_sets = {PodSet{"default", 1, 0, {}}};
  bool declared = false;  ///< the PodGroup lists spec.subGroups

  /// Some set or PodSet has a topology constraint.
  bool any_topology() const {
    return std::any_of(sets.begin(), sets.end(),
                       [](const SubGroupSet& s) { return !s.topology.empty(); }) ||
           std::any_of(pod_sets.begin(), pod_sets.end(),
                       [](const PodSet& p) { return !p.topology.empty(); });
  }

  /// The single-PodSet tree of a PodGroup without subgroups.
  static std::shared_ptr<const SubGroupTree> single(std::int64_t min_member) {
    if (min_member <= 1) {  // the common tree, built once (every Job starts with it)
      static const std::shared_ptr<const SubGroupTree> one = build_single(1);
      return one;
    }
    return build_single(min_member);
  }
  static std::shared_ptr<SubGroupTree> build_single(std::int64_t min_member) {
    auto t = std::make_shared<SubGroupTree>();
    t->pod_sets[0].min_available = std::max<std::int64_t>(min_member, 1);
    t->sets[0].pod_sets = {0};
    return t;
  }
  /// PodSet index of `name`, or -1.
  int find_pod_set(const std::string& name) const {
    for (std::size_t i = 0; i < pod_sets.size(); ++i) {
      if (pod_sets[i].name == name) return static_cast<int>(i);
    }
    return -1;
  }
};

}  // namespace sim::model
