#pragma once
// Private to the solver: KAI's TopologyAwareIdleGpus scenario filter
// (actions/common/solvers/accumulated_scenario_filters/idle_gpus/topology_aware_idle_gpus.go).
// A victim scenario is worth solving only if, for every required topology level of the pending
// job's subgroup sets, each set's GPUs fit greedily (largest first) into that level's domains
// counted by idle, releasing and freed-by-victims GPUs.

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "sim/sched/framework/gang.hpp"

namespace sim::sched {

class TopologyGpusFilter {
 public:
  TopologyGpusFilter(const Session& ssn, const JobView& preemptor);

  /// False when no subgroup set of the job has a required level: the filter then has no say.
  bool active() const { return !levels_.empty(); }
  /// A victim's accepted GPUs join every domain its node is in (once per victim).
  void add_victim(TaskId id);
  bool passes() const;

 private:
  /// One (topology, required level) pair: its domains (node label values) and what the job's
  /// sets under that constraint need.
  struct Level {
    std::string topology, label;
    std::vector<std::string> domains;
    std::vector<double> capacity;  ///< per domain
    std::vector<double> required;  ///< per subgroup set, largest first
  };

  const Session& ssn_;
  std::vector<Level> levels_;
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>>
      node_domains_;  ///< per node: (level, domain)
  std::unordered_set<TaskId> seen_;
};

}  // namespace sim::sched
