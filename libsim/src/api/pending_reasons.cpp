#include "api/pending_reasons.hpp"

#include <algorithm>

#include "sim/sched/framework/job_order.hpp"
#include "sim/sched/plugins/proportion.hpp"

namespace sim::api {
namespace {

using sched::WaitCause;
using sched::WaitReason;

WaitReason reason(WaitCause cause, std::string message) {
  WaitReason why;
  why.cause = cause;
  why.message = std::move(message);
  return why;
}

bool is_gpu_shortage(WaitCause c) {
  return c == WaitCause::NotEnoughGpus || c == WaitCause::NotEnoughGpuMemory ||
         c == WaitCause::Fragmentation;
}

// No node has the GPUs and the queue already holds its fair share with this pod: reclaim takes
// only for a queue that stays within its fair share (KAI: plugins/proportion/reclaimable,
// CanReclaimResources), so the pod waits until the queue's own pods finish or others free room.
void mark_over_quota(const sched::Session& ssn, const model::Job& job, WaitReason& why) {
  const auto* shares = sched::queue_shares(ssn);
  if (!shares || !job.queue.valid() || !is_gpu_shortage(why.cause)) return;
  const auto& gpu = (*shares)[job.queue][Resource::GPU];
  if (gpu.allocated + why.requested <= gpu.fair_share) return;
  // A queue whose fair share is the whole cluster has no one to reclaim from: the nodes decide.
  const auto* proportion = ssn.plugin<sched::ProportionPlugin>();
  if (!proportion || gpu.fair_share >= at(proportion->total, Resource::GPU)) return;
  why.shortage = why.cause;
  why.cause = WaitCause::OverQuota;
  why.queue = ssn.state.queue_tree.uid(job.queue);
  why.resource = Resource::GPU;
  why.bound = gpu.fair_share;
  why.allocated = gpu.allocated;
}

}  // namespace

std::vector<PendingJob> pending_jobs(const sched::Session& ssn) {
  const model::ClusterState& state = ssn.state;
  const model::QueueTree& tree = state.queue_tree;
  std::vector<PendingJob> out;
  for (JobId j : ssn.jobs_by_name()) {
    if (!ssn.may_have_pending(j)) continue;  // no pod of it was or became pending
    const model::Job& job = state.jobs[j];
    std::int64_t waiting = 0;
    for (TaskId t : job.tasks)
      waiting += state.tasks[t].status == model::TaskStatus::PENDING ? 1 : 0;
    if (waiting == 0) continue;
    PendingJob entry{j, waiting, {}};
    std::vector<WaitReason>& reasons = entry.reasons;
    if (!job.problem.empty()) {
      reasons.push_back(
          reason(job.queue.valid() ? WaitCause::Other : WaitCause::Queue, job.problem));
    } else if (!job.queue.valid() || !tree.is_leaf(job.queue)) {
      reasons.push_back(reason(
          WaitCause::Queue, "queue \"" + job.queue_name +
                                "\" is not a leaf queue; KAI schedules only jobs of leaf queues"));
    } else if (const sched::JobView view = sched::full_view(ssn, j);
               !sched::is_ready_for_scheduling(ssn, view)) {
      // The PodGroup status events of KAI's status updater, one per PodSet short of pods.
      const sched::PodSetCounts counts(ssn, view);
      for (std::size_t p = 0; p < counts.alive.size(); ++p) {
        const model::PodSet& pod_set = job.groups->pod_sets[p];
        if (counts.alive[p] - counts.gated[p] >= pod_set.min_available) continue;
        WaitReason why = reason(WaitCause::Gang, "");
        why.gang_min = static_cast<int>(pod_set.min_available);
        why.gang_ready = static_cast<int>(counts.alive[p] - counts.gated[p]);
        why.message = "gang not ready: waiting for " + std::to_string(pod_set.min_available) +
                      " pods" +
                      (job.groups->declared ? " for SubGroup " + pod_set.name : std::string()) +
                      ", currently " + std::to_string(counts.alive[p]) + " exist, " +
                      std::to_string(counts.gated[p]) + " are gated";
        reasons.push_back(std::move(why));
      }
    }
    for (TaskId t : job.tasks) {
      const model::Task& task = state.tasks[t];
      if (task.pod_set >= 0) continue;
      auto label = task.labels.find("kai.scheduler/subgroup-name");
      reasons.push_back(
          reason(WaitCause::Gang,
                 "Pod " + task.key() + " references subgroup \"" +
                     (label == task.labels.end() ? std::string("default") : label->second) +
                     "\", which does not exist in PodGroup " + job.ns + "/" + job.name));
    }
    if (auto it = ssn.fit_errors.find(j); it != ssn.fit_errors.end()) {
      for (WaitReason why : it->second) {
        mark_over_quota(ssn, job, why);
        reasons.push_back(std::move(why));
      }
    }
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace sim::api
