// The topology plugin (plugins/topology: topology_plugin.go, job_filtering.go, node_scoring.go,
// common.go, topology_utils.go).

#include "sim/sched/plugins/topology.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <tuple>

#include "builders.hpp"
#include "sim/sched/framework/session.hpp"

namespace sim::sched {
namespace {

// job_filtering.go: a missing resource makes a domain "1000 times too small".
constexpr double kNotInDomainRatio = 1000.0;
constexpr double kTopologyScore = 10'000;  // plugins/scores Topology
const std::string kRootLevel = "root";

std::size_t at(int i) { return static_cast<std::size_t>(i); }

double scalar(const std::map<std::string, double>& m, const std::string& name) {
  auto it = m.find(name);
  return it == m.end() ? 0.0 : it->second;
}

// AvailableSharedGPUFractions: what is left on shared GPUs that pods use.
double available_shared_fractions(const model::Node& node) {
  if (node.gpu_memory_mib <= 0) return 0;
  double total = 0;
  for (const auto& [group, used] : node.used_shared_mib) {
    if (used <= 0) continue;
    const auto allocated = node.allocated_shared_mib.find(group);
    const auto releasing = node.releasing_shared_mib.find(group);
    const std::int64_t available =
        node.gpu_memory_mib -
        (allocated == node.allocated_shared_mib.end() ? 0 : allocated->second) +
        (releasing == node.releasing_shared_mib.end() ? 0 : releasing->second);
    if (available > 0)
      total += static_cast<double>(available) / static_cast<double>(node.gpu_memory_mib);
  }
  return total;
}

}  // namespace

// What the pods to place ask for: their sum (domain ratios), the largest of each resource (pods
// per node, "representor" accounting) and whether that accounting applies.
struct TopologyPlugin::Demand {
  ResourceVec sum = ResourceVec::Zero();
  std::map<std::string, double> sum_scalars;
  ResourceVec max = ResourceVec::Zero();
  std::map<std::string, double> max_scalars;
  std::int64_t count = 0;
  bool representative = true;

  Demand(const Session& ssn, const std::vector<TaskId>& tasks)
      : count(static_cast<std::int64_t>(tasks.size())) {
    std::map<std::string, int> asking;
    int gpu_pods = 0;
    for (TaskId id : tasks) {
      const model::Task& t = ssn.state.tasks[id];
      sum += t.request;
      max = max.max(t.request);
      for (const auto& [name, v] : t.scalars) {
        sum_scalars[name] += v;
        max_scalars[name] = std::max(scalar(max_scalars, name), v);
        if (v > 0) ++asking[name];
      }
      gpu_pods += t.gpu.gpus() > 0 ? 1 : 0;
    }
    // useRepresentorPodsAccounting: every pod asks for the same kinds of resources.
    if (gpu_pods != count && gpu_pods != 0) representative = false;
    for (const auto& [name, n] : asking) representative = representative && n == count;
  }

  // getJobRatioToFreeResources: the largest demand-to-free ratio over the requested resources.
  double ratio(const ResourceVec& free, const std::map<std::string, double>& free_scalars) const {
    double worst = 0;
    auto one = [&](double want, double have) {
      if (want <= 0) return;
      worst = std::max(worst, have <= 0 ? kNotInDomainRatio : want / have);
    };
    for (Resource r : kQuotaResources) one(at(sum, r), at(free, r));
    for (const auto& [name, v] : sum_scalars) one(v, scalar(free_scalars, name));
    return worst;
  }

  // calcNodeAccommodation: how many of the largest pod fit on the node's idle and releasing room.
  std::int64_t pods_on(const model::Node& node) const {
    const bool only_a_pod = (max.head<3>() <= 0).all() && at(max, Resource::PODS) <= 1 &&
                            std::all_of(max_scalars.begin(), max_scalars.end(),
                                        [](const auto& s) { return s.second <= 0; });
    if (only_a_pod) return count;
    ResourceVec room = node.idle + node.releasing;
    const double gpu = at(max, Resource::GPU);
    if (gpu > 0 && gpu < 1) at(room, Resource::GPU) += available_shared_fractions(node);
    if (!less_equal(max, room)) return 0;
    for (const auto& [name, v] : max_scalars) {
      if (v > scalar(node.scalars_idle, name) + scalar(node.scalars_releasing, name)) return 0;
    }
    // Go's int is 64-bit; quotients are clamped before converting (room can be huge next to a pod).
    constexpr double kMost = 1e15;
    double fewest = std::numeric_limits<double>::infinity();
    for (int i = 0; i < kResourceCount; ++i) {
      if (max[i] > 0) fewest = std::min(fewest, std::floor(room[i] / max[i]));
    }
    for (const auto& [name, v] : max_scalars) {
      if (v > 0) {
        const double have = scalar(node.scalars_idle, name) + scalar(node.scalars_releasing, name);
        fewest = std::min(fewest, std::floor(have / v));
      }
    }
    return std::isinf(fewest) ? count : static_cast<std::int64_t>(std::min(fewest, kMost));
  }
};

int TopologyPlugin::Tree::depth_of(const std::string& level) const {
  if (level == kRootLevel) return 0;
  const auto& levels = topology->levels;
  auto it = std::find(levels.begin(), levels.end(), level);
  return it == levels.end() ? -1 : static_cast<int>(it - levels.begin()) + 1;
}

void TopologyPlugin::on_session_open(Session& ssn) {
  ssn.hooks.subset_nodes.push_back(
      [this](const Session& s, JobId job, const SubgroupScope& scope,
             const std::vector<TaskId>& tasks, const std::vector<NodeId>& nodes,
             std::string& why) { return subset_nodes(s, job, scope, tasks, nodes, why); });
  ssn.hooks.pre_job_allocation.push_back([this](const Session&, JobId) { clear_scores(); });
  ssn.hooks.node_scorers.push_back(this);
  // initializeTopologyTree. KAI adds nodes in Go map order, which only decides the order of
  // children that are never sorted; kaisim adds them by name.
  const model::ClusterState& state = ssn.state;
  if (state.topologies.empty()) return;
  std::vector<NodeId> by_name;
  for (std::size_t i = 0; i < state.nodes.size(); ++i)
    by_name.emplace_back(static_cast<NodeId::value_type>(i));
  std::sort(by_name.begin(), by_name.end(),
            [&](NodeId a, NodeId b) { return state.nodes[a].name < state.nodes[b].name; });
  for (const model::Topology& topology : state.topologies) {
    Tree tree;
    tree.topology = &topology;
    tree.domains.push_back(Domain{kRootLevel, 0, {}, {}, -1, ResourceVec::Zero(), {}});
    tree.by_depth.assign(topology.levels.size() + 1, {});
    tree.by_depth[0].push_back(0);
    tree.by_id.assign(topology.levels.size() + 1, {});
    tree.path.assign(state.nodes.size(), {});
    for (NodeId id : by_name) add_node(tree, state.nodes[id], id);
    trees_.push_back(std::move(tree));
  }
}

// addNodeDataToTopology: a node with a label for every level joins one domain per level.
void TopologyPlugin::add_node(Tree& tree, const model::Node& node, NodeId id) {
  const auto& levels = tree.topology->levels;
  for (const std::string& level : levels) {
    if (!node.labels.contains(level)) return;
  }
  std::vector<int>& path = tree.path[id.index()];
  path.assign(levels.size() + 1, 0);
  std::string domain_id;
  int parent = 0;
  for (std::size_t l = 0; l < levels.size(); ++l) {
    domain_id += (l ? "." : "") + node.labels.at(levels[l]);
    const int depth = static_cast<int>(l) + 1;
    auto [entry, added] =
        tree.by_id[at(depth)].try_emplace(domain_id, static_cast<int>(tree.domains.size()));
    const int found = entry->second;
    if (added) {
      tree.domains.push_back(Domain{domain_id, depth, {}, {}, -1, ResourceVec::Zero(), {}});
      tree.by_depth[at(depth)].push_back(found);
    }
    std::vector<int>& kids = tree.domains[at(parent)].children;
    if (std::find(kids.begin(), kids.end(), found) == kids.end()) kids.push_back(found);
    tree.domains[at(found)].nodes.push_back(id);
    path[at(depth)] = found;
    parent = found;
  }
  tree.domains[0].nodes.push_back(id);
}

// calcSubTreeFreeResources: idle plus releasing, summed up from the lowest level.
void TopologyPlugin::sum_free(Tree& tree, int index, const Session& ssn) {
  Domain& d = tree.domains[at(index)];
  if (d.children.empty()) {
    for (NodeId n : d.nodes) {
      const model::Node& node = ssn.state.nodes[n];
      d.free += node.idle + node.releasing;
      for (const auto* m : {&node.scalars_idle, &node.scalars_releasing}) {
        for (const auto& [name, v] : *m) d.free_scalars[name] += v;
      }
    }
    return;
  }
  for (int child : d.children) {
    sum_free(tree, child, ssn);
    const Domain& c = tree.domains[at(child)];
    tree.domains[at(index)].free += c.free;
    for (const auto& [name, v] : c.free_scalars) tree.domains[at(index)].free_scalars[name] += v;
  }
}

// calcSubTreeAllocatable: pods of the largest size that fit, summed up from the lowest level.
std::int64_t TopologyPlugin::count_pods(Tree& tree, int index, const Session& ssn,
                                        const Demand& demand) {
  std::int64_t total = 0;
  if (tree.domains[at(index)].children.empty()) {
    for (NodeId n : tree.domains[at(index)].nodes) total += demand.pods_on(ssn.state.nodes[n]);
  } else {
    for (int child : std::vector<int>(tree.domains[at(index)].children))
      total += count_pods(tree, child, ssn, demand);
  }
  tree.domains[at(index)].allocatable_pods = total;
  return total;
}

// checkJobDomainFit: by the pods count when it was taken, else by the resource ratio.
bool TopologyPlugin::fits(const Tree& tree, int index, const Demand& demand) const {
  const Domain& d = tree.domains[at(index)];
  if (d.allocatable_pods >= 0) return d.allocatable_pods >= demand.count;
  return demand.ratio(d.free, d.free_scalars) <= 1.0;
}

// sortTree: children fullest first (highest demand-to-free ratio), then by id, down to max_depth.
void TopologyPlugin::sort_children(Tree& tree, int index, int max_depth, const Demand& demand) {
  std::vector<int>& kids = tree.domains[at(index)].children;
  std::vector<std::pair<double, int>> keyed;
  for (int k : kids)
    keyed.emplace_back(demand.ratio(tree.domains[at(k)].free, tree.domains[at(k)].free_scalars), k);
  std::sort(keyed.begin(), keyed.end(), [&](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first > b.first;
    return tree.domains[at(a.second)].id < tree.domains[at(b.second)].id;
  });
  for (std::size_t i = 0; i < kids.size(); ++i) kids[i] = keyed[i].second;
  if (tree.domains[at(index)].depth == max_depth) return;
  for (int k : std::vector<int>(kids)) sort_children(tree, k, max_depth, demand);
}

// getLevelDomains: the domains of `depth` under `index`, in (sorted) tree order.
std::vector<int> TopologyPlugin::level_domains(const Tree& tree, int index, int depth) const {
  const Domain& d = tree.domains[at(index)];
  if (d.depth == depth) return {index};
  std::vector<int> out;
  for (int k : d.children) {
    std::vector<int> below = level_domains(tree, k, depth);
    out.insert(out.end(), below.begin(), below.end());
  }
  return out;
}

std::optional<std::vector<std::vector<NodeId>>> TopologyPlugin::subset_nodes(
    const Session& ssn, JobId job, const SubgroupScope& scope, const std::vector<TaskId>& tasks,
    const std::vector<NodeId>& nodes, std::string& why) {
  const model::TopologyConstraint& c = scope.constraint;
  if (c.empty()) return std::vector<std::vector<NodeId>>{nodes};
  auto found = std::find_if(trees_.begin(), trees_.end(),
                            [&](const Tree& t) { return t.topology->name == c.topology; });
  if (found == trees_.end()) {
    why = "Requested topology " + c.topology + " does not exist";
    return std::vector<std::vector<NodeId>>{};
  }
  if (tasks.empty()) return std::vector<std::vector<NodeId>>{nodes};
  Tree& tree = *found;
  const int levels = static_cast<int>(tree.topology->levels.size());

  // lowestCommonDomainID: the deepest domain holding every offered node of the topology, not
  // below the preferred level. As in KAI, an empty label value ends the descent, and nodes before
  // the first non-empty value match any value.
  std::vector<NodeId> valid;
  for (NodeId n : nodes) {
    if (!tree.path[n.index()].empty()) valid.push_back(n);
  }
  int domain = 0;
  std::string joined;
  for (int depth = 1; depth <= levels; ++depth) {
    const std::string& label = tree.topology->levels[at(depth - 1)];
    std::string value;
    bool all_match = true;
    for (NodeId n : valid) {
      const std::string& v = ssn.state.nodes[n].labels.at(label);
      if (value.empty()) value = v;
      if (v != value) {
        all_match = false;
        break;
      }
    }
    if (!all_match || value.empty()) break;
    joined += (depth > 1 ? "." : "") + value;
    auto at_depth = tree.by_id[at(depth)].find(joined);
    if (at_depth == tree.by_id[at(depth)].end())
      return std::nullopt;  // "domain not found": KAI logs it
    domain = at_depth->second;
    if (label == c.preferred_level) break;
  }

  for (Domain& d : tree.domains) {  // treeAllocatableCleanup
    d.allocatable_pods = -1;
    d.free.setZero();
    d.free_scalars.clear();
  }
  sum_free(tree, domain, ssn);
  const Demand demand(ssn, tasks);
  if (demand.representative) count_pods(tree, domain, ssn, demand);

  const std::string subject =
      "job <" + ssn.state.jobs[job].ns + "/" + ssn.state.jobs[job].name + ">" +
      (scope.name.empty() || scope.name == "default" ? "" : ", subgroup " + scope.name);
  const std::string unmet = "topology " + c.topology + ", requirement " + c.required_level +
                            " couldn't be satisfied for " + subject;
  if (!fits(tree, domain, demand)) {
    why = unmet + ": not enough resources in " +
          (domain == 0 ? "the cluster" : tree.domains[at(domain)].id) + " to allocate the job";
    return std::vector<std::vector<NodeId>>{};
  }

  const int preferred = c.preferred_level.empty() ? -1 : tree.depth_of(c.preferred_level);
  const int required = c.required_level.empty() ? -1 : tree.depth_of(c.required_level);
  const int max_depth = !c.preferred_level.empty() ? preferred : required;
  if (max_depth >= 0) sort_children(tree, domain, max_depth, demand);
  if (preferred >= 0) {  // calculateNodeScores
    std::unordered_map<NodeId, double>& scores = scores_[scope.name];
    scores.clear();
    const std::vector<int> ordered = level_domains(tree, domain, preferred);
    for (std::size_t i = 0; i < ordered.size(); ++i) {
      const double score =
          std::floor(static_cast<double>(i + 1) / static_cast<double>(ordered.size()) * 10) *
          kTopologyScore;
      for (NodeId n : tree.domains[at(ordered[i])].nodes) scores[n] = score;
    }
  }

  // calculateRelevantDomainLevels: from the preferred level (or the required one) up to the
  // required level (or the root).
  // A level the topology lacks, or no level at all: KAI logs the error and places nothing.
  const std::string owner =
      scope.name == "default" ? "workload" : "sub-group " + scope.name;  // the root set is ""
  for (const auto& [level, depth, kind] : {std::tuple(c.required_level, required, "required"),
                                           std::tuple(c.preferred_level, preferred, "preferred")}) {
    if (level.empty() || depth >= 0) continue;
    why = "topology constraint error: " + owner + " specified '" + level + "' as the " + kind +
          " topology constraint level, but the topology tree '" + c.topology +
          "' does not contain a level with this name";
    return std::nullopt;
  }
  if (c.required_level.empty() && c.preferred_level.empty()) {
    why = "no topology constraints were found for subgroup " + scope.name +
          ", with topology name " + c.topology;
    return std::nullopt;
  }
  const int lowest = preferred >= 0 ? preferred : required;
  const int highest = required >= 0 ? required : 0;

  // getRelevantDomainsWithAllocatedPods: with a requirement and pods of these PodSets already
  // placed, only domains within a required-level domain holding such a pod.
  std::vector<bool> allowed(tree.domains.size(), true);
  if (required >= 0) {
    std::vector<int> holding;
    for (TaskId t : ssn.state.jobs[job].tasks) {
      const model::Task& task = ssn.state.tasks[t];
      if (!model::is_active_allocated(task.status) || !task.node.valid()) continue;
      if (std::find(scope.pod_sets.begin(), scope.pod_sets.end(), task.pod_set) ==
          scope.pod_sets.end())
        continue;
      const std::vector<int>& p = tree.path[task.node.index()];
      holding.push_back(p.empty() ? -1 : p[at(required)]);
    }
    if (!holding.empty()) {
      std::fill(allowed.begin(), allowed.end(), false);
      std::vector<int> stack;
      for (int r : holding) {
        if (r >= 0) stack.push_back(r);
      }
      while (!stack.empty()) {
        const int d = stack.back();
        stack.pop_back();
        allowed[at(d)] = true;
        for (int k : tree.domains[at(d)].children) stack.push_back(k);
      }
    }
  }

  // sortDomainInfos: the fitting domains in bottom-up level order of the sorted tree.
  std::vector<int> bfs;
  std::vector<std::vector<int>> by_depth(at(levels + 1));
  std::deque<int> queue{0};
  while (!queue.empty()) {
    const int d = queue.front();
    queue.pop_front();
    by_depth[at(tree.domains[at(d)].depth)].push_back(d);
    for (int k : tree.domains[at(d)].children) queue.push_back(k);
  }
  std::vector<bool> offered(tree.path.size(), false);
  for (NodeId n : valid) offered[n.index()] = true;
  std::vector<std::vector<NodeId>> sets;
  for (int depth = lowest; depth >= highest; --depth) {
    for (int d : by_depth[at(depth)]) {
      if (!allowed[at(d)] || !fits(tree, d, demand)) continue;
      std::vector<NodeId> set;
      for (NodeId n : tree.domains[at(d)].nodes) {
        if (offered[n.index()]) set.push_back(n);
      }
      sets.push_back(std::move(set));
    }
  }
  if (sets.empty()) why = unmet;
  return sets;
}

std::optional<double> TopologyPlugin::node_score(const Session& ssn, const model::Task& task,
                                                 NodeId node) const {
  if (scores_.empty() || task.pod_set < 0) return 0.0;
  const model::SubGroupTree& groups = *ssn.state.jobs[task.job].groups;
  // getRelevantNodeScores: the PodSet's, else the nearest ancestor's, by name.
  const model::PodSet& pod_set = groups.pod_sets[at(task.pod_set)];
  auto found = scores_.find(pod_set.name);
  for (int set = pod_set.parent; found == scores_.end() && set >= 0;
       set = groups.sets[at(set)].parent) {
    found = scores_.find(groups.sets[at(set)].name);
  }
  if (found == scores_.end()) return 0.0;
  auto score = found->second.find(node);
  if (score == found->second.end()) return std::nullopt;
  return score->second;
}

void TopologyPlugin::score(Session& ssn, TaskId task_id, const std::vector<NodeId>& /*offered*/,
                           const std::vector<NodeId>& nodes, std::vector<double>& scores,
                           std::vector<char>& dropped) {
  if (scores_.empty()) return;  // no preferred level in this job: every node scores 0
  const model::Task& task = ssn.state.tasks[task_id];
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::optional<double> s = node_score(ssn, task, nodes[i]);
    if (s) {
      scores[i] += *s;
    } else {
      dropped[i] = 1;  // scoring failed: KAI leaves the node out (session.go scoreNodes)
    }
  }
}

namespace plugins {
std::unique_ptr<Plugin> make_topology(const model::PluginOption&) {
  return std::make_unique<TopologyPlugin>();
}
}  // namespace plugins

}  // namespace sim::sched
