// A replay's kept state checked against a new snapshot of the same objects: used by Debug and
// sanitizer builds on every cycle that runs on a kept state.

#include "kept_state_check.hpp"

#ifndef NDEBUG  // the checks are assertions, which Release builds compile to nothing

#include <algorithm>

#include "sim/core/assert.hpp"
#include "sim/sched/cycle.hpp"
#include "sim/sched/plugins/proportion.hpp"

namespace sim::replay {
namespace {

bool same_vec(const ResourceVec& a, const ResourceVec& b) { return (a == b).all(); }

// Every field of a pod a cycle reads, but its ids.
void check_same_pod(const model::Task& x, const model::Task& y) {
  SIM_ASSERT(x.uid == y.uid && x.name == y.name && x.ns == y.ns && x.pod_set == y.pod_set);
  SIM_ASSERT(x.status == y.status && x.node == y.node && x.virtual_status == y.virtual_status);
  SIM_ASSERT(same_vec(x.request, y.request) && same_vec(x.accepted, y.accepted) &&
             x.scalars == y.scalars);
  SIM_ASSERT(x.received_type == y.received_type && x.gpu_groups == y.gpu_groups &&
             x.created_ns == y.created_ns);
  SIM_ASSERT(x.gpu.count == y.gpu.count && x.gpu.portion == y.gpu.portion &&
             x.gpu.memory_mib == y.gpu.memory_mib);
  SIM_ASSERT(x.accepted_gpu.count == y.accepted_gpu.count &&
             x.accepted_gpu.portion == y.accepted_gpu.portion);
  SIM_ASSERT(x.devices->numa_placement == y.devices->numa_placement &&
             x.devices->numa_record == y.devices->numa_record &&
             x.nominated_node == y.nominated_node);
}

void check_same_state(const model::ClusterState& a, const model::ClusterState& b) {
  SIM_ASSERT(a.tasks.size() == b.tasks.size() && a.jobs.size() == b.jobs.size() &&
             a.nodes.size() == b.nodes.size());
  SIM_ASSERT(a.now_ns == b.now_ns && a.next_gpu_group == b.next_gpu_group);
  for (const model::Task& x : a.tasks) {
    const model::Task& y = b.tasks[x.id];
    SIM_ASSERT(x.id == y.id && x.job == y.job);
    check_same_pod(x, y);
  }
  for (std::size_t i = 0; i < a.jobs.size(); ++i) {
    const JobId id(static_cast<JobId::value_type>(i));
    const model::Job& x = a.jobs[id];
    const model::Job& y = b.jobs[id];
    SIM_ASSERT(x.name == y.name && x.ns == y.ns && x.queue == y.queue && x.priority == y.priority &&
               x.preemptible == y.preemptible);
    SIM_ASSERT(x.created_ns == y.created_ns && x.last_start_ns == y.last_start_ns &&
               x.stale_since_ns == y.stale_since_ns);
    SIM_ASSERT(x.tasks == y.tasks && x.problem == y.problem && x.groups == y.groups);
  }
  for (std::size_t i = 0; i < a.nodes.size(); ++i) {
    const NodeId id(static_cast<NodeId::value_type>(i));
    const model::Node& x = a.nodes[id];
    const model::Node& y = b.nodes[id];
    SIM_ASSERT(x.name == y.name && same_vec(x.idle, y.idle) && same_vec(x.used, y.used) &&
               same_vec(x.releasing, y.releasing));
    SIM_ASSERT(x.scalars_idle == y.scalars_idle && x.scalars_releasing == y.scalars_releasing);
    SIM_ASSERT(x.used_shared_mib == y.used_shared_mib &&
               x.releasing_shared_mib == y.releasing_shared_mib);
    SIM_ASSERT(x.allocated_shared_mib == y.allocated_shared_mib &&
               x.releasing_shared_gpus == y.releasing_shared_gpus);
    SIM_ASSERT(x.tasks.size() == y.tasks.size() && x.legacy_mig_tasks == y.legacy_mig_tasks);
    for (const auto& [task, rec] : x.tasks) {
      auto other = y.tasks.find(task);
      SIM_ASSERT(other != y.tasks.end() && other->second.status == rec.status &&
                 same_vec(other->second.tracked, rec.tracked));
      SIM_ASSERT(other->second.gpu_groups == rec.gpu_groups &&
                 other->second.gpu_memory_mib == rec.gpu_memory_mib);
    }
  }
}

void check_same_queues(const IdVector<QueueId, fairshare::QueueShares>& a,
                       const IdVector<QueueId, fairshare::QueueShares>& b) {
  SIM_ASSERT(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    const QueueId q(static_cast<QueueId::value_type>(i));
    for (Resource r : {Resource::CPU, Resource::MEMORY, Resource::GPU}) {
      const fairshare::ResourceShare& x = a[q][r];
      const fairshare::ResourceShare& y = b[q][r];
      SIM_ASSERT(x.fair_share == y.fair_share && x.deserved == y.deserved &&
                 x.max_allowed == y.max_allowed);
      SIM_ASSERT(x.allocated == y.allocated &&
                 x.allocated_not_preemptible == y.allocated_not_preemptible);
      SIM_ASSERT(x.request == y.request);
    }
  }
}

}  // namespace

void check_kept_state(const model::ClusterState& kept, model::ClusterState& fresh,
                      const IdVector<QueueId, fairshare::QueueShares>* light) {
  check_same_state(kept, fresh);
  if (light) {
    check_queues_without_cycle(fresh, *light);
    return;
  }
  const sched::Session full = sched::run_cycle(fresh);
  model::ClusterState copy = kept;
  const sched::Session other = sched::run_cycle(copy);
  SIM_ASSERT(full.binds.size() == other.binds.size() &&
             full.pipelines.size() == other.pipelines.size());
  SIM_ASSERT(full.evictions.size() == other.evictions.size());
  for (std::size_t i = 0; i < full.binds.size(); ++i) {
    SIM_ASSERT(full.binds[i].task == other.binds[i].task &&
               full.binds[i].node == other.binds[i].node);
    SIM_ASSERT(full.binds[i].gpu_groups == other.binds[i].gpu_groups);
  }
  check_same_queues(*sched::queue_shares(full), *sched::queue_shares(other));
}

void check_queues_without_cycle(model::ClusterState& fresh,
                                const IdVector<QueueId, fairshare::QueueShares>& queues) {
  const sched::Session full = sched::run_cycle(fresh);
  SIM_ASSERT(full.binds.empty() && full.pipelines.empty() && full.evictions.empty());
  check_same_queues(*sched::queue_shares(full), queues);
}

void check_ledger(const QueueLedger& ledger, const model::ClusterState& state) {
  QueueLedger fresh;
  fresh.rebuild(state);
  const model::OpenSums a = ledger.open_sums(state), b = fresh.open_sums(state);
  SIM_ASSERT(same_vec(a.capacity, b.capacity) && a.queues.size() == b.queues.size());
  for (std::size_t i = 0; i < a.queues.size(); ++i) {
    const QueueId q(static_cast<QueueId::value_type>(i));
    SIM_ASSERT(same_vec(a.queues[q].request, b.queues[q].request) &&
               same_vec(a.queues[q].allocated, b.queues[q].allocated));
    SIM_ASSERT(
        same_vec(a.queues[q].allocated_not_preemptible, b.queues[q].allocated_not_preemptible));
  }
  auto same_jobs = [](std::vector<JobId> x, std::vector<JobId> y) {
    std::sort(x.begin(), x.end());
    std::sort(y.begin(), y.end());
    x.erase(std::unique(x.begin(), x.end()), x.end());
    y.erase(std::unique(y.begin(), y.end()), y.end());
    return x == y;
  };
  SIM_ASSERT(same_jobs(a.may_pend, b.may_pend) && same_jobs(a.may_be_stale, b.may_be_stale));
  SIM_ASSERT(a.any_pod_anti_affinity == b.any_pod_anti_affinity &&
             a.any_preferred_pod_affinity == b.any_preferred_pod_affinity);
  const auto ta = ledger.timeline(), tb = fresh.timeline();
  for (std::size_t i = 0; i < ta.size(); ++i) {
    const QueueId q(static_cast<QueueId::value_type>(i));
    SIM_ASSERT(same_vec(ta[q].allocated, tb[q].allocated) &&
               same_vec(ta[q].allocated_np, tb[q].allocated_np));
    SIM_ASSERT(same_vec(ta[q].requested, tb[q].requested));
  }
  SIM_ASSERT(ledger.stranded_mib() == fresh.stranded_mib() &&
             ledger.cluster_gpus() == fresh.cluster_gpus());
  SIM_ASSERT(ledger.any_pending() == fresh.any_pending());
}

}  // namespace sim::replay

#endif
