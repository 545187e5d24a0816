#pragma once
// The proportion plugin's policies that actions consult (pkg/scheduler/plugins/proportion):
// queue order (queue_order/queue_order.go), capacity checks (capacity_policy/), and the
// reclaim gates (reclaimable/). Fair share itself is computed at session open (session.hpp).

#include <optional>
#include <string>
#include <vector>

#include "sim/sched/framework/job_order.hpp"

namespace sim::sched {

/// GetQueueOrderResult: negative = `left` first, positive = `right` first (never 0).
/// `left_job`/`right_job` are the best pending jobs of each side (invalid in victim mode);
/// `*_victims` are the jobs already taken from each side as victims.
int queue_order(const Session& ssn, QueueId left, QueueId right, const JobView* left_job,
                const JobView* right_job, const std::vector<const JobView*>& left_victims,
                const std::vector<const JobView*>& right_victims);

/// Why a job or task cannot be placed within its queue's capacity; nullopt when it can.
/// The text names the queue, the resource and the numbers.
using CapacityVerdict = std::optional<std::string>;

/// IsJobOverQueueCapacity: limit at every level, and for non-preemptible jobs quota at every
/// level, for the given tasks (GPU memory converted with the largest node GPU memory).
CapacityVerdict job_over_capacity(const Session& ssn, JobId job, const std::vector<TaskId>& tasks);
/// IsNonPreemptibleJobOverQuota: only the non-preemptible quota rule.
CapacityVerdict non_preemptible_over_quota(const Session& ssn, JobId job, const std::vector<TaskId>& tasks);
/// IsTaskAllocationOnNodeOverCapacity: both rules with the task's GPU need on that node.
CapacityVerdict task_on_node_over_capacity(const Session& ssn, TaskId task, NodeId node);

/// CanReclaimResources: the reclaimer's leaf queue stays within its fair share with the job's next
/// tasks (and, if non-preemptible, within quota).
bool can_reclaim_resources(const Session& ssn, const JobView& reclaimer);

/// FilterVictim (reclaimable/filter_victims.go): may `victim`'s queue give resources to the
/// reclaimer, judged at the first level where their queue paths part.
/// `reclaimer_request` is tasks_to_allocate_quantities(reclaimer), computed once by the caller.
bool reclaim_victim_allowed(const Session& ssn, const JobView& reclaimer, const ResourceVec& reclaimer_request,
                            JobId victim);

/// One reclaim scenario's verdict (reclaimable.go Reclaimable): every victim unit must keep the
/// victim side above its fair share or take it from above its quota while the reclaimer is within
/// quota, and the reclaimer side must not end more saturated than the siblings it took from.
/// `queues` is the queue state cloned when this reclaimer's attempt started.
bool reclaim_scenario_valid(const Session& ssn, const IdVector<QueueId, fairshare::QueueShares>& queues,
                            const JobView& reclaimer, const ResourceVec& reclaimer_request,
                            const std::vector<std::pair<JobId, std::vector<TaskId>>>& victims);

}  // namespace sim::sched
