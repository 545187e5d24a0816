#include "sim/sched/framework/scenario.hpp"

#include <algorithm>
#include <stdexcept>

namespace sim::sched {

Scenario::Scenario(const Session& ssn, std::shared_ptr<const ProbeSetup> probe)
    : setup(std::move(probe)),
      preemptor(setup->preemptor),
      pending(setup->pending),
      recorded_tasks(setup->recorded_tasks) {
  for (const JobView& job : setup->recorded_jobs) {
    if (!job.tasks.empty()) add_group(ssn, job.tasks);
  }
}

// The references point into the shared setup, which the copy shares too.
Scenario::Scenario(const Scenario& other)
    : setup(other.setup),
      preemptor(setup->preemptor),
      pending(setup->pending),
      recorded_tasks(setup->recorded_tasks),
      potential(other.potential),
      slices(other.slices),
      slice_tasks(other.slice_tasks),
      raw_tasks(other.raw_tasks),
      victim_jobs(other.victim_jobs),
      victim_index(other.victim_index),
      potential_node_jobs(other.potential_node_jobs),
      first_node_job(other.first_node_job) {}

void Scenario::add_group(const Session& ssn, const std::vector<TaskId>& tasks) {
  const JobId job = ssn.state.tasks[tasks.front()].job;
  const auto slice_index = static_cast<std::uint32_t>(slices.size());
  VictimSlice& slice = slices.emplace_back();
  slice.job = job;
  // A slice is a job clone (CloneWithTasks), which holds each pod once; the victim lists keep
  // every occurrence (KAI: actions/common/solvers/scenario/base_scenario.go
  // appendTasksAsVictimJob).
  slice.begin = static_cast<std::uint32_t>(slice_tasks.size());
  for (TaskId t : tasks) {
    const auto first = slice_tasks.begin() + slice.begin;
    if (std::find(first, slice_tasks.end(), t) == slice_tasks.end()) slice_tasks.push_back(t);
  }
  slice.end = static_cast<std::uint32_t>(slice_tasks.size());
  slice.raw_begin = static_cast<std::uint32_t>(raw_tasks.size());
  raw_tasks.insert(raw_tasks.end(), tasks.begin(), tasks.end());
  slice.raw_end = static_cast<std::uint32_t>(raw_tasks.size());
  auto job_at = [&](std::uint32_t p) { return victim_jobs[p].job.value(); };
  if (const std::uint32_t p = victim_index.find(job.value(), job_at); p == PositionIndex::kNone) {
    victim_index.insert(job.value(), static_cast<std::uint32_t>(victim_jobs.size()), job_at);
    victim_jobs.push_back({job, slice_index, slice_index});
  } else {
    VictimJob& v = victim_jobs[p];
    slices[v.last].next = slice_index;
    v.last = slice_index;
  }
}

std::uint32_t Scenario::position_of(JobId job) const {
  const std::uint32_t p =
      victim_index.find(job.value(), [&](std::uint32_t i) { return victim_jobs[i].job.value(); });
  if (p == PositionIndex::kNone) throw std::out_of_range("Scenario: not a victim job");
  return p;
}

std::vector<JobId> Scenario::potential_jobs_on(NodeId node) const {
  std::vector<JobId> jobs;
  const std::uint32_t first = first_node_job.find(
      node.value(), [&](std::uint32_t i) { return potential_node_jobs[i].node.value(); });
  for (std::uint32_t i = first; i != PositionIndex::kNone; i = potential_node_jobs[i].next)
    jobs.push_back(potential_node_jobs[i].job);
  return jobs;
}

void Scenario::add_potential(const Session& ssn, const std::vector<TaskId>& tasks) {
  if (tasks.empty()) return;
  potential.insert(potential.end(), tasks.begin(), tasks.end());
  add_group(ssn, tasks);
  for (TaskId t : tasks) {
    const model::Task& task = ssn.state.tasks[t];
    const auto added = static_cast<std::uint32_t>(potential_node_jobs.size());
    auto node_at = [&](std::uint32_t i) { return potential_node_jobs[i].node.value(); };
    std::uint32_t i = first_node_job.find(task.node.value(), node_at);
    if (i == PositionIndex::kNone) {
      potential_node_jobs.push_back({task.node, task.job});
      first_node_job.insert(task.node.value(), added, node_at);
      continue;
    }
    for (;; i = potential_node_jobs[i].next) {  // the node's pairs: is this job among them?
      if (potential_node_jobs[i].job == task.job) break;
      if (potential_node_jobs[i].next == PositionIndex::kNone) {
        potential_node_jobs[i].next = added;
        potential_node_jobs.push_back({task.node, task.job});
        break;
      }
    }
  }
}

std::uint32_t Scenario::slice_of(JobId job, TaskId t) const {
  std::uint32_t found = VictimSlice::kNone;
  for_each_slice(job, [&](std::uint32_t index, const VictimSlice& s) {
    const std::span<const TaskId> p = pods(s);
    if (std::find(p.begin(), p.end(), t) == p.end()) return false;
    found = index;
    return true;
  });
  return found;
}

std::vector<std::pair<JobId, std::vector<TaskId>>> Scenario::victims() const {
  std::vector<std::pair<JobId, std::vector<TaskId>>> out;
  out.reserve(victim_jobs.size());
  for (const VictimJob& v : victim_jobs) {
    std::vector<TaskId>& tasks = out.emplace_back(v.job, std::vector<TaskId>{}).second;
    for (std::uint32_t s = v.first; s != VictimSlice::kNone; s = slices[s].next) {
      tasks.insert(tasks.end(), raw_tasks.begin() + slices[s].raw_begin,
                   raw_tasks.begin() + slices[s].raw_end);
    }
  }
  return out;
}

}  // namespace sim::sched
