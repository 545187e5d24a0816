#include "sim/sched/framework/scenario.hpp"

#include <algorithm>

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
      victims(other.victims),
      slices(other.slices),
      potential_jobs_by_node(other.potential_jobs_by_node),
      victim_index(other.victim_index) {}

void Scenario::add_group(const Session& ssn, const std::vector<TaskId>& tasks) {
  const JobId job = ssn.state.tasks[tasks.front()].job;
  // A slice is a job clone (CloneWithTasks), which holds each pod once; the victim lists keep
  // every occurrence (KAI: actions/common/solvers/scenario/base_scenario.go
  // appendTasksAsVictimJob).
  std::vector<TaskId> slice;
  for (TaskId t : tasks) {
    if (std::find(slice.begin(), slice.end(), t) == slice.end()) slice.push_back(t);
  }
  auto [it, inserted] = victim_index.try_emplace(job, victims.size());
  if (inserted) {
    victims.emplace_back(job, tasks);
    slices.emplace_back();
  } else {
    auto& list = victims[it->second].second;
    list.insert(list.end(), tasks.begin(), tasks.end());
  }
  slices[it->second].push_back(std::move(slice));
}

void Scenario::add_potential(const Session& ssn, const std::vector<TaskId>& tasks) {
  if (tasks.empty()) return;
  potential.insert(potential.end(), tasks.begin(), tasks.end());
  add_group(ssn, tasks);
  for (TaskId t : tasks) {
    const model::Task& task = ssn.state.tasks[t];
    auto& jobs = potential_jobs_by_node[task.node];
    if (std::find(jobs.begin(), jobs.end(), task.job) == jobs.end()) jobs.push_back(task.job);
  }
}

}  // namespace sim::sched
