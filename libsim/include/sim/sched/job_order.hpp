#pragma once
// Job and task ordering and gang bookkeeping for single-PodSet PodGroups
// (framework/session_plugins.go JobOrderFn/TaskOrderFn, plugins/priority, plugins/elastic,
// plugins/taskorder, api/podgroup_info/allocation_info.go and eviction_info.go).
//
// KAI often works on partial clones of a PodGroup (a victim job minus the pods already taken, a
// reclaimer holding only the pods of one probe); a JobView is that: the job, the pods it
// includes and its (possibly lowered) minAvailable. Pods are shared with the session, so status
// changes are seen through every view.

#include <vector>

#include "sim/sched/session.hpp"

namespace sim::sched {

struct JobView {
  JobId id = JobId::invalid();
  std::vector<TaskId> tasks;
  std::int64_t min_available = 1;
  bool valid() const { return id.valid(); }
};

/// The whole job.
JobView full_view(const Session& ssn, JobId job);

/// TaskOrderFn: kubeflow master/launcher and ray head first, then `kai.scheduler/task-priority`
/// (labelled first, higher first), then older pod, then smaller pod UID.
bool task_before(const model::Task& a, const model::Task& b);

/// JobOrderFn: higher priority; then the elastic rule (below minAvailable, then exactly at it,
/// then above); then older PodGroup; then smaller name.
bool job_before(const Session& ssn, const JobView& a, const JobView& b);

/// Pods of the view in Allocated, Pipelined, Binding, Bound or Running status.
std::int64_t active_allocated_count(const Session& ssn, const JobView& job);
/// Pods of the view that hold node resources (active-allocated, Releasing, StuckInReleasing).
std::int64_t active_used_count(const Session& ssn, const JobView& job);

/// PodInfo.ShouldAllocate: Pending, or (only in simulations) virtually evicted in this session.
bool should_allocate(const model::Task& task, bool real_allocation);

/// GetTasksToAllocate: the missing part of the gang (in task order), or one more pod once the
/// gang is complete.
std::vector<TaskId> tasks_to_allocate(const Session& ssn, const JobView& job, bool real_allocation);

/// GetTasksToEvict: one surplus pod (the last in task order) while the job runs above its
/// minimum, else every active pod. `more_left` tells whether active pods remain after that.
std::vector<TaskId> tasks_to_evict(const Session& ssn, const JobView& job, bool& more_left);

/// IsReadyForScheduling: alive minus gated pods reach minAvailable.
bool is_ready_for_scheduling(const Session& ssn, const JobView& job);
/// ShouldPipelineJob: some pod is Pipelined while the non-pipelined active pods are fewer than
/// minAvailable.
bool should_pipeline_job(const Session& ssn, const JobView& job);
/// IsGangSatisfied: active-used pods reach minAvailable.
bool is_gang_satisfied(const Session& ssn, const JobView& job);
/// True if the view has any pod with should_allocate(real).
bool has_tasks_to_allocate(const Session& ssn, const JobView& job, bool real_allocation);
bool has_pending_task(const Session& ssn, const JobView& job);

/// Proportion quantities (CPU, memory, GPU incl. MIG slices) of a pod's request; GPU memory is
/// converted with `gpu_memory_mib` when given (the smallest node GPU memory, as KAI does).
ResourceVec request_quantities(const model::Task& task, std::optional<std::int64_t> gpu_memory_mib);

/// GetTasksToAllocateInitResourceVector as quantities: the view's next pods' requests.
ResourceVec tasks_to_allocate_quantities(const Session& ssn, const JobView& job);

}  // namespace sim::sched
