#include "queue_ledger.hpp"

#include <algorithm>

#include "io/snapshot_fields.hpp"
#include "sim/sched/framework/session.hpp"

namespace sim::replay {

void QueueLedger::rebuild(const model::ClusterState& state) {
  *this = QueueLedger();
  open_ = sched::QueueSums(state.queue_tree);
  requested_.resize(state.queue_tree.size());
  capacity_ = sched::proportion_capacity(state);
  node_memory_mib_.assign(state.nodes.size(), 0);
  for (const model::Node& n : state.nodes) {
    if (n.unschedulable || !n.conditions_ok) continue;
    cluster_gpus_ += at(n.allocatable, Resource::GPU);
    node_memory_mib_[static_cast<std::size_t>(&n - &*state.nodes.begin())] = n.gpu_memory_mib;
  }
  pods_.reserve(state.tasks.size());
  for (const model::Task& t : state.tasks) {
    if (t.foreign) continue;  // in the capacity
    const Entry e = entry(state, t);
    apply(e, +1);
    std::string key = t.ns + "/" + t.name;
    if (e.may_pend) may_pend_.insert(key);
    if (e.may_be_stale) may_be_stale_.insert(key);
    pods_.emplace(std::move(key), e);
  }
}

bool QueueLedger::record(const model::ClusterState& state, const model::Task& task) {
  if (task.foreign) return false;
  Entry e = entry(state, task);
  auto [it, added] = pods_.try_emplace(task.ns + "/" + task.name);
  if (!added) apply(it->second, -1);
  apply(e, +1);
  if (e.may_pend)
    may_pend_.insert(it->first);
  else
    may_pend_.erase(it->first);
  if (e.may_be_stale)
    may_be_stale_.insert(it->first);
  else
    may_be_stale_.erase(it->first);
  it->second = std::move(e);
  return true;
}

void QueueLedger::forget(const std::string& pod) {
  auto it = pods_.find(pod);
  if (it == pods_.end()) return;
  apply(it->second, -1);
  may_pend_.erase(pod);
  may_be_stale_.erase(pod);
  pods_.erase(it);
}

QueueLedger::Entry QueueLedger::entry(const model::ClusterState& state,
                                      const model::Task& task) const {
  Entry e;
  e.part = sched::pod_part(state, task);
  if (task.job.valid()) {
    const model::Job& job = state.jobs[task.job];
    e.queue = job.queue;
    e.preemptible = job.preemptible;
    e.may_pend = e.part.pending || !job.queue.valid();
    e.may_be_stale = sched::pod_may_be_stale(job, task);
  }
  e.listed = !e.part.allocated && (task.status == model::TaskStatus::PENDING ||
                                   task.status == model::TaskStatus::PIPELINED);
  // What is not allocated counts as the scheduler quantifies a request: a MIG instance
  // `mig-Ng.*` as N GPUs, as KAI counts it against quotas (quantify_request).
  const ResourceVec requested =
      e.part.allocated ? ResourceVec::Zero() : sched::Session::quantify_request(task);
  for (std::size_t i = 0; i < kQuotaResources.size(); ++i) {
    e.request[i] =
        e.part.allocated ? e.part.amount[i] : ExactSum::term(at(requested, kQuotaResources[i]));
  }
  if (task.node.valid() && e.part.allocated && task.is_shared_gpu_allocation()) {
    e.node = task.node;
    e.groups = task.gpu_groups;
    e.mib = state.nodes[task.node].gpu_memory_of(task.gpu);
  }
  e.anti_affinity = !task.placement->pod_anti_affinity.empty();
  e.preferred_affinity = !task.placement->preferred_pod_affinity.empty() ||
                         !task.placement->preferred_pod_anti_affinity.empty();
  return e;
}

void QueueLedger::apply(const Entry& e, int sign) {
  if (e.queue.valid()) {
    open_.add(e.queue, e.preemptible, e.part, sign);
    if (e.part.allocated || e.listed) {
      for (QueueId q = e.queue; q.valid(); q = open_.parent(q)) {
        for (std::size_t i = 0; i < e.request.size(); ++i) {
          if (sign > 0)
            requested_[q][i].add(e.request[i]);
          else
            requested_[q][i].subtract(e.request[i]);
        }
      }
    }
  }
  for (const std::string& group : e.groups) add_to_group(e.node, group, e.mib, sign);
  pending_ += e.part.pending ? sign : 0;
  anti_affinity_ += e.anti_affinity ? sign : 0;
  preferred_affinity_ += e.preferred_affinity ? sign : 0;
}

// A group's idle memory is what its device has beyond what its pods use (the timeline's
// stranded memory, replay/metrics.cpp).
void QueueLedger::add_to_group(NodeId node, const std::string& group, std::int64_t mib, int sign) {
  const std::int64_t device = node_memory_mib_[node.index()];
  auto [it, added] = groups_.try_emplace({node, group});
  Group& g = it->second;
  if (!added) stranded_mib_ -= std::max<std::int64_t>(0, device - g.mib);
  g.pods += sign;
  g.mib += sign * mib;
  if (g.pods == 0) {
    groups_.erase(it);
    return;
  }
  stranded_mib_ += std::max<std::int64_t>(0, device - g.mib);
}

model::OpenSums QueueLedger::open_sums(const model::ClusterState& state) const {
  model::OpenSums sums;
  sums.capacity = capacity_;
  sums.queues = open_.values();
  auto jobs_of = [&](const std::set<std::string>& pods, std::vector<JobId>& jobs) {
    for (const std::string& pod : pods) {
      const std::size_t slash = pod.find('/');
      const TaskId id = io::find_task(state, std::string_view(pod).substr(0, slash),
                                      std::string_view(pod).substr(slash + 1));
      if (id.valid() && state.tasks[id].job.valid()) jobs.push_back(state.tasks[id].job);
    }
  };
  jobs_of(may_pend_, sums.may_pend);
  jobs_of(may_be_stale_, sums.may_be_stale);
  sums.any_pod_anti_affinity = anti_affinity_ > 0;
  sums.any_preferred_pod_affinity = preferred_affinity_ > 0;
  return sums;
}

IdVector<QueueId, TimelineSums> QueueLedger::timeline() const {
  const IdVector<QueueId, model::OpenSums::Queue> open = open_.values();
  IdVector<QueueId, TimelineSums> out(open.size());
  for (std::size_t i = 0; i < open.size(); ++i) {
    const QueueId q(static_cast<QueueId::value_type>(i));
    out[q].allocated = open[q].allocated;
    out[q].allocated_np = open[q].allocated_not_preemptible;
    for (std::size_t r = 0; r < kQuotaResources.size(); ++r)
      at(out[q].requested, kQuotaResources[r]) = requested_[q][r].value();
  }
  return out;
}

}  // namespace sim::replay
