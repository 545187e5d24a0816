#include "sim/sched/framework/session.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>

#include "sim/core/assert.hpp"
#include "sim/sched/framework/gang.hpp"
#include "sim/sched/framework/pod_sums.hpp"

namespace sim::sched {

namespace {

// Each session counts its status changes from a start of its own, so a memo left from an earlier
// session at the same address never matches (2^32 changes per session; 0 is "never").
std::uint64_t first_status_epoch() {
  static std::atomic<std::uint64_t> sessions{0};
  return (sessions.fetch_add(1, std::memory_order_relaxed) + 1) << 32;
}

// A job with its name's first 16 bytes as two big-endian words, zero-padded. Where two names
// differ within those bytes the words order them as the text does; where the words are equal
// (a name that is a prefix of the other, or longer names alike so far) the text decides.
struct NamedJob {
  std::uint64_t head = 0, next = 0;
  std::string_view name;
  JobId id;

  static NamedJob of(std::string_view name, JobId id) {
    std::array<unsigned char, 16> bytes{};
    std::memcpy(bytes.data(), name.data(), std::min(name.size(), bytes.size()));
    NamedJob n{.name = name, .id = id};
    for (std::size_t i = 0; i < 8; ++i) n.head = (n.head << 8) | bytes[i];
    for (std::size_t i = 8; i < 16; ++i) n.next = (n.next << 8) | bytes[i];
    return n;
  }
  bool operator<(const NamedJob& o) const {
    if (head != o.head) return head < o.head;
    if (next != o.next) return next < o.next;
    return name < o.name;
  }
};

}  // namespace

Session::Session(model::ClusterState& cluster, std::vector<std::unique_ptr<Plugin>> plugins)
    : state(cluster),
      config(cluster.config),
      plugins_(std::move(plugins)),
      status_epoch_(first_status_epoch()) {
  if (!state.jobs_by_name.empty() && state.jobs_by_name.size() == state.jobs.size()) {
    jobs_by_name_ = state.jobs_by_name;
    SIM_ASSERT(std::is_sorted(jobs_by_name_.begin(), jobs_by_name_.end(), [&](JobId a, JobId b) {
      return state.jobs[a].name < state.jobs[b].name;
    }));
  } else {
    // Sorted with each name's first bytes beside it: comparing names then needs no trip into
    // each Job, and most comparisons no text. Every comparison answers as the names' would, so
    // std::sort leaves equal names in the order it always did.
    std::vector<NamedJob> named;
    named.reserve(state.jobs.size());
    for (std::size_t i = 0; i < state.jobs.size(); ++i) {
      const JobId id(static_cast<JobId::value_type>(i));
      named.push_back(NamedJob::of(state.jobs[id].name, id));
    }
    std::sort(named.begin(), named.end());
    jobs_by_name_.reserve(named.size());
    for (const NamedJob& n : named) jobs_by_name_.push_back(n.id);
    SIM_ASSERT(std::is_sorted(jobs_by_name_.begin(), jobs_by_name_.end(), [&](JobId a, JobId b) {
      return state.jobs[a].name < state.jobs[b].name;
    }));
  }
  // The pods' sums: a caller's that follows the pods from cycle to cycle, else counted now.
  sums_ = state.open_sums ? std::move(*state.open_sums) : count_open_sums(state);
  state.open_sums.reset();
  job_changed_.assign(state.jobs.size(), status_epoch_);
  may_pend_.assign(state.jobs.size(), 0);
  for (JobId j : sums_.may_pend) may_pend_[j.index()] = 1;
  may_stale_.assign(state.jobs.size(), 0);
  for (JobId j : sums_.may_be_stale) may_stale_[j.index()] = 1;
  any_pod_anti_affinity_ = sums_.any_pod_anti_affinity;
  for (const auto& p : plugins_) p->on_session_open(*this);
  sums_ = {};
}

void Session::note_node_change(NodeId id) {
  // Bounded: past a few changes per node the readers score every node again anyway.
  if (node_changes_.size() >= node_log_bound_) {
    node_changes_.clear();
    ++node_change_generation_;
  }
  node_changes_.push_back(id);
}

void Session::log_node_changes(bool on, std::size_t changes_per_node, std::size_t beyond) {
  node_log_on_ = on;
  node_log_bound_ = changes_per_node * state.nodes.size() + beyond;
  if (on) return;
  node_changes_.clear();
  ++node_change_generation_;
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
      if (t.foreign && model::is_active_used(rec.status))
        node_total -= Session::quantify_request(t);
    }
    total += node_total;
  }
  return total;
}

void Session::on_allocate(const model::Task& task) {
  ++allocation_epoch_;
  for (const auto& fn : hooks.on_allocate) fn(*this, task);
}

void Session::on_deallocate(const model::Task& task) {
  ++allocation_epoch_;
  for (const auto& fn : hooks.on_deallocate) fn(*this, task);
}

bool Session::queue_before(QueueId left, QueueId right, const JobView* left_job,
                           const JobView* right_job,
                           const std::vector<const JobView*>& left_victims,
                           const std::vector<const JobView*>& right_victims) const {
  for (const auto& fn : hooks.queue_order) {
    if (const int c = fn(*this, left, right, left_job, right_job, left_victims, right_victims);
        c != 0)
      return c < 0;
  }
  const model::QueueSpec& l = state.queues[left];
  const model::QueueSpec& r = state.queues[right];
  if (l.created != r.created) return l.created < r.created;
  return state.queue_tree.uid(left) < state.queue_tree.uid(right);
}

std::string Session::pre_predicate(const model::Task& task) {
  for (const auto& fn : hooks.pre_predicates) {
    if (std::string why = fn(*this, task); !why.empty()) return why;
  }
  return {};
}

bool Session::numa_placement(const model::Task& task, const model::Node& node,
                             std::vector<model::ZoneAmounts>* placement) const {
  if (!hooks.numa_placement) {
    if (placement) placement->clear();
    return true;
  }
  return hooks.numa_placement(*this, task, node, placement);
}

CapacityVerdict Session::job_over_capacity(JobId job, const std::vector<TaskId>& tasks) const {
  return hooks.job_over_capacity ? hooks.job_over_capacity(*this, job, tasks) : std::nullopt;
}

CapacityVerdict Session::non_preemptible_over_quota(JobId job,
                                                    const std::vector<TaskId>& tasks) const {
  return hooks.non_preemptible_over_quota ? hooks.non_preemptible_over_quota(*this, job, tasks)
                                          : std::nullopt;
}

CapacityVerdict Session::task_on_node_over_capacity(TaskId task, NodeId node) const {
  return hooks.task_on_node_over_capacity ? hooks.task_on_node_over_capacity(*this, task, node)
                                          : std::nullopt;
}

bool Session::can_reclaim_resources(const JobView& reclaimer) const {
  return hooks.can_reclaim_resources && hooks.can_reclaim_resources(*this, reclaimer);
}

void Session::on_job_solution_start() const {
  for (const auto& fn : hooks.on_job_solution_start) fn(*this);
}

bool Session::reclaim_victim_allowed(const JobView& reclaimer, const ResourceVec& reclaimer_request,
                                     JobId victim) const {
  return std::all_of(
      hooks.reclaim_victim_filters.begin(), hooks.reclaim_victim_filters.end(),
      [&](const auto& fn) { return fn(*this, reclaimer, reclaimer_request, victim); });
}

bool Session::reclaim_victim_queue_allowed(const JobView& reclaimer,
                                           const ResourceVec& reclaimer_request,
                                           QueueId victim_queue) const {
  return std::all_of(
      hooks.reclaim_victim_queue_filters.begin(), hooks.reclaim_victim_queue_filters.end(),
      [&](const auto& fn) { return fn(*this, reclaimer, reclaimer_request, victim_queue); });
}

bool Session::reclaim_scenario_valid(const Scenario& scenario) const {
  return std::all_of(hooks.reclaim_scenario_validators.begin(),
                     hooks.reclaim_scenario_validators.end(),
                     [&](const auto& fn) { return fn(*this, scenario); });
}

bool Session::preempt_victim_allowed(const JobView& preemptor, JobId victim) const {
  return std::all_of(hooks.preempt_victim_filters.begin(), hooks.preempt_victim_filters.end(),
                     [&](const auto& fn) { return fn(*this, preemptor, victim); });
}

bool Session::preempt_scenario_valid(const Scenario& scenario) const {
  return std::all_of(hooks.preempt_scenario_validators.begin(),
                     hooks.preempt_scenario_validators.end(),
                     [&](const auto& fn) { return fn(*this, scenario); });
}

std::optional<std::vector<std::vector<NodeId>>> Session::subset_nodes(
    JobId job, const SubgroupScope& scope, const std::vector<TaskId>& tasks,
    const std::vector<NodeId>& nodes, std::string& why) const {
  std::vector<std::vector<NodeId>> sets{nodes};
  for (const auto& fn : hooks.subset_nodes) {
    std::vector<std::vector<NodeId>> next;
    for (const std::vector<NodeId>& set : sets) {
      auto split = fn(*this, job, scope, tasks, set, why);
      if (!split) return std::nullopt;
      next.insert(next.end(), std::make_move_iterator(split->begin()),
                  std::make_move_iterator(split->end()));
    }
    sets = std::move(next);
  }
  return sets;
}

void Session::pre_job_allocation(JobId job) const {
  for (const auto& fn : hooks.pre_job_allocation) fn(*this, job);
}

std::shared_ptr<AllocationMemo> Session::full_view_memo(JobId job) const {
  if (full_view_memos_.empty()) full_view_memos_.resize(state.jobs.size());
  std::shared_ptr<AllocationMemo>& memo = full_view_memos_[job.index()];
  if (!memo) memo = std::make_shared<AllocationMemo>();
  return memo;
}

const std::vector<std::vector<std::uint32_t>>& Session::jobs_by_queue() {
  if (jobs_by_queue_known_) return jobs_by_queue_;
  jobs_by_queue_known_ = true;
  jobs_by_queue_.resize(state.queue_tree.size());
  for (std::size_t p = 0; p < jobs_by_name_.size(); ++p) {
    const QueueId q = state.jobs[jobs_by_name_[p]].queue;
    if (q.valid()) jobs_by_queue_[q.index()].push_back(static_cast<std::uint32_t>(p));
  }
  return jobs_by_queue_;
}

const std::vector<std::uint32_t>& Session::job_name_ranks() {
  if (job_ranks_known_) return job_ranks_;
  job_ranks_known_ = true;
  for (std::size_t r = 1; r < jobs_by_name_.size(); ++r) {
    if (state.jobs[jobs_by_name_[r - 1]].name == state.jobs[jobs_by_name_[r]].name)
      return job_ranks_;
  }
  job_ranks_.resize(jobs_by_name_.size());
  for (std::size_t r = 0; r < jobs_by_name_.size(); ++r)
    job_ranks_[jobs_by_name_[r].index()] = static_cast<std::uint32_t>(r);
  return job_ranks_;
}

const std::vector<std::uint32_t>& Session::node_name_ranks() {
  if (node_ranks_.size() == state.nodes.size()) return node_ranks_;
  std::vector<NodeId> ids;
  ids.reserve(state.nodes.size());
  for (std::size_t i = 0; i < state.nodes.size(); ++i)
    ids.emplace_back(static_cast<NodeId::value_type>(i));
  auto by_name = [&](NodeId a, NodeId b) { return state.nodes[a].name < state.nodes[b].name; };
  if (!std::is_sorted(ids.begin(), ids.end(), by_name))
    std::stable_sort(ids.begin(), ids.end(), by_name);
  node_ranks_.resize(ids.size());
  for (std::size_t r = 0; r < ids.size(); ++r)
    node_ranks_[ids[r].index()] = static_cast<std::uint32_t>(r);
  return node_ranks_;
}

std::string Session::new_gpu_group_id(const model::Node& node) {
  return node.name + "-gpu-" + std::to_string(state.next_gpu_group++);
}

void Session::record_fit_error(JobId job, WaitReason reason) {
  auto& errors = fit_errors[job];
  auto same = [&](const WaitReason& r) { return r.message == reason.message; };
  if (std::find_if(errors.begin(), errors.end(), same) == errors.end())
    errors.push_back(std::move(reason));
}

std::unique_ptr<Plugin> PluginRegistry::build(const model::PluginOption& option) const {
  auto it = builders_.find(option.name);
  return it == builders_.end() ? nullptr : it->second(option);
}

std::vector<std::unique_ptr<Plugin>> PluginRegistry::build_all(
    const std::vector<model::PluginOption>& list) const {
  std::vector<std::unique_ptr<Plugin>> plugins;
  for (const model::PluginOption& option : list) {
    if (auto p = build(option)) plugins.push_back(std::move(p));
  }
  return plugins;
}

}  // namespace sim::sched
