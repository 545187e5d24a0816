#pragma once
// One candidate set of victims for one probe of the victim search (KAI api.ScenarioInfo;
// actions/common/solvers/scenario/base_scenario.go, by_node_scenario.go): what the actions'
// scenario validators and the plugins' ScenarioValidatorFns judge.

#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "sim/core/position_index.hpp"
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

/// A victim slice ("task group"): a job clone (CloneWithTasks) holding each of its pods once.
/// Slices sit in one array and their pods in another, linked job by job, so a scenario grows
/// without a vector per slice (the searches make and drop tens of thousands of them).
struct VictimSlice {
  static constexpr std::uint32_t kNone = UINT32_MAX;
  JobId job;
  std::uint32_t begin = 0, end = 0;          ///< its pods in `slice_tasks`, each once
  std::uint32_t raw_begin = 0, raw_end = 0;  ///< as added, repeats kept, in `raw_tasks`
  std::uint32_t next = kNone;                ///< the job's next slice
};

struct Scenario {
  std::shared_ptr<const ProbeSetup> setup;
  const JobView& preemptor;                   ///< setup's
  const std::vector<TaskId>& pending;         ///< setup's
  const std::vector<TaskId>& recorded_tasks;  ///< setup's
  std::vector<TaskId> potential;              ///< victims added by this scenario, in order
  std::vector<VictimSlice> slices;            ///< recorded and potential, in order of addition
  std::vector<TaskId> slice_tasks;            ///< the slices' pods
  std::vector<TaskId> raw_tasks;              ///< the slices' pods as added
  /// Victim jobs in order of appearance, each with its first and last slice.
  struct VictimJob {
    JobId job;
    std::uint32_t first, last;
  };
  std::vector<VictimJob> victim_jobs;
  PositionIndex victim_index;  ///< job -> its position in `victim_jobs`
  /// A node and a job with a potential victim on it, each pair once, linked node by node in the
  /// order they were first seen.
  struct NodeJob {
    NodeId node;
    JobId job;
    std::uint32_t next = PositionIndex::kNone;  ///< the node's next pair
  };
  std::vector<NodeJob> potential_node_jobs;
  PositionIndex first_node_job;  ///< node -> its first pair in `potential_node_jobs`

  /// A scenario of the probe's recorded victims only.
  Scenario(const Session& ssn, std::shared_ptr<const ProbeSetup> setup);
  Scenario(const Scenario& other);
  Scenario& operator=(const Scenario&) = delete;
  void add_potential(const Session& ssn, const std::vector<TaskId>& tasks);

  /// Calls `fn(slice_index, slice)` for each slice of victim job `job` (which must be a victim),
  /// in order; stops early when `fn` returns true.
  template <typename Fn>
  void for_each_slice(JobId job, Fn&& fn) const {
    for (std::uint32_t s = victim_jobs[position_of(job)].first; s != VictimSlice::kNone;
         s = slices[s].next) {
      if (fn(s, slices[s])) return;
    }
  }
  /// The first slice of victim job `job` that holds pod `t`, or VictimSlice::kNone.
  std::uint32_t slice_of(JobId job, TaskId t) const;
  /// A slice's pods, each once.
  std::span<const TaskId> pods(const VictimSlice& s) const {
    return {slice_tasks.data() + s.begin, slice_tasks.data() + s.end};
  }
  /// Victim pods per job, in order of appearance, every occurrence kept (KAI's victim lists, for
  /// the validators; made on demand).
  std::vector<std::pair<JobId, std::vector<TaskId>>> victims() const;

  /// The jobs of the potential victims on `node`, in the order they were first seen there.
  std::vector<JobId> potential_jobs_on(NodeId node) const;

 private:
  void add_group(const Session& ssn, const std::vector<TaskId>& tasks);
  /// `job`'s position in `victim_jobs` (it must be a victim job).
  std::uint32_t position_of(JobId job) const;
};

}  // namespace sim::sched
