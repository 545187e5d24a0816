// Action "consolidation" (actions/consolidation/consolidation.go): preemptible pods are moved to
// other nodes so that a pending job fits; the job ends Pipelined, never bound, in this cycle.

#include <algorithm>
#include <cmath>

#include "victim_search.hpp"

namespace sim::sched {

void run_consolidation(Session& ssn) {
  if (ssn.config.max_consolidation_preemptees == 0) return;
  // The operator switches consolidation off under the spread placement strategy.
  if (!ssn.config.gpu_binpack || !ssn.config.cpu_binpack) return;
  FailedJobMemory failed;
  for_each_pending_job(ssn, true, [&](const JobView& job) {
    if (ssn.config.use_scheduling_signatures && !failed.is_easier(ssn, job)) return;

    // IsEnoughGPUsAllocatableForJob: free GPUs (count and MiB) across the cluster must cover it.
    double free_gpus = 0, free_mib = 0;
    for (const model::Node& n : ssn.state.nodes) {
      if (n.unschedulable || !n.conditions_ok) continue;
      free_gpus += n.idle_gpus_with_shared() + n.releasing_gpus_with_shared();
      double shared_mib = 0;
      for (const auto& [g, mib] : n.allocated_shared_mib) {
        if (mib > 0) shared_mib += static_cast<double>(n.gpu_memory_mib - mib);
      }
      free_mib +=
          shared_mib + std::floor(at(n.idle, Resource::GPU) + at(n.releasing, Resource::GPU)) *
                           static_cast<double>(n.gpu_memory_mib);
    }
    double want_gpus = 0, want_mib = 0;
    for (TaskId t : tasks_to_allocate(ssn, job, false)) {
      want_gpus += ssn.state.tasks[t].gpu.gpus_quota();
      want_mib += static_cast<double>(ssn.state.tasks[t].gpu.memory_mib);
    }
    if (free_gpus < want_gpus || free_mib < want_mib) {
      failed.update(ssn, job);
      return;
    }
    auto victims = [&ssn, job] {
      // At most max+1 victim jobs (KAI's counter admits one past the cap), in name order where
      // KAI takes map order.
      int admitted = 0;
      const int cap = ssn.config.max_consolidation_preemptees;
      return victim_queue(ssn, [&](JobId v) {
        if (!has_alive_pod(ssn, v)) return false;
        const model::Job& candidate = ssn.state.jobs[v];
        if (!candidate.preemptible || v == job.id) return false;
        if (cap != -1 && admitted > cap) return false;
        if (!has_active_allocated_pod(ssn, v)) return false;
        ++admitted;
        return true;
      });
    };
    auto validator = [&ssn](const Scenario& sc) {
      return std::none_of(sc.raw_tasks.begin(), sc.raw_tasks.end(), [&ssn](TaskId t) {
        return ssn.state.tasks[t].status == model::TaskStatus::RELEASING;
      });
    };
    JobSolver solver(ssn, feasible_nodes(ssn, job), validator, victims);
    SolveResult result = solver.solve(job);
    commit_or_remember(ssn, result, failed, job);
  });
}

}  // namespace sim::sched
