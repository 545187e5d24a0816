#include "sim/sched/framework/session.hpp"

#include <algorithm>
#include <string_view>
#include <utility>

#include "sched/plugins/dra.hpp"
#include "sched/plugins/numa.hpp"

#include "sim/core/assert.hpp"
#include "sim/fairshare/queue_quota.hpp"
#include "sim/sched/plugins/pod_sums.hpp"

namespace sim::sched {

Session::Session(model::ClusterState& cluster) : state(cluster), config(cluster.config) {
  if (!state.jobs_by_name.empty() && state.jobs_by_name.size() == state.jobs.size()) {
    jobs_by_name_ = state.jobs_by_name;
    SIM_ASSERT(std::is_sorted(jobs_by_name_.begin(), jobs_by_name_.end(),
                              [&](JobId a, JobId b) { return state.jobs[a].name < state.jobs[b].name; }));
  } else {
    // Sorted as (name, id) pairs: comparing names then needs no trip into each Job.
    std::vector<std::pair<std::string_view, JobId>> named;
    named.reserve(state.jobs.size());
    for (std::size_t i = 0; i < state.jobs.size(); ++i) {
      const JobId id(static_cast<JobId::value_type>(i));
      named.emplace_back(state.jobs[id].name, id);
    }
    std::sort(named.begin(), named.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    jobs_by_name_.reserve(named.size());
    for (const auto& [name, id] : named) jobs_by_name_.push_back(id);
  }
  // The pods' sums: a caller's that follows the pods from cycle to cycle, else counted now.
  const model::OpenSums sums = state.open_sums ? std::move(*state.open_sums) : count_open_sums(state);
  state.open_sums.reset();
  any_pod_anti_affinity = sums.any_pod_anti_affinity;
  any_preferred_pod_affinity = sums.any_preferred_pod_affinity;
  if (config.plugins.topology) topology.emplace(state);
  if (config.plugins.dynamic_resources) dra.emplace(state);
  if (config.plugins.numa) open_numa(*this);
  open_proportion(sums);
}

ResourceVec Session::quantify_accepted(const model::Task& task) {
  ResourceVec q = ResourceVec::Zero();
  at(q, Resource::CPU) = at(task.accepted, Resource::CPU);
  at(q, Resource::MEMORY) = at(task.accepted, Resource::MEMORY);
  double mig = 0;
  for (const auto& [name, n] : task.accepted_gpu.mig) {
    mig += static_cast<double>(model::mig_profile_gpus(name)) * static_cast<double>(n);
  }
  at(q, Resource::GPU) = at(task.accepted, Resource::GPU) + mig;
  return q;
}

ResourceVec Session::quantify_request(const model::Task& task) {
  ResourceVec q = ResourceVec::Zero();
  at(q, Resource::CPU) = at(task.request, Resource::CPU);
  at(q, Resource::MEMORY) = at(task.request, Resource::MEMORY);
  double mig = 0;
  for (const auto& [name, n] : task.gpu.mig) {
    mig += static_cast<double>(model::mig_profile_gpus(name)) * static_cast<double>(n);
  }
  at(q, Resource::GPU) = at(task.request, Resource::GPU) + mig;
  return q;
}

// proportion.go OnSessionOpen: capacity, queue attributes, current usage, then fair share once.
// The pods' usage is summed exactly (pod_sums.hpp), where KAI adds in the order of its maps.
void Session::open_proportion(const model::OpenSums& sums) {
  total = sums.capacity;
  queues = proportion_queues(state, sums);
  may_pend_.assign(state.jobs.size(), 0);
  for (JobId j : sums.may_pend) may_pend_[j.index()] = 1;
  may_stale_.assign(state.jobs.size(), 0);
  for (JobId j : sums.may_be_stale) may_stale_[j.index()] = 1;
}

IdVector<QueueId, fairshare::QueueShares> proportion_queues(const model::ClusterState& state, const model::OpenSums& sums) {
  IdVector<QueueId, fairshare::QueueShares> queues = open_queue_attributes(state);
  for (std::size_t i = 0; i < queues.size(); ++i) {
    const QueueId q(static_cast<QueueId::value_type>(i));
    for (Resource r : kQuotaResources) {
      queues[q][r].request = at(sums.queues[q].request, r);
      queues[q][r].allocated = at(sums.queues[q].allocated, r);
      queues[q][r].allocated_not_preemptible = at(sums.queues[q].allocated_not_preemptible, r);
    }
  }
  fairshare::compute_fair_shares(state.queue_tree, queues, sums.capacity, state.config.k_value);
  return queues;
}

// setTotalResources: schedulable nodes only, minus pods of other schedulers.
ResourceVec proportion_capacity(const model::ClusterState& state) {
  ResourceVec total = ResourceVec::Zero();
  for (const model::Node& n : state.nodes) {
    if (n.unschedulable || !n.conditions_ok) continue;
    ResourceVec node_total = ResourceVec::Zero();
    at(node_total, Resource::CPU) = at(n.allocatable, Resource::CPU);
    at(node_total, Resource::MEMORY) = at(n.allocatable, Resource::MEMORY);
    double mig = 0;
    for (const auto& [name, amount] : n.scalars_allocatable) {
      mig += static_cast<double>(model::mig_profile_gpus(name)) * amount;
    }
    at(node_total, Resource::GPU) = at(n.allocatable, Resource::GPU) + mig;
    for (const auto& [id, rec] : n.tasks) {
      const model::Task& t = state.tasks[id];
      if (t.foreign && model::is_active_used(rec.status)) node_total -= Session::quantify_request(t);
    }
    total += node_total;
  }
  return total;
}

IdVector<QueueId, fairshare::QueueShares> open_queue_attributes(const model::ClusterState& state) {
  IdVector<QueueId, fairshare::QueueShares> queues(state.queue_tree.size());
  for (QueueId q : state.queue_tree.level_order()) {
    queues[q] = fairshare::shares_from_spec(state.queues[q]);
    // createQueueResourceAttrs: usage by queue UID (= metadata.name); missing means 0.
    auto usage = state.queue_usage.find(state.queue_tree.uid(q));
    if (usage == state.queue_usage.end()) continue;
    for (Resource r : kQuotaResources) queues[q][r].usage = at(usage->second, r);
  }
  return queues;
}

void Session::on_allocate(const model::Task& task) {
  if (config.plugins.numa && task.node.valid()) numa_charge(state.nodes[task.node], task.numa_placement, -1);
  const model::Job& job = state.jobs[task.job];
  const ResourceVec amount = quantify_accepted(task);
  for (QueueId q = job.queue; q.valid(); q = state.queue_tree.parent(q)) {
    for (Resource r : kQuotaResources) {
      queues[q][r].allocated += at(amount, r);
      if (!job.preemptible) queues[q][r].allocated_not_preemptible += at(amount, r);
    }
  }
  if (config.plugins.dynamic_resources && !task.claims.empty()) dra_allocate(*this, task.id);
}

void Session::on_deallocate(const model::Task& task) {
  if (config.plugins.numa && task.node.valid()) numa_charge(state.nodes[task.node], task.numa_placement, +1);
  const model::Job& job = state.jobs[task.job];
  const ResourceVec amount = quantify_accepted(task);
  for (QueueId q = job.queue; q.valid(); q = state.queue_tree.parent(q)) {
    for (Resource r : kQuotaResources) {
      queues[q][r].allocated -= at(amount, r);
      if (!job.preemptible) queues[q][r].allocated_not_preemptible -= at(amount, r);
    }
  }
  if (config.plugins.dynamic_resources && !task.claims.empty()) dra_deallocate(*this, task.id);
}

const std::vector<std::uint32_t>& Session::node_name_ranks() {
  if (node_ranks_.size() == state.nodes.size()) return node_ranks_;
  std::vector<NodeId> ids;
  ids.reserve(state.nodes.size());
  for (std::size_t i = 0; i < state.nodes.size(); ++i) ids.emplace_back(static_cast<NodeId::value_type>(i));
  auto by_name = [&](NodeId a, NodeId b) { return state.nodes[a].name < state.nodes[b].name; };
  if (!std::is_sorted(ids.begin(), ids.end(), by_name)) std::stable_sort(ids.begin(), ids.end(), by_name);
  node_ranks_.resize(ids.size());
  for (std::size_t r = 0; r < ids.size(); ++r) node_ranks_[ids[r].index()] = static_cast<std::uint32_t>(r);
  return node_ranks_;
}

std::string Session::new_gpu_group_id(const model::Node& node) {
  return node.name + "-gpu-" + std::to_string(state.next_gpu_group++);
}

void Session::record_fit_error(JobId job, std::string message) {
  auto& errors = fit_errors[job];
  if (std::find(errors.begin(), errors.end(), message) == errors.end()) errors.push_back(std::move(message));
}

}  // namespace sim::sched
