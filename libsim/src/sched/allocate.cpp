// Action "allocate" and the AllocateJob routine every action uses
// (actions/allocate/allocate.go, actions/common/allocate.go, gpu_sharing/gpuSharing.go).

#include <algorithm>

#include "sim/sched/actions.hpp"
#include "sim/sched/job_order.hpp"
#include "sim/sched/job_queue.hpp"
#include "sim/sched/node_fit.hpp"
#include "sim/sched/proportion.hpp"

namespace sim::sched {
namespace {

bool allocate_shared_gpu_task(Session& ssn, Statement& stmt, TaskId task_id, NodeId node_id, bool pipeline_only) {
  model::Task& task = ssn.state.tasks[task_id];
  std::optional<GpuChoice> choice = preferable_gpus(ssn, ssn.state.nodes[node_id], task, pipeline_only, true);
  if (!choice) return false;
  task.gpu_groups = choice->groups;
  if (pipeline_only || choice->releasing) {
    stmt.pipeline(task_id, node_id, false);
  } else {
    stmt.allocate(task_id, node_id);
  }
  return true;
}

bool allocate_task_to_node(Session& ssn, Statement& stmt, TaskId task_id, NodeId node_id, bool pipeline_only) {
  const model::Task& task = ssn.state.tasks[task_id];
  if (task.is_fraction_candidate()) return allocate_shared_gpu_task(ssn, stmt, task_id, node_id, pipeline_only);
  const model::Node& node = ssn.state.nodes[node_id];
  if (!pipeline_only && node.task_fits(task, node.idle, false)) {
    stmt.allocate(task_id, node_id);
  } else {
    stmt.pipeline(task_id, node_id, !pipeline_only);
  }
  return true;
}

bool allocate_task(Session& ssn, Statement& stmt, const std::vector<NodeId>& nodes, TaskId task, bool pipeline_only,
                   std::vector<std::string>& reasons) {
  for (NodeId node : ordered_nodes(ssn, task, nodes)) {
    std::string why;
    if (!fitting_node(ssn, task, node, &why)) {
      reasons.push_back(std::move(why));
      continue;
    }
    if (allocate_task_to_node(ssn, stmt, task, node, pipeline_only)) return true;
  }
  return false;
}

std::string summarize(const std::vector<std::string>& reasons) {
  std::string out;
  for (std::size_t i = 0; i < reasons.size() && i < 8; ++i) out += (i ? "; " : "") + reasons[i];
  if (reasons.size() > 8) out += "; and " + std::to_string(reasons.size() - 8) + " more node(s)";
  return out.empty() ? "no nodes" : out;
}

// handleFailedTaskAllocation: the gang prefix when the task's PodSet is still short of its
// minimum (`index` pods of it placed so far), then kaisim's plain-words reasons.
std::string fit_error(const Session& ssn, const JobView& view, const model::Task& task, std::size_t index,
                      const std::vector<std::string>& reasons) {
  bool gang = false;
  for (const model::PodSet& p : view.groups->pod_sets) gang = gang || p.min_available > 1;
  const model::PodSet* pod_set = pod_set_of(view, task);
  std::string message;
  if (gang && pod_set != nullptr) {
    const PodSetCounts counts(ssn, view);
    if (counts.active_used[static_cast<std::size_t>(task.pod_set)] < pod_set->min_available) {
      const std::string wanted = std::to_string(pod_set->min_available);
      message = view.groups->declared
                    ? "Resources were found for " + std::to_string(index) + " pods from all sub-groups while sub-group " +
                          pod_set->name + " requires " + wanted + " pods for gang scheduling. "
                    : "Resources were found for " + std::to_string(index) + " pods while " + wanted +
                          " are required for gang scheduling. ";
    }
  }
  return message + "Pod " + task.key() + " fits no node: " + summarize(reasons);
}

}  // namespace

std::vector<NodeId> all_nodes(const Session& ssn) {
  std::vector<NodeId> nodes;
  for (std::size_t i = 0; i < ssn.state.nodes.size(); ++i) nodes.emplace_back(static_cast<NodeId::value_type>(i));
  return nodes;
}

bool allocate_job(Session& ssn, Statement& stmt, const std::vector<NodeId>& nodes, const JobView& view,
                  bool pipeline_only) {
  const JobId job = view.id;
  const std::vector<TaskId> tasks = tasks_to_allocate(ssn, view, !pipeline_only);
  if (tasks.empty()) return false;
  if (CapacityVerdict over = job_over_capacity(ssn, job, tasks)) {
    if (!pipeline_only) ssn.record_fit_error(job, *over);
    return false;
  }
  const std::size_t cp = stmt.checkpoint();
  const bool placed = place_in_subgroup_order(ssn, view, tasks, [&](TaskId id, std::size_t index) {
    std::vector<std::string> reasons;
    if (allocate_task(ssn, stmt, nodes, id, pipeline_only, reasons)) return true;
    if (!pipeline_only) ssn.record_fit_error(job, fit_error(ssn, view, ssn.state.tasks[id], index, reasons));
    return false;
  });
  if (!placed) stmt.rollback(cp);
  return placed;
}

std::vector<JobView> all_job_views(const Session& ssn) {
  std::vector<JobView> views;
  views.reserve(ssn.jobs_by_name().size());
  for (JobId j : ssn.jobs_by_name()) views.push_back(full_view(ssn, j));
  return views;
}

void run_allocate(Session& ssn) {
  JobQueue queue(ssn, false);
  for (JobId j : ssn.jobs_by_name()) {
    if (!job_has_pending_pod(ssn, j)) continue;  // what has_tasks_to_allocate(real) asks, without a view
    const JobView v = full_view(ssn, j);
    if (is_ready_for_scheduling(ssn, v)) queue.push(v);
  }
  const std::vector<NodeId> nodes = all_nodes(ssn);
  while (!queue.empty()) {
    const JobView job = queue.pop();
    if (!job.valid()) break;
    Statement stmt(ssn);
    bool had_allocated = false;
    for (TaskId t : job.tasks) had_allocated = had_allocated || model::is_allocated(ssn.state.tasks[t].status);
    if (allocate_job(ssn, stmt, nodes, job, false)) {
      bool pipelined = false;
      if (should_pipeline_job(ssn, job)) {
        stmt.convert_all_allocated_to_pipelined(job.id);
        pipelined = true;
      }
      stmt.commit();
      if (!pipelined && !had_allocated) ssn.state.jobs[job.id].last_start_ns = ssn.state.now_ns;
      if (has_tasks_to_allocate(ssn, job, true)) queue.push(job);
    } else {
      stmt.discard();
    }
  }
}

}  // namespace sim::sched
