// Action "reclaim" (actions/reclaim/reclaim.go): a job of a queue below its fair share takes
// resources from jobs of queues above theirs; the job ends Pipelined, never bound, in this cycle.

#include <algorithm>

#include "victim_search.hpp"

namespace sim::sched {

void run_reclaim(Session& ssn) {
  std::unordered_map<QueueId, FailedJobMemory> failed;
  for_each_pending_job(ssn, false, [&](const JobView& job) {
    if (!ssn.can_reclaim_resources(job)) return;
    FailedJobMemory& memory = failed[ssn.state.jobs[job.id].queue];
    if (ssn.config.use_scheduling_signatures && !memory.is_easier(ssn, job)) return;

    ssn.on_job_solution_start();
    auto victims = [&ssn, job] {
      const QueueId own = ssn.state.jobs[job.id].queue;
      const ResourceVec request = tasks_to_allocate_quantities(ssn, job);
      // The queues whose jobs may lose pods: not its own, none a queue filter refuses whole.
      std::vector<QueueId> queues;
      for (std::size_t i = 0; i < ssn.state.queue_tree.size(); ++i) {
        const QueueId q(static_cast<QueueId::value_type>(i));
        if (q != own && ssn.reclaim_victim_queue_allowed(job, request, q)) queues.push_back(q);
      }
      return victim_queue_of(ssn, queues, [&](JobId v) {
        const model::Job& candidate = ssn.state.jobs[v];
        if (candidate.queue == own || !candidate.queue.valid() || !candidate.preemptible)
          return false;
        // The filters first: the proportion plugin answers for a whole queue at once.
        return ssn.reclaim_victim_allowed(job, request, v) && has_active_allocated_pod(ssn, v);
      });
    };
    auto validator = [&ssn](const Scenario& sc) { return ssn.reclaim_scenario_valid(sc); };
    JobSolver solver(ssn, feasible_nodes(ssn, job), validator, victims);
    SolveResult result = solver.solve(job);
    commit_or_remember(ssn, result, memory, job);
  });
}

}  // namespace sim::sched
