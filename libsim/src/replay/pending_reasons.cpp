#include "pending_reasons.hpp"

#include <algorithm>
#include <initializer_list>

#include "sim/sched/plugins/proportion.hpp"

namespace sim::replay {
namespace {

bool has(const std::vector<sched::WaitReason>& reasons,
         std::initializer_list<sched::WaitCause> causes) {
  return std::any_of(reasons.begin(), reasons.end(), [&](const sched::WaitReason& r) {
    return std::find(causes.begin(), causes.end(), r.cause) != causes.end();
  });
}

// A pod's GPUs as queue accounting counts them; a gpu-memory pod as its share of the largest
// GPU in the cluster.
double gpus_of(const model::Task& t, std::int64_t largest_mib) {
  double g = t.gpu.gpus_quota();
  if (t.is_gpu_memory_request() && largest_mib > 0) g += t.gpu.memory_as_fraction(largest_mib);
  return g;
}

}  // namespace

void PendingReasons::observe(const sched::Session& ssn) {
  now_.clear();
  const model::ClusterState& state = ssn.state;
  double free_gpus = 0;
  std::int64_t largest_mib = 0;
  for (const model::Node& n : state.nodes) {
    if (n.unschedulable || !n.conditions_ok) continue;
    const double idle = n.idle_gpus_with_shared();
    free_gpus += idle;
    largest_mib = std::max(largest_mib, n.gpu_memory_mib);
  }
  const std::vector<sched::WaitReason> none;
  for (std::size_t j = 0; j < state.jobs.size(); ++j) {
    const JobId id(static_cast<JobId::value_type>(j));
    const model::Job& job = state.jobs[id];
    int pending = 0, pipelined = 0;
    double gpus = 0;
    bool gpu_job = false;
    for (TaskId t : job.tasks) {
      const model::Task& task = state.tasks[t];
      if (task.status == model::TaskStatus::PIPELINED) ++pipelined;
      if (task.status != model::TaskStatus::PENDING) continue;
      ++pending;
      gpus += gpus_of(task, largest_mib);
      gpu_job = gpu_job || task.requires_any_gpu();
    }
    if (pipelined > 0 && job.queue.valid()) now_[job.queue_name]["releasing"] += pipelined;
    if (pending == 0 || !job.queue.valid()) continue;
    auto it = ssn.fit_errors.find(id);
    const std::vector<sched::WaitReason>& why = it == ssn.fit_errors.end() ? none : it->second;
    const auto& gpu = (*sched::queue_shares(ssn))[job.queue][Resource::GPU];
    std::string reason;
    using sched::WaitCause;
    if (has(why, {WaitCause::OverLimit})) {
      reason = "OverLimit";
    } else if (has(why, {WaitCause::NonPreemptibleOverQuota})) {
      reason = "OverQuota";
    } else if (!gpu_job || has(why, {WaitCause::NodeRules, WaitCause::Gang, WaitCause::Queue})) {
      reason = "other";
    } else if (free_gpus + 1e-9 >= gpus) {
      // The GPUs are free, just not together on one node (or one device).
      reason = "fragmentation";
    } else if (gpu.deserved != -1 && gpu.allocated + gpus > gpu.deserved + 1e-9) {
      reason = "OverQuota";
    } else {
      reason = "not enough GPUs";
    }
    now_[job.queue_name][reason] += pending;
  }
}

void PendingReasons::hold(double seconds) {
  for (const auto& [queue, reasons] : now_) {
    for (const auto& [reason, pods] : reasons) totals_[queue][reason] += pods * seconds;
  }
}

}  // namespace sim::replay
