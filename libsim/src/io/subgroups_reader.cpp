#include "io/subgroups_reader.hpp"

#include <map>

namespace sim::io {
namespace {

std::optional<std::int64_t> non_negative(const Field& f) {
  const std::optional<int> v = f.optional_int();
  if (v && *v < 0) f.fail("must be >= 0");
  return v ? std::optional<std::int64_t>(*v) : std::nullopt;
}

// topologyConstraint {topology, requiredTopologyLevel, preferredTopologyLevel}. As in KAI, the
// topology and its levels are looked up when the scheduler places the pods: a constraint that
// names none of them keeps the pods pending with the reason, it does not reject the object.
model::TopologyConstraint read_constraint(const Field& owner) {
  const Field f = owner.member("topologyConstraint");
  if (f.is_null()) return {};
  f.expect_map();
  return {f.member("topology").string_or(""), f.member("requiredTopologyLevel").string_or(""),
          f.member("preferredTopologyLevel").string_or("")};
}

}  // namespace

std::shared_ptr<const model::SubGroupTree> read_subgroups(const Field& spec,
                                                          std::int64_t min_member) {
  const model::TopologyConstraint root = read_constraint(spec);
  const Field list = spec.member("subGroups");
  if (!list.is_null()) list.expect_sequence();
  if (list.is_null() || list.size() == 0) {
    if (root.empty()) return model::SubGroupTree::single(min_member);
    std::shared_ptr<model::SubGroupTree> tree = model::SubGroupTree::build_single(min_member);
    tree->sets[0].topology = root;
    return tree;
  }

  struct Entry {
    Field source;
    std::string name, parent;
    std::optional<std::int64_t> min_member, min_subgroup;
    model::TopologyConstraint topology;
  };
  std::vector<Entry> entries;
  std::map<std::string, std::size_t> by_name;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Field item = list.item(i);
    item.expect_map();
    Entry e{item,
            item.member("name").string_or(""),
            item.member("parent").string_or(""),
            non_negative(item.member("minMember")),
            non_negative(item.member("minSubGroup")),
            read_constraint(item)};
    if (e.name.empty()) item.fail("missing required field \"name\"");
    if (!by_name.emplace(e.name, i).second)
      item.member("name").fail("subgroup \"" + e.name + "\" is listed twice");
    entries.push_back(std::move(e));
  }
  std::vector<bool> has_children(entries.size(), false);
  for (const Entry& e : entries) {
    if (e.parent.empty()) continue;
    auto parent = by_name.find(e.parent);
    if (parent == by_name.end())
      e.source.member("parent").fail("no subgroup is named \"" + e.parent + "\"");
    has_children[parent->second] = true;
  }
  // Every chain of parents must reach the PodGroup.
  for (const Entry& e : entries) {
    std::size_t steps = 0;
    for (std::string p = e.parent; !p.empty(); p = entries[by_name.at(p)].parent) {
      if (++steps > entries.size()) e.source.member("parent").fail("subgroup parents form a cycle");
    }
  }

  auto shared = std::make_shared<model::SubGroupTree>();
  model::SubGroupTree& tree = *shared;
  tree.declared = true;
  tree.pod_sets.clear();
  tree.sets[0].min_subgroup = non_negative(spec.member("minSubGroup"));
  tree.sets[0].topology = root;
  std::vector<int> index(entries.size(), -1);  // entry -> its set or PodSet index
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (!has_children[i]) continue;
    index[i] = static_cast<int>(tree.sets.size());
    tree.sets.push_back({entries[i].name, entries[i].min_subgroup, 0, {}, {}, entries[i].topology});
  }
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (has_children[i]) continue;
    index[i] = static_cast<int>(tree.pod_sets.size());
    tree.pod_sets.push_back(
        {entries[i].name, entries[i].min_member.value_or(0), 0, entries[i].topology});
  }
  // Members in spec order under their parent (the PodGroup when none is named).
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const int parent = entries[i].parent.empty() ? 0 : index[by_name.at(entries[i].parent)];
    if (has_children[i]) {
      tree.sets[static_cast<std::size_t>(index[i])].parent = parent;
      tree.sets[static_cast<std::size_t>(parent)].child_sets.push_back(index[i]);
    } else {
      tree.pod_sets[static_cast<std::size_t>(index[i])].parent = parent;
      tree.sets[static_cast<std::size_t>(parent)].pod_sets.push_back(index[i]);
    }
  }
  // A set that needs more members than it has can never be satisfied.
  for (std::size_t i = 0; i < tree.sets.size(); ++i) {
    const model::SubGroupSet& set = tree.sets[i];
    const std::size_t members = set.child_sets.size() + set.pod_sets.size();
    if (set.min_subgroup && *set.min_subgroup > static_cast<std::int64_t>(members)) {
      const Field where = i == 0 ? spec.member("minSubGroup")
                                 : entries[by_name.at(set.name)].source.member("minSubGroup");
      where.fail("minSubGroup " + std::to_string(*set.min_subgroup) + " is more than the " +
                 std::to_string(members) + " subgroups under it");
    }
  }
  return shared;
}

}  // namespace sim::io
