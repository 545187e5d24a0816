// Actions that evict to make room: reclaim (between queues, actions/reclaim/reclaim.go),
// preempt (inside a queue, actions/preempt/preempt.go) and consolidation (move pods,
// actions/consolidation/consolidation.go). All three search victims with the JobSolver; the job
// they help ends Pipelined, never bound, in this cycle.

#include <algorithm>

#include "sim/sched/actions/actions.hpp"
#include "sim/sched/plugins/proportion.hpp"
#include "sim/sched/actions/solver.hpp"

namespace sim::sched {
namespace {

// FeasibleNodesForJob: every node if some pod needs no GPU, else nodes with free GPU capacity.
std::vector<NodeId> feasible_nodes(const Session& ssn, const JobView& job) {
  for (TaskId t : job.tasks) {
    if (!ssn.state.tasks[t].requires_any_gpu()) return all_nodes(ssn);
  }
  std::vector<NodeId> nodes;
  for (NodeId n : all_nodes(ssn)) {
    const model::Node& node = ssn.state.nodes[n];
    if (node.idle_gpus_with_shared() > 0 || node.releasing_gpus_with_shared() > 0) nodes.push_back(n);
  }
  return nodes;
}

bool has_alive_pod_on_known_node(const Session& ssn, const JobView& job) {
  for (TaskId t : job.tasks) {
    if (model::is_alive(ssn.state.tasks[t].status)) return true;
  }
  return false;
}

// The three actions' outer loop: every job with a pending pod that is ready for scheduling (and
// preemptible, if asked), visited in the job queue's order.
template <typename Visit>
void for_each_pending_job(Session& ssn, bool preemptible_only, Visit&& visit) {
  JobQueue queue(ssn, false);
  for (JobId j : ssn.jobs_by_name()) {
    if (!job_has_pending_pod(ssn, j)) continue;
    const JobView v = full_view(ssn, j);
    if (!is_ready_for_scheduling(ssn, v)) continue;
    if (preemptible_only && !ssn.state.jobs[v.id].preemptible) continue;
    queue.push(v);
  }
  while (!queue.empty()) {
    const JobView job = queue.pop();
    if (!job.valid()) break;
    visit(job);
  }
}

// Elastic victims under min-runtime protection may lose pods only down to their minimum, PodSet
// by PodSet (minruntime.go validVictimForMinAvailable): the victims of a PodSet may not take its
// active-used pods (Releasing ones included) below its minimum. PodSets without victims are not
// checked.
bool min_runtime_scenario_valid(const Session& ssn, const Scenario& sc, bool reclaim) {
  for (const auto& [job, tasks] : sc.victims) {
    if (!is_elastic(ssn, job) || !min_runtime_protected(ssn, job, sc.preemptor.id, reclaim)) continue;
    const JobView view = full_view(ssn, job);
    const PodSetCounts counts(ssn, view);
    std::vector<std::int64_t> victims(counts.all.size(), 0);
    for (TaskId t : tasks) {
      const int p = ssn.state.tasks[t].pod_set;
      if (p >= 0 && static_cast<std::size_t>(p) < victims.size()) ++victims[static_cast<std::size_t>(p)];
    }
    for (std::size_t p = 0; p < victims.size(); ++p) {
      if (victims[p] > 0 && view.groups->pod_sets[p].min_available > counts.active_used[p] - victims[p]) return false;
    }
  }
  return true;
}

void commit_or_remember(Session& ssn, SolveResult& result, FailedJobMemory& failed, const JobView& job) {
  if (result.solved) {
    result.statement->commit();
  } else {
    failed.update(ssn, job);
  }
}

}  // namespace

void run_reclaim(Session& ssn) {
  std::unordered_map<QueueId, FailedJobMemory> failed;
  for_each_pending_job(ssn, false, [&](const JobView& job) {
    if (!can_reclaim_resources(ssn, job)) return;
    FailedJobMemory& memory = failed[ssn.state.jobs[job.id].queue];
    if (ssn.config.use_scheduling_signatures && !memory.is_easier(ssn, job)) return;

    // OnJobSolutionStart: the validator judges against the queues as they were now.
    const IdVector<QueueId, fairshare::QueueShares> snapshot = ssn.queues;
    auto victims = [&ssn, job] {
      auto q = std::make_unique<JobQueue>(ssn, true);
      const QueueId own = ssn.state.jobs[job.id].queue;
      const ResourceVec request = tasks_to_allocate_quantities(ssn, job);
      for (const JobView& v : all_job_views(ssn)) {
        const model::Job& candidate = ssn.state.jobs[v.id];
        if (candidate.queue == own || !candidate.queue.valid()) continue;
        if (!candidate.preemptible || active_allocated_count(ssn, v) == 0) continue;
        if (!reclaim_victim_allowed(ssn, job, request, v.id)) continue;
        if (!is_elastic(ssn, v.id) && min_runtime_protected(ssn, v.id, job.id, true)) continue;
        q->push(v);
      }
      return q;
    };
    auto validator = [&ssn, &snapshot](const Scenario& sc) {
      ResourceVec request = ResourceVec::Zero();
      for (TaskId t : sc.pending) request += request_quantities(ssn.state.tasks[t], ssn.state.min_node_gpu_memory_mib);
      return reclaim_scenario_valid(ssn, snapshot, sc.preemptor, request, sc.victims) &&
             min_runtime_scenario_valid(ssn, sc, true);
    };
    JobSolver solver(ssn, feasible_nodes(ssn, job), validator, victims);
    SolveResult result = solver.solve(job);
    commit_or_remember(ssn, result, memory, job);
  });
}

void run_preempt(Session& ssn) {
  std::unordered_map<QueueId, FailedJobMemory> failed;
  for_each_pending_job(ssn, false, [&](const JobView& job) {
    FailedJobMemory& memory = failed[ssn.state.jobs[job.id].queue];
    if (ssn.config.use_scheduling_signatures && !memory.is_easier(ssn, job)) return;
    // A non-preemptible preemptor must stay within quota; otherwise it is a plain failure.
    if (non_preemptible_over_quota(ssn, job.id, tasks_to_allocate(ssn, job, false))) {
      memory.update(ssn, job);
      return;
    }
    auto victims = [&ssn, job] {
      auto q = std::make_unique<JobQueue>(ssn, true);
      const model::Job& preemptor = ssn.state.jobs[job.id];
      for (const JobView& v : all_job_views(ssn)) {
        const model::Job& candidate = ssn.state.jobs[v.id];
        if (!has_alive_pod_on_known_node(ssn, v)) continue;
        if (!candidate.preemptible || candidate.priority >= preemptor.priority) continue;
        if (candidate.queue != preemptor.queue || v.id == job.id) continue;
        if (active_allocated_count(ssn, v) == 0) continue;
        if (!is_elastic(ssn, v.id) && min_runtime_protected(ssn, v.id, job.id, false)) continue;
        q->push(v);
      }
      return q;
    };
    auto validator = [&ssn](const Scenario& sc) { return min_runtime_scenario_valid(ssn, sc, false); };
    JobSolver solver(ssn, feasible_nodes(ssn, job), validator, victims);
    SolveResult result = solver.solve(job);
    commit_or_remember(ssn, result, memory, job);
  });
}

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
      free_mib += shared_mib + std::floor(at(n.idle, Resource::GPU) + at(n.releasing, Resource::GPU)) *
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
      auto q = std::make_unique<JobQueue>(ssn, true);
      // At most max+1 victim jobs (KAI's counter admits one past the cap), in name order where
      // KAI takes map order.
      int admitted = 0;
      const int cap = ssn.config.max_consolidation_preemptees;
      for (const JobView& v : all_job_views(ssn)) {
        if (!has_alive_pod_on_known_node(ssn, v)) continue;
        const model::Job& candidate = ssn.state.jobs[v.id];
        if (!candidate.preemptible || v.id == job.id) continue;
        if (cap != -1 && admitted > cap) continue;
        if (active_allocated_count(ssn, v) == 0) continue;
        ++admitted;
        q->push(v);
      }
      return q;
    };
    auto validator = [&ssn](const Scenario& sc) {
      for (const auto& [j, tasks] : sc.victims) {
        for (TaskId t : tasks) {
          if (ssn.state.tasks[t].status == model::TaskStatus::RELEASING) return false;
        }
      }
      return true;
    };
    JobSolver solver(ssn, feasible_nodes(ssn, job), validator, victims);
    SolveResult result = solver.solve(job);
    commit_or_remember(ssn, result, failed, job);
  });
}

}  // namespace sim::sched
