#include "sim/sched/session.hpp"

#include <algorithm>
#include <string_view>
#include <utility>

#include "dra.hpp"
#include "numa.hpp"

#include "sim/core/assert.hpp"
#include "sim/fairshare/queue_quota.hpp"

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
  for (const model::Task& t : state.tasks) {
    any_pod_anti_affinity = any_pod_anti_affinity || !t.placement.pod_anti_affinity.empty();
    any_preferred_pod_affinity = any_preferred_pod_affinity || !t.placement.preferred_pod_affinity.empty() ||
                                 !t.placement.preferred_pod_anti_affinity.empty();
  }
  if (config.plugins.topology) topology.emplace(state);
  if (config.plugins.dynamic_resources) dra.emplace(state);
  if (config.plugins.numa) open_numa(*this);
  open_proportion();
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

namespace {

ResourceVec quantify_request(const model::Task& task) {
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

}  // namespace

// proportion.go OnSessionOpen: capacity, queue attributes, current usage, then fair share once.
void Session::open_proportion() {
  // setTotalResources: schedulable nodes only, minus pods of other schedulers.
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
      if (t.foreign && model::is_active_used(rec.status)) node_total -= quantify_request(t);
    }
    total += node_total;
  }

  queues.resize(state.queue_tree.size());
  for (QueueId q : state.queue_tree.level_order()) {
    queues[q] = fairshare::shares_from_spec(state.queues[q]);
    // createQueueResourceAttrs: usage by queue UID (= metadata.name); missing means 0.
    auto usage = state.queue_usage.find(state.queue_tree.uid(q));
    if (usage == state.queue_usage.end()) continue;
    for (Resource r : kQuotaResources) queues[q][r].usage = at(usage->second, r);
  }

  // updateQueuesCurrentResourceUsage, in a fixed order (KAI iterates maps): jobs by name, tasks
  // in pod order. The same walk notes which jobs have pending pods (a job without a queue may).
  may_pend_.assign(state.jobs.size(), 0);
  for (JobId j : jobs_by_name_) {
    const model::Job& job = state.jobs[j];
    if (!job.queue.valid()) {
      may_pend_[j.index()] = 1;
      continue;
    }
    for (TaskId t : job.tasks) {
      const model::Task& task = state.tasks[t];
      ResourceVec amount;
      const bool allocated = model::is_allocated(task.status);
      if (allocated) {
        amount = quantify_accepted(task);
      } else if (task.status == model::TaskStatus::PENDING) {
        may_pend_[j.index()] = 1;
        amount = quantify_request(task);
        if (task.is_gpu_memory_request() && state.min_node_gpu_memory_mib) {
          at(amount, Resource::GPU) += task.gpu.memory_as_fraction(*state.min_node_gpu_memory_mib);
        }
      } else {
        continue;
      }
      for (QueueId q = job.queue; q.valid(); q = state.queue_tree.parent(q)) {
        for (Resource r : kQuotaResources) {
          queues[q][r].request += at(amount, r);
          if (allocated) {
            queues[q][r].allocated += at(amount, r);
            if (!job.preemptible) queues[q][r].allocated_not_preemptible += at(amount, r);
          }
        }
      }
    }
  }
  fairshare::compute_fair_shares(state.queue_tree, queues, total, config.k_value);
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

std::string Session::new_gpu_group_id(const model::Node& node) {
  return node.name + "-gpu-" + std::to_string(state.next_gpu_group++);
}

void Session::record_fit_error(JobId job, std::string message) {
  auto& errors = fit_errors[job];
  if (std::find(errors.begin(), errors.end(), message) == errors.end()) errors.push_back(std::move(message));
}

}  // namespace sim::sched
