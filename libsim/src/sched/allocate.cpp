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
  for (std::size_t index = 0; index < tasks.size(); ++index) {
    std::vector<std::string> reasons;
    if (!allocate_task(ssn, stmt, nodes, tasks[index], pipeline_only, reasons)) {
      if (!pipeline_only) {
        const model::Task& task = ssn.state.tasks[tasks[index]];
        std::string message;
        if (view.min_available > 1 && active_used_count(ssn, view) < view.min_available) {
          message = "Resources were found for " + std::to_string(index) + " pods while " +
                    std::to_string(view.min_available) + " are required for gang scheduling. ";
        }
        message += "Pod " + task.key() + " fits no node: " + summarize(reasons);
        ssn.record_fit_error(job, message);
      }
      stmt.rollback(cp);
      return false;
    }
  }
  return true;
}

std::vector<JobView> all_job_views(const Session& ssn) {
  std::vector<JobView> views;
  views.reserve(ssn.jobs_by_name().size());
  for (JobId j : ssn.jobs_by_name()) views.push_back(full_view(ssn, j));
  return views;
}

void run_allocate(Session& ssn) {
  JobQueue queue(ssn, false);
  for (const JobView& v : all_job_views(ssn)) {
    if (has_tasks_to_allocate(ssn, v, true) && is_ready_for_scheduling(ssn, v)) queue.push(v);
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
