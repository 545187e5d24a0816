#include "sim/sched/framework/job_order.hpp"

#include <algorithm>

#include "sim/core/assert.hpp"

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
  for (const auto& [name, n] : t.gpu.mig)
    gpus += static_cast<double>(model::mig_profile_gpus(name)) * static_cast<double>(n);
  if (t.is_gpu_memory_request() && gpu_memory_mib)
    gpus += t.gpu.memory_as_fraction(*gpu_memory_mib);
  at(q, Resource::GPU) = gpus;
  return q;
}

namespace {

ResourceVec plain_allocated_quantities(const Session& ssn, const JobView& job) {
  ResourceVec sum = ResourceVec::Zero();
  for (TaskId t : job.tasks) {
    const model::Task& task = ssn.state.tasks[t];
    if (model::is_allocated(task.status)) sum += request_quantities(task, std::nullopt);
  }
  return sum;
}

ResourceVec plain_tasks_to_allocate_quantities(const Session& ssn, const JobView& job) {
  ResourceVec sum = ResourceVec::Zero();
  for (TaskId id : tasks_to_allocate(ssn, job, false)) {
    sum += request_quantities(ssn.state.tasks[id], ssn.state.min_node_gpu_memory_mib);
  }
  return sum;
}

std::uint8_t memo_state(const model::Task& t) {
  return static_cast<std::uint8_t>(static_cast<unsigned>(t.status) |
                                   (t.virtual_status ? 0x80U : 0U));
}

// The memo holds when the view, its tree and every pod's status are what they were: the rest of
// what the plain computation reads (requests, PodSets, the task order, the nodes' GPU memory)
// does not change within a session.
bool memo_holds_by_reading(const Session& ssn, const JobView& job, const AllocationMemo& m) {
  if (m.session != &ssn || m.groups != job.groups.get() || m.tasks != job.tasks) return false;
  for (std::size_t i = 0; i < job.tasks.size(); ++i) {
    if (m.states[i] != memo_state(ssn.state.tasks[job.tasks[i]])) return false;
  }
  return true;
}

// The job and queue orders ask at every heap comparison: while no pod of the job has changed
// since the memo last held (the job's status epoch), it still holds.
bool memo_holds(const Session& ssn, const JobView& job, AllocationMemo& m) {
  if (m.session == &ssn && m.epoch >= ssn.job_status_epoch(job.id) &&
      m.groups == job.groups.get() && m.tasks.size() == job.tasks.size()) {
    SIM_ASSERT(memo_holds_by_reading(ssn, job, m));
    return true;
  }
  if (!memo_holds_by_reading(ssn, job, m)) return false;
  m.epoch = ssn.status_epoch();
  return true;
}

}  // namespace

AllocationMemo& current_allocation_memo(const Session& ssn, const JobView& job) {
  if (!job.allocation_memo) job.allocation_memo = std::make_shared<AllocationMemo>();
  AllocationMemo& memo = *job.allocation_memo;
  if (memo_holds(ssn, job, memo)) return memo;
  // A stale memo is refilled in place, so every copy of the view sees the new one.
  memo.session = &ssn;
  memo.groups = job.groups.get();
  memo.tasks = job.tasks;
  memo.states.clear();
  memo.states.reserve(job.tasks.size());
  for (TaskId t : job.tasks) memo.states.push_back(memo_state(ssn.state.tasks[t]));
  memo.epoch = ssn.status_epoch();
  memo.quantities.reset();
  memo.allocated.reset();
  memo.min_state.reset();
  return memo;
}

namespace {

// The memo's answer in `slot`, worked out from the pods when first asked for; Debug builds work
// it out again at every ask.
ResourceVec kept(std::optional<ResourceVec>& slot, const Session& ssn, const JobView& job,
                 ResourceVec (*plain)(const Session&, const JobView&)) {
  if (!slot) {
    slot = plain(ssn, job);
  } else {
    SIM_ASSERT((*slot == plain(ssn, job)).all());
  }
  return *slot;
}

}  // namespace

ResourceVec tasks_to_allocate_quantities(const Session& ssn, const JobView& job) {
  return kept(current_allocation_memo(ssn, job).quantities, ssn, job,
              plain_tasks_to_allocate_quantities);
}

ResourceVec allocated_quantities(const Session& ssn, const JobView& job) {
  return kept(current_allocation_memo(ssn, job).allocated, ssn, job, plain_allocated_quantities);
}

}  // namespace sim::sched
