#pragma once
// Gang bookkeeping over a job's subgroup tree (api/podgroup_info: job_info.go, allocation_info.go,
// eviction_info.go, subgroup_info/; plugins/subgrouporder). Everything works on a JobView: the
// job, the pods it includes and its (possibly lowered) PodSet minimums.
//
// Outside the two tree walks (pods to allocate, pods to evict) and readiness, KAI's gang rules
// look at every PodSet and ignore minSubGroup: gang satisfied, stale, pipelining, the elastic
// job order and the min-runtime victim check.

#include <functional>
#include <memory>
#include <vector>

#include "sim/sched/framework/job_view.hpp"
#include "sim/sched/framework/session.hpp"

namespace sim::sched {

/// The whole job.
JobView full_view(const Session& ssn, JobId job);

/// Per-PodSet pod counts of a view (pods of an unknown subgroup are in none).
struct PodSetCounts {
  std::vector<std::int64_t> active_allocated, active_used, alive, gated, all;
  PodSetCounts(const Session& ssn, const JobView& job)
      : PodSetCounts(ssn, job.tasks, *job.groups) {}
  PodSetCounts(const Session& ssn, const std::vector<TaskId>& tasks,
               const model::SubGroupTree& groups);
};

/// Pods of the view in Allocated, Pipelined, Binding, Bound or Running status.
std::int64_t active_allocated_count(const Session& ssn, const JobView& job);
/// Pods of the view that hold node resources (active-allocated, Releasing, StuckInReleasing).
std::int64_t active_used_count(const Session& ssn, const JobView& job);

/// PodInfo.ShouldAllocate: Pending, or (only in simulations) virtually evicted in this session.
bool should_allocate(const model::Task& task, bool real_allocation);

/// GetTasksToAllocate: walking the tree in subgroup order, the missing part of the gang (in task
/// order), or once every set is satisfied one more pod of the first member that has one.
std::vector<TaskId> tasks_to_allocate(const Session& ssn, const JobView& job, bool real_allocation);

/// A member of a subgroup set: a child set or a PodSet (GetMembers lists the child sets first).
struct SubgroupMember {
  bool is_set;
  int index;
};

/// orderedMembers: the members of `set` in subgroup order, on the view's pod counts now (the
/// order AllocateJob walks them in, each set when the walk reaches it).
std::vector<SubgroupMember> members_in_order(const Session& ssn, const JobView& job, int set);

/// True when PodSet `pod_set` lies below set `set`.
bool pod_set_under(const model::SubGroupTree& groups, int pod_set, int set);

/// One PodSet under the root and no minSubGroup: every tree walk comes down to that PodSet's
/// pods in list order (the hot paths take this shortcut).
bool is_single_pod_set(const JobView& job);

/// GetTasksToEvict: a surplus pod (or a whole surplus member) in reverse subgroup and task order
/// while the job runs above its minimum, else every active pod. `more_left` tells whether active
/// pods remain after that.
std::vector<TaskId> tasks_to_evict(const Session& ssn, const JobView& job, bool& more_left);

/// IsReadyForScheduling: a PodSet with alive minus gated pods at its minimum is ready; a set with
/// enough ready members is.
bool is_ready_for_scheduling(const Session& ssn, const JobView& job);
/// ShouldPipelineJob: some PodSet has a Pipelined pod while its other active pods are fewer than
/// its minimum.
bool should_pipeline_job(const Session& ssn, const JobView& job);
/// IsGangSatisfied: every PodSet's active-used pods reach its minimum.
bool is_gang_satisfied(const Session& ssn, const JobView& job);
/// IsStale: no Succeeded pod, some active-used pod, and some PodSet below its minimum.
bool is_stale(const Session& ssn, JobId job);
/// True if a pod of the job is Pending (HasTasksToAllocate for a real allocation).
bool job_has_pending_pod(const Session& ssn, JobId job);
/// IsElastic: some PodSet's minimum is below the number of its pods.
bool is_elastic(const Session& ssn, JobId job);
/// The elastic plugin's minAvailableState: 0 when a PodSet is below its minimum, 1 when all are
/// exactly at it, 2 otherwise.
int min_available_state(const Session& ssn, const JobView& job);

/// getPartialJobRepresentative: `tasks` of the job as a view, each PodSet holding pods with its
/// minimum lowered to their number, and each set's minSubGroup (when given) to its members that
/// hold pods.
JobView partial_view(const Session& ssn, JobId job, std::vector<TaskId> tasks);

/// The PodSet a task belongs to, for messages ("default" without subgroups).
const model::PodSet* pod_set_of(const JobView& job, const model::Task& task);

}  // namespace sim::sched
