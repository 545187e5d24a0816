#pragma once
// Job and task ordering (framework/session_plugins.go JobOrderFn/TaskOrderFn, plugins/priority,
// plugins/elastic, plugins/taskorder).
//
// KAI often works on partial clones of a PodGroup (a victim job minus the pods already taken, a
// reclaimer holding only the pods of one probe); a JobView (gang.hpp) is that. Pods are shared
// with the session, so status changes are seen through every view.

#include <vector>

#include "sim/sched/framework/gang.hpp"  // JobView and the gang rules the orders use
#include "sim/sched/framework/session.hpp"

namespace sim::sched {

/// TaskOrderFn: kubeflow master/launcher and ray head first, then `kai.scheduler/task-priority`
/// (labelled first, higher first), then older pod, then smaller pod UID.
bool task_before(const model::Task& a, const model::Task& b);

/// JobOrderFn: higher priority; then the elastic rule (below minAvailable, then exactly at it,
/// then above); then older PodGroup; then smaller name.
bool job_before(const Session& ssn, const JobView& a, const JobView& b);

/// True if the view has any pod with should_allocate(real).
bool has_tasks_to_allocate(const Session& ssn, const JobView& job, bool real_allocation);

/// Proportion quantities (CPU, memory, GPU incl. MIG slices) of a pod's request; GPU memory is
/// converted with `gpu_memory_mib` when given (the smallest node GPU memory, as KAI does).
ResourceVec request_quantities(const model::Task& task, std::optional<std::int64_t> gpu_memory_mib);

/// GetTasksToAllocateInitResourceVector as quantities: the view's next pods' requests.
ResourceVec tasks_to_allocate_quantities(const Session& ssn, const JobView& job);

}  // namespace sim::sched
