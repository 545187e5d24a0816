// Action "preempt" (actions/preempt/preempt.go): inside a queue, a job takes resources from
// lower-priority preemptible jobs; the job ends Pipelined, never bound, in this cycle.

#include <algorithm>

#include "victim_search.hpp"

namespace sim::sched {

void run_preempt(Session& ssn) {
  std::unordered_map<QueueId, FailedJobMemory> failed;
  for_each_pending_job(ssn, false, [&](const JobView& job) {
    FailedJobMemory& memory = failed[ssn.state.jobs[job.id].queue];
    if (ssn.config.use_scheduling_signatures && !memory.is_easier(ssn, job)) return;
    // A non-preemptible preemptor must stay within quota; otherwise it is a plain failure.
    if (ssn.non_preemptible_over_quota(job.id, tasks_to_allocate(ssn, job, false))) {
      memory.update(ssn, job);
      return;
    }
    auto victims = [&ssn, job] {
      const model::Job& preemptor = ssn.state.jobs[job.id];
      // A queue takes no job of no queue (JobQueue::push), so a preemptor of none has no victims.
      if (!preemptor.queue.valid()) return std::make_unique<JobQueue>(ssn, true, true);
      return victim_queue_of(ssn, {preemptor.queue}, [&](JobId v) {
        const model::Job& candidate = ssn.state.jobs[v];
        if (!has_alive_pod(ssn, v)) return false;
        if (!candidate.preemptible || candidate.priority >= preemptor.priority) return false;
        if (candidate.queue != preemptor.queue || v == job.id) return false;
        if (!has_active_allocated_pod(ssn, v)) return false;
        return ssn.preempt_victim_allowed(job, v);
      });
    };
    auto validator = [&ssn](const Scenario& sc) { return ssn.preempt_scenario_valid(sc); };
    JobSolver solver(ssn, feasible_nodes(ssn, job), validator, victims);
    SolveResult result = solver.solve(job);
    commit_or_remember(ssn, result, memory, job);
  });
}

}  // namespace sim::sched
