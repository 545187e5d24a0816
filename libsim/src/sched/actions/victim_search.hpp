#pragma once
// Private to the actions: what reclaim, preempt and consolidation share around the JobSolver (the
// jobs they visit, the nodes worth searching, committing a solution or remembering a failure).

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/core/assert.hpp"
#include "sim/sched/actions/actions.hpp"
#include "sim/sched/actions/solver.hpp"

namespace sim::sched {

// FeasibleNodesForJob: every node if some pod needs no GPU, else nodes with free GPU capacity.
inline std::vector<NodeId> feasible_nodes(const Session& ssn, const JobView& job) {
  for (TaskId t : job.tasks) {
    if (!ssn.state.tasks[t].requires_any_gpu()) return all_nodes(ssn);
  }
  std::vector<NodeId> nodes;
  for (NodeId n : all_nodes(ssn)) {
    const model::Node& node = ssn.state.nodes[n];
    if (node.idle_gpus_with_shared() > 0 || node.releasing_gpus_with_shared() > 0)
      nodes.push_back(n);
  }
  return nodes;
}

inline bool has_alive_pod(const Session& ssn, JobId job) {
  for (TaskId t : ssn.state.jobs[job].tasks) {
    if (model::is_alive(ssn.state.tasks[t].status)) return true;
  }
  return false;
}

inline bool has_active_allocated_pod(const Session& ssn, JobId job) {
  for (TaskId t : ssn.state.jobs[job].tasks) {
    if (model::is_active_allocated(ssn.state.tasks[t].status)) return true;
  }
  return false;
}

// The victim queue of reclaim, preempt and consolidation: a full view of every job `admit`
// takes, pushed in PodGroup-name order (where KAI walks its PodGroup map). Only admitted jobs
// get a view: most jobs of a large cluster are not candidates. Its jobs are compared by the keys
// they had when pushed: the solver pops it only between scenarios, with the session as the
// solve found it (each scenario's statement is discarded first).
template <typename Admit>
std::unique_ptr<JobQueue> victim_queue(Session& ssn, Admit&& admit) {
  auto q = std::make_unique<JobQueue>(ssn, true, true);
  for (JobId j : ssn.jobs_by_name()) {
    if (admit(j)) q->push(full_view(ssn, j));
  }
  return q;
}

// victim_queue over the jobs of `queues` alone, for an `admit` that takes no job of any other
// queue and has no effects (it is asked in queue order, and the admitted are pushed in name
// order): a reclaimer or preemptor then reads the jobs of the queues it may take from, not the
// cluster's. Debug builds ask `admit` of the other jobs too.
template <typename Admit>
std::unique_ptr<JobQueue> victim_queue_of(Session& ssn, const std::vector<QueueId>& queues,
                                          Admit&& admit) {
  const std::vector<std::vector<std::uint32_t>>& by_queue = ssn.jobs_by_queue();
  const std::vector<JobId>& by_name = ssn.jobs_by_name();
  std::vector<std::uint32_t> admitted;  // places in name order
  for (QueueId q : queues) {
    for (std::uint32_t p : by_queue[q.index()]) {
      if (admit(by_name[p])) admitted.push_back(p);
    }
  }
  std::sort(admitted.begin(), admitted.end());
#ifndef NDEBUG
  std::vector<char> scanned(by_queue.size(), 0);
  for (QueueId q : queues) scanned[q.index()] = 1;
  for (JobId j : by_name) {
    const QueueId q = ssn.state.jobs[j].queue;
    SIM_ASSERT((q.valid() && scanned[q.index()]) || !admit(j));
  }
#endif
  auto q = std::make_unique<JobQueue>(ssn, true, true);
  for (std::uint32_t p : admitted) q->push(full_view(ssn, by_name[p]));
  return q;
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

inline void commit_or_remember(Session& ssn, SolveResult& result, FailedJobMemory& failed,
                               const JobView& job) {
  if (result.solved) {
    result.statement->commit();
  } else {
    failed.update(ssn, job);
  }
}

}  // namespace sim::sched
