// Action "stalegangeviction" (actions/stalegangeviction/stalegangeviction.go): a gang with a
// PodSet running below its minimum for longer than the grace period loses all its pods.

#include <algorithm>
#include <vector>

#include "sim/core/assert.hpp"
#include "sim/sched/actions/actions.hpp"
#include "sim/sched/framework/gang.hpp"

namespace sim::sched {

void run_stale_gang_eviction(Session& ssn) {
  const std::int64_t grace = ssn.config.staleness_grace_ns;
  // Whether a job is stale does not depend on the others' evictions: the jobs are read in memory
  // order, and only the stale ones are then taken in KAI's order.
  std::vector<char> stale(ssn.state.jobs.size(), 0);
  for (std::size_t i = 0; i < ssn.state.jobs.size(); ++i) {
    const JobId j(static_cast<JobId::value_type>(i));
    model::Job& job = ssn.state.jobs[j];
    if (!job.queue.valid()) continue;
    SIM_ASSERT(ssn.may_be_stale(j) || !is_stale(ssn, j));
    stale[i] = ssn.may_be_stale(j) && is_stale(ssn, j) ? 1 : 0;
    if (!stale[i]) job.stale_since_ns.reset();
  }
  for (JobId j : ssn.jobs_by_name()) {
    if (!stale[j.index()]) continue;
    model::Job& job = ssn.state.jobs[j];
    if (!job.stale_since_ns) job.stale_since_ns = ssn.state.now_ns;
    if (grace < 0 || ssn.state.now_ns - *job.stale_since_ns < grace) continue;
    for (TaskId t : job.tasks) {
      model::Task& task = ssn.state.tasks[t];
      if (!model::is_active_allocated(task.status) || !task.node.valid()) continue;
      // ssn.Evict: immediate pod deletion, outside any statement; the deallocate handlers run.
      task.status = model::TaskStatus::RELEASING;
      ssn.note_status_change(j);
      ssn.node(task.node).update_task(task);
      ssn.on_deallocate(task);
      ssn.evictions.push_back({t, task.node, "stalegang", JobId::invalid()});
    }
  }
}

}  // namespace sim::sched
