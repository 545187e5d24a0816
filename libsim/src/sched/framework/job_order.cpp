#include "sim/sched/framework/job_order.hpp"

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

}  // namespace

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

bool has_tasks_to_allocate(const Session& ssn, const JobView& job, bool real_allocation) {
  for (TaskId t : job.tasks) {
    if (should_allocate(ssn.state.tasks[t], real_allocation)) return true;
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
