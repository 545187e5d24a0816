#include "sim/sched/framework/job_order.hpp"

#include <algorithm>

namespace sim::sched {
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
