#include "sim/sched/framework/pod_sums.hpp"

#include <algorithm>

#include "sim/sched/framework/session.hpp"

namespace sim::sched {

namespace {

// What the pod adds (an allocated pod what it accepted, a pending pod what it requests); zero
// for the others.
ResourceVec pod_amount(const model::ClusterState& state, const model::Task& task, bool allocated,
                       bool pending) {
  if (allocated) return Session::quantify_accepted(task);
  if (!pending) return ResourceVec::Zero();
  ResourceVec amount = Session::quantify_request(task);
  if (task.is_gpu_memory_request() && state.min_node_gpu_memory_mib) {
    at(amount, Resource::GPU) += task.gpu.memory_as_fraction(*state.min_node_gpu_memory_mib);
  }
  return amount;
}

// KAI's own additions (proportion.go updateQueuesCurrentResourceUsage): job by job, a job's pods
// status by status (its PodStatusIndex, filled in pod order), each added to its queue and every
// queue above, one double addition at a time.
IdVector<QueueId, model::OpenSums::Queue> listed_sums(const model::ClusterState& state) {
  IdVector<QueueId, model::OpenSums::Queue> out(state.queue_tree.size());
  std::vector<model::TaskStatus> statuses;
  for (const model::Job& job : state.jobs) {
    if (!job.queue.valid()) continue;
    statuses.clear();
    for (TaskId t : job.tasks) {
      const model::TaskStatus s = state.tasks[t].status;
      if (std::find(statuses.begin(), statuses.end(), s) == statuses.end()) statuses.push_back(s);
    }
    for (model::TaskStatus status : statuses) {
      const bool allocated = model::is_allocated(status);
      const bool pending = status == model::TaskStatus::PENDING;
      if (!allocated && !pending) continue;
      for (TaskId t : job.tasks) {
        if (state.tasks[t].status != status) continue;
        const ResourceVec amount = pod_amount(state, state.tasks[t], allocated, pending);
        for (QueueId q = job.queue; q.valid(); q = state.queue_tree.parent(q)) {
          model::OpenSums::Queue& sums = out[q];
          for (Resource r : kQuotaResources) {
            at(sums.request, r) += at(amount, r);
            if (allocated) at(sums.allocated, r) += at(amount, r);
            if (allocated && !job.preemptible) {
              at(sums.allocated_not_preemptible, r) += at(amount, r);
            }
          }
        }
      }
    }
  }
  return out;
}

}  // namespace

PodPart pod_part(const model::ClusterState& state, const model::Task& task) {
  PodPart part;
  part.allocated = model::is_allocated(task.status);
  part.pending = task.status == model::TaskStatus::PENDING;
  if (!part.allocated && !part.pending) return part;
  const ResourceVec amount = pod_amount(state, task, part.allocated, part.pending);
  for (std::size_t i = 0; i < kQuotaResources.size(); ++i)
    part.amount[i] = ExactSum::term(at(amount, kQuotaResources[i]));
  return part;
}

QueueSums::QueueSums(const model::QueueTree& tree) : queues_(tree.size()), parents_(tree.size()) {
  for (std::size_t i = 0; i < tree.size(); ++i) {
    const QueueId q(static_cast<QueueId::value_type>(i));
    parents_[q] = tree.parent(q);
  }
}

bool pod_may_be_stale(const model::Job& job, const model::Task& task) {
  const auto& pod_sets = job.groups->pod_sets;
  return pod_sets.size() != 1 || pod_sets[0].min_available > 1 || task.pod_set != 0;
}

void QueueSums::add(QueueId queue, bool preemptible, const PodPart& part, int sign) {
  if (!part.allocated && !part.pending) return;
  for (QueueId q = queue; q.valid(); q = parents_[q]) {
    Sums& s = queues_[q];
    for (std::size_t i = 0; i < part.amount.size(); ++i) {
      const ExactSum::Term& t = part.amount[i];
      if (sign > 0) {
        s.request[i].add(t);
        if (part.allocated) s.allocated[i].add(t);
        if (part.allocated && !preemptible) s.allocated_not_preemptible[i].add(t);
      } else {
        s.request[i].subtract(t);
        if (part.allocated) s.allocated[i].subtract(t);
        if (part.allocated && !preemptible) s.allocated_not_preemptible[i].subtract(t);
      }
    }
  }
}

IdVector<QueueId, model::OpenSums::Queue> QueueSums::values() const {
  IdVector<QueueId, model::OpenSums::Queue> out(queues_.size());
  for (std::size_t q = 0; q < queues_.size(); ++q) {
    const QueueId id(static_cast<QueueId::value_type>(q));
    for (std::size_t i = 0; i < kQuotaResources.size(); ++i) {
      const Resource r = kQuotaResources[i];
      at(out[id].request, r) = queues_[id].request[i].value();
      at(out[id].allocated, r) = queues_[id].allocated[i].value();
      at(out[id].allocated_not_preemptible, r) = queues_[id].allocated_not_preemptible[i].value();
    }
  }
  return out;
}

model::OpenSums count_open_sums(const model::ClusterState& state) {
  model::OpenSums sums;
  sums.capacity = proportion_capacity(state);
  // The exact sums only when the state asks for them: a snapshot's are KAI's own additions.
  const bool exact = state.sum_order == model::SumOrder::EXACT;
  QueueSums queues(state.queue_tree);
  for (std::size_t j = 0; j < state.jobs.size(); ++j) {
    const JobId id(static_cast<JobId::value_type>(j));
    const model::Job& job = state.jobs[id];
    bool may_pend = !job.queue.valid(), may_be_stale = false;
    for (TaskId t : job.tasks) {
      const model::Task& task = state.tasks[t];
      may_pend = may_pend || task.status == model::TaskStatus::PENDING;  // PodPart::pending
      may_be_stale = may_be_stale || pod_may_be_stale(job, task);
      if (exact && job.queue.valid())
        queues.add(job.queue, job.preemptible, pod_part(state, task), +1);
    }
    if (may_pend) sums.may_pend.push_back(id);
    if (may_be_stale) sums.may_be_stale.push_back(id);
  }
  sums.queues = exact ? queues.values() : listed_sums(state);
  for (const model::Task& t : state.tasks) {
    sums.any_pod_anti_affinity =
        sums.any_pod_anti_affinity || !t.placement->pod_anti_affinity.empty();
    sums.any_preferred_pod_affinity = sums.any_preferred_pod_affinity ||
                                      !t.placement->preferred_pod_affinity.empty() ||
                                      !t.placement->preferred_pod_anti_affinity.empty();
  }
  return sums;
}

}  // namespace sim::sched
