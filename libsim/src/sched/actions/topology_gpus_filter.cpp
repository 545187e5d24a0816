#include "topology_gpus_filter.hpp"

#include <algorithm>
#include <functional>
#include <numeric>

namespace sim::sched {
namespace {

std::size_t at(int i) { return static_cast<std::size_t>(i); }

// getSubgroupsWithRequiredConstraints: the root, then child sets depth first; PodSets never. The
// root has a constraint only with a topology name; a child set with any constraint.
void sets_with_requirement(const model::SubGroupTree& groups, int set, std::vector<int>& out) {
  const model::TopologyConstraint& c = groups.sets[at(set)].topology;
  if ((set != 0 || !c.empty()) && !c.required_level.empty()) out.push_back(set);
  for (int child : groups.sets[at(set)].child_sets) sets_with_requirement(groups, child, out);
}

}  // namespace

TopologyGpusFilter::TopologyGpusFilter(const Session& ssn, const JobView& preemptor) : ssn_(ssn) {
  const model::SubGroupTree& groups = *preemptor.groups;
  std::vector<int> sets;
  sets_with_requirement(groups, 0, sets);
  if (sets.empty()) return;
  for (int set : sets) {
    const model::TopologyConstraint& c = groups.sets[at(set)].topology;
    auto level = std::find_if(levels_.begin(), levels_.end(), [&](const Level& l) {
      return l.topology == c.topology && l.label == c.required_level;
    });
    if (level == levels_.end())
      level = levels_.insert(levels_.end(), Level{c.topology, c.required_level, {}, {}, {}});
    // sumGpuRequirements: every pod of the set's PodSets in the job being probed (the solver's
    // partial job: its running pods and the pending ones tried), whatever its status.
    double gpus = 0;
    for (TaskId t : preemptor.tasks) {
      const model::Task& task = ssn.state.tasks[t];
      if (pod_set_under(groups, task.pod_set, set)) gpus += task.gpu.gpus_quota();
    }
    level->required.push_back(gpus);
  }
  for (Level& l : levels_) std::sort(l.required.begin(), l.required.end(), std::greater<>());

  // buildDomainCapacity: a node counts its idle and releasing GPUs once per level it has a label
  // for.
  node_domains_.resize(ssn.state.nodes.size());
  for (std::size_t n = 0; n < ssn.state.nodes.size(); ++n) {
    const model::Node& node = ssn.state.nodes[NodeId(static_cast<NodeId::value_type>(n))];
    const double free = node.idle_gpus_with_shared() + node.releasing_gpus_with_shared();
    for (std::size_t li = 0; li < levels_.size(); ++li) {
      Level& l = levels_[li];
      auto value = node.labels.find(l.label);
      if (value == node.labels.end() || value->second.empty()) continue;
      auto d = std::find(l.domains.begin(), l.domains.end(), value->second);
      if (d == l.domains.end()) {
        l.domains.push_back(value->second);
        l.capacity.push_back(0);
        d = l.domains.end() - 1;
      }
      const auto di = static_cast<std::size_t>(d - l.domains.begin());
      l.capacity[di] += free;
      node_domains_[n].emplace_back(li, di);
    }
  }
}

void TopologyGpusFilter::add_victim(TaskId id) {
  const model::Task& t = ssn_.state.tasks[id];
  if (!t.node.valid() || !seen_.insert(id).second) return;
  for (const auto& [li, di] : node_domains_[t.node.index()])
    levels_[li].capacity[di] += t.accepted_gpu.gpus_quota();
}

bool TopologyGpusFilter::passes() const {
  for (const Level& l : levels_) {
    // Domains by capacity, largest first. KAI keeps equal capacities in Go map order; kaisim
    // orders them by label value.
    std::vector<std::size_t> order(l.domains.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      if (l.capacity[a] != l.capacity[b]) return l.capacity[a] > l.capacity[b];
      return l.domains[a] < l.domains[b];
    });
    // greedyMatchRequirements: each set into the first domain with room left, virtually.
    std::vector<double> taken(l.domains.size(), 0.0);
    for (double need : l.required) {
      if (need == 0) break;  // the rest need nothing either
      bool matched = false;
      for (std::size_t d : order) {
        if (l.capacity[d] < need) break;
        if (l.capacity[d] - taken[d] >= need) {
          taken[d] += need;
          matched = true;
          break;
        }
      }
      if (!matched) return false;
    }
  }
  return true;
}

}  // namespace sim::sched
