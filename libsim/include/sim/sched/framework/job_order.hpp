#pragma once
// What the job orders and the victim search read of a job view: its pods to allocate and their
// requests as proportion quantities. The orders themselves are plugins (Session::job_before).
//
// KAI often works on partial clones of a PodGroup (a victim job minus the pods already taken, a
// reclaimer holding only the pods of one probe); a JobView (gang.hpp) is that. Pods are shared
// with the session, so status changes are seen through every view.

#include <vector>

#include "sim/sched/framework/gang.hpp"  // JobView and the gang rules the orders use
#include "sim/sched/framework/session.hpp"

namespace sim::sched {

/// True if the view has any pod with should_allocate(real).
bool has_tasks_to_allocate(const Session& ssn, const JobView& job, bool real_allocation);

/// Proportion quantities (CPU, memory, GPU incl. MIG slices) of a pod's request; GPU memory is
/// converted with `gpu_memory_mib` when given (the smallest node GPU memory, as KAI does).
ResourceVec request_quantities(const model::Task& task, std::optional<std::int64_t> gpu_memory_mib);

/// GetTasksToAllocateInitResourceVector as quantities: the view's next pods' requests.
ResourceVec tasks_to_allocate_quantities(const Session& ssn, const JobView& job);

/// PodGroupInfo.AllocatedVector as quantities: the requests of the view's allocated pods, GPU
/// memory not converted.
ResourceVec allocated_quantities(const Session& ssn, const JobView& job);

/// The view's memo (made if it has none), emptied of its answers unless it still holds: same
/// session, tree and pods, each pod in the status it had.
AllocationMemo& current_allocation_memo(const Session& ssn, const JobView& job);

}  // namespace sim::sched
