#pragma once
// One candidate set of victims for one probe of the victim search (KAI api.ScenarioInfo;
// actions/common/solvers/scenario/base_scenario.go, by_node_scenario.go): what the actions'
// scenario validators and the plugins' ScenarioValidatorFns judge.

#include <map>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/sched/framework/gang.hpp"

namespace sim::sched {

/// What every scenario of one probe shares, made once per probe: the partial preemptor, its pods
/// to place and the victims of the last solved probe.
struct ProbeSetup {
  JobView preemptor;                   ///< the probe's partial job
  std::vector<TaskId> pending;         ///< the pods to place
  std::vector<JobView> recorded_jobs;  ///< victims of the last solved probe (forced in)
  std::vector<TaskId> recorded_tasks;  ///< their pods, job after job
};

struct Scenario {
  std::shared_ptr<const ProbeSetup> setup;
  const JobView& preemptor;                   ///< setup's
  const std::vector<TaskId>& pending;         ///< setup's
  const std::vector<TaskId>& recorded_tasks;  ///< setup's
  std::vector<TaskId> potential;              ///< victims added by this scenario, in order
  /// Victim pods per job, in order of appearance (recorded and potential).
  std::vector<std::pair<JobId, std::vector<TaskId>>> victims;
  /// Slices ("task groups") of each victim job, at the job's position in `victims`.
  std::vector<std::vector<std::vector<TaskId>>> slices;
  std::map<NodeId, std::vector<JobId>> potential_jobs_by_node;
  std::unordered_map<JobId, std::size_t> victim_index;  ///< position of a job in `victims`

  /// A scenario of the probe's recorded victims only.
  Scenario(const Session& ssn, std::shared_ptr<const ProbeSetup> setup);
  Scenario(const Scenario& other);
  Scenario& operator=(const Scenario&) = delete;
  void add_potential(const Session& ssn, const std::vector<TaskId>& tasks);
  /// The slices of victim job `job` (which must be a victim).
  const std::vector<std::vector<TaskId>>& groups_of(JobId job) const {
    return slices[victim_index.at(job)];
  }

 private:
  void add_group(const Session& ssn, const std::vector<TaskId>& tasks);
};

}  // namespace sim::sched
