#pragma once
// A bound that lets the victim search drop a scenario early. When a preemptor's pending pods are
// alike and no other pod can open a node to them (no pod affinity of their own, no DRA or NUMA
// device matching), the jobs a scenario places before the preemptor can only take room from it.
// So once its pods cannot all fit as the scenario stands, the scenario fails whatever order
// KAI's job queue would give, and the rest of that queue need not be built or popped.

#include <vector>

#include "sim/sched/framework/session.hpp"

namespace sim::sched {

/// The pods AllocateJob would place for `preemptor` (tasks_to_allocate), when they are alike in
/// everything a node filter reads and their fit only gets harder as other pods are placed (no
/// required pod affinity, DRA claims, NUMA plugin or legacy MIG; one PodSet, no topology);
/// empty otherwise.
std::vector<TaskId> alike_pending_tasks(const Session& ssn, const JobView& preemptor);

/// False only when `tasks` (from alike_pending_tasks) cannot all fit on `nodes` as the session
/// stands: the queue's capacity refuses them, or the nodes a first pod fits hold fewer copies
/// than there are pods (each node's count bounded by its free resources). Changes nothing.
/// `in_nodes`, when given, marks the members of `nodes` by node index: pods asking for whole
/// GPUs then visit only the nodes the session's free-capacity index offers.
bool may_fit_alone(Session& ssn, JobId job, const std::vector<TaskId>& tasks,
                   const std::vector<NodeId>& nodes, const std::vector<char>* in_nodes = nullptr);

}  // namespace sim::sched
