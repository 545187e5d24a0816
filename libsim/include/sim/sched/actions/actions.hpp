#pragma once
// The scheduling actions (pkg/scheduler/actions/*) and the shared AllocateJob routine.

#include <vector>

#include "sim/sched/framework/alike_nodes.hpp"
#include "sim/sched/framework/job_order.hpp"
#include "sim/sched/framework/search_orders.hpp"
#include "sim/sched/framework/statement.hpp"

namespace sim::sched {

/// AllocateJob (actions/common/allocate.go): the job's next tasks (gang block or one elastic
/// pod) placed one by one in task order on the best fitting node; all or nothing.
/// `pipeline_only` is the simulation mode of reclaim/preempt/consolidation. `orders`: node orders
/// kept for the action's alike pods (alike_nodes.hpp), or nullptr to order the nodes anew.
/// `in_nodes`: the members of `nodes` by node index, when the caller keeps them (the victim
/// search), so whole-GPU pods find their nodes in the free-capacity index; or nullptr.
/// `search`: the victim search's node orders kept through a probe (search_orders.hpp), or nullptr.
bool allocate_job(Session& ssn, Statement& stmt, const std::vector<NodeId>& nodes,
                  const JobView& job, bool pipeline_only, AlikeNodeOrders* orders = nullptr,
                  const std::vector<char>* in_nodes = nullptr, SearchNodeOrders* search = nullptr);

void run_allocate(Session& ssn);
void run_reclaim(Session& ssn);
void run_preempt(Session& ssn);
void run_consolidation(Session& ssn);
void run_stale_gang_eviction(Session& ssn);

/// Every node of the session, by id.
std::vector<NodeId> all_nodes(const Session& ssn);

}  // namespace sim::sched
