#include "sim/sched/job_order.hpp"

#include <algorithm>

namespace sim::sched {
namespace {

int role_rank(const model::Task& t) {
  // kubeflow plugin: master/launcher first; ray plugin: head first.
  auto role = t.labels.find("training.kubeflow.org/job-role");
  if (role != t.labels.end() && (role->second == "master" || role->second == "launcher")) return 0;
  auto ray = t.labels.find("ray.io/node-type");
  if (ray != t.labels.end() && ray->second == "head") return 0;
  return 1;
}

// elastic minAvailableState: 0 below min, 1 exactly at min, 2 above.
int min_available_state(const Session& ssn, const JobView& job) {
  const std::int64_t active = active_allocated_count(ssn, job);
  if (active < job.min_available) return 0;
  return active == job.min_available ? 1 : 2;
}

}  // namespace

JobView full_view(const Session& ssn, JobId job) {
  const model::Job& j = ssn.state.jobs[job];
  return JobView{job, j.tasks, j.min_available};
}

bool task_before(const model::Task& a, const model::Task& b) {
  const int ra = role_rank(a), rb = role_rank(b);
  if (ra != rb) return ra < rb;
  if (a.has_task_priority != b.has_task_priority) return a.has_task_priority;
  if (a.has_task_priority && a.task_priority != b.task_priority) return a.task_priority > b.task_priority;
  if (a.created_ns != b.created_ns) return a.created_ns < b.created_ns;
  return a.uid < b.uid;
}

bool job_before(const Session& ssn, const JobView& a, const JobView& b) {
  const model::Job& ja = ssn.state.jobs[a.id];
  const model::Job& jb = ssn.state.jobs[b.id];
  if (ja.priority != jb.priority) return ja.priority > jb.priority;
  const int sa = min_available_state(ssn, a), sb = min_available_state(ssn, b);
  if (sa != sb) return sa < sb;
  if (ja.created_ns != jb.created_ns) return ja.created_ns < jb.created_ns;
  return ja.name < jb.name;
}

std::int64_t active_allocated_count(const Session& ssn, const JobView& job) {
  std::int64_t n = 0;
  for (TaskId t : job.tasks) n += model::is_active_allocated(ssn.state.tasks[t].status) ? 1 : 0;
  return n;
}

std::int64_t active_used_count(const Session& ssn, const JobView& job) {
  std::int64_t n = 0;
  for (TaskId t : job.tasks) n += model::is_active_used(ssn.state.tasks[t].status) ? 1 : 0;
  return n;
}

bool should_allocate(const model::Task& task, bool real_allocation) {
  if (task.status == model::TaskStatus::PENDING) return true;
  return !real_allocation && task.status == model::TaskStatus::RELEASING && task.virtual_status;
}

std::vector<TaskId> tasks_to_allocate(const Session& ssn, const JobView& job, bool real_allocation) {
  std::vector<TaskId> candidates;
  for (TaskId t : job.tasks) {
    if (should_allocate(ssn.state.tasks[t], real_allocation)) candidates.push_back(t);
  }
  if (candidates.empty()) return candidates;
  std::sort(candidates.begin(), candidates.end(),
            [&](TaskId a, TaskId b) { return task_before(ssn.state.tasks[a], ssn.state.tasks[b]); });
  const std::int64_t active = active_allocated_count(ssn, job);
  const std::int64_t wanted = active >= job.min_available ? 1 : job.min_available - active;
  candidates.resize(std::min<std::size_t>(candidates.size(), static_cast<std::size_t>(wanted)));
  return candidates;
}

std::vector<TaskId> tasks_to_evict(const Session& ssn, const JobView& job, bool& more_left) {
  std::vector<TaskId> active;
  for (TaskId t : job.tasks) {
    if (model::is_active_allocated(ssn.state.tasks[t].status)) active.push_back(t);
  }
  // Reverse task order: the least important pod first.
  std::sort(active.begin(), active.end(),
            [&](TaskId a, TaskId b) { return task_before(ssn.state.tasks[b], ssn.state.tasks[a]); });
  std::vector<TaskId> out;
  if (static_cast<std::int64_t>(active.size()) > job.min_available) {
    out.push_back(active.front());  // elastic surplus: one pod at a time
  } else {
    out = active;
  }
  more_left = out.size() < active.size();
  return out;
}

bool is_ready_for_scheduling(const Session& ssn, const JobView& job) {
  std::int64_t alive = 0, gated = 0;
  for (TaskId t : job.tasks) {
    const model::TaskStatus s = ssn.state.tasks[t].status;
    alive += model::is_alive(s) ? 1 : 0;
    gated += s == model::TaskStatus::GATED ? 1 : 0;
  }
  return alive - gated >= job.min_available;
}

bool should_pipeline_job(const Session& ssn, const JobView& job) {
  bool has_pipelined = false;
  std::int64_t active_not_pipelined = 0;
  for (TaskId t : job.tasks) {
    const model::TaskStatus s = ssn.state.tasks[t].status;
    if (s == model::TaskStatus::PIPELINED) has_pipelined = true;
    else if (model::is_active_allocated(s)) ++active_not_pipelined;
  }
  return has_pipelined && active_not_pipelined < job.min_available;
}

bool is_gang_satisfied(const Session& ssn, const JobView& job) {
  return active_used_count(ssn, job) >= job.min_available;
}

bool has_tasks_to_allocate(const Session& ssn, const JobView& job, bool real_allocation) {
  for (TaskId t : job.tasks) {
    if (should_allocate(ssn.state.tasks[t], real_allocation)) return true;
  }
  return false;
}

bool has_pending_task(const Session& ssn, const JobView& job) {
  for (TaskId t : job.tasks) {
    if (ssn.state.tasks[t].status == model::TaskStatus::PENDING) return true;
  }
  return false;
}

ResourceVec request_quantities(const model::Task& t, std::optional<std::int64_t> gpu_memory_mib) {
  ResourceVec q = ResourceVec::Zero();
  at(q, Resource::CPU) = at(t.request, Resource::CPU);
  at(q, Resource::MEMORY) = at(t.request, Resource::MEMORY);
  double gpus = at(t.request, Resource::GPU);
  for (const auto& [name, n] : t.gpu.mig) gpus += static_cast<double>(model::mig_profile_gpus(name)) * static_cast<double>(n);
  if (t.is_gpu_memory_request() && gpu_memory_mib) gpus += t.gpu.memory_as_fraction(*gpu_memory_mib);
  at(q, Resource::GPU) = gpus;
  return q;
}

ResourceVec tasks_to_allocate_quantities(const Session& ssn, const JobView& job) {
  ResourceVec sum = ResourceVec::Zero();
  for (TaskId id : tasks_to_allocate(ssn, job, false)) {
    sum += request_quantities(ssn.state.tasks[id], ssn.state.min_node_gpu_memory_mib);
  }
  return sum;
}

}  // namespace sim::sched
