// Action "allocate" and the AllocateJob routine every action uses
// (actions/allocate/allocate.go, actions/common/allocate.go, gpu_sharing/gpuSharing.go).

#include <algorithm>

#include "sim/core/assert.hpp"
#include "sim/sched/actions/actions.hpp"
#include "sim/sched/framework/job_order.hpp"
#include "sim/sched/framework/job_queue.hpp"
#include "sim/sched/framework/node_fit.hpp"
#include "sim/sched/framework/node_misses.hpp"

namespace sim::sched {
namespace {

// How many nodes' reasons a fit error words (summarize); the others are only counted.
constexpr std::size_t kWordedReasons = 8;

bool allocate_shared_gpu_task(Session& ssn, Statement& stmt, TaskId task_id, NodeId node_id,
                              bool pipeline_only) {
  model::Task& task = ssn.state.tasks[task_id];
  std::optional<GpuChoice> choice =
      preferable_gpus(ssn, ssn.state.nodes[node_id], task, pipeline_only, true);
  if (!choice) return false;
  task.gpu_groups = choice->groups;
  if (pipeline_only || choice->releasing) {
    stmt.pipeline(task_id, node_id, false);
  } else {
    stmt.allocate(task_id, node_id);
  }
  return true;
}

bool allocate_task_to_node(Session& ssn, Statement& stmt, TaskId task_id, NodeId node_id,
                           bool pipeline_only) {
  // GetNumaPlacement: the zones the pod will be charged to (none unless the numa plugin aligns it).
  std::vector<model::ZoneAmounts> zones;
  ssn.numa_placement(ssn.state.tasks[task_id], ssn.state.nodes[node_id], &zones);
  ssn.state.tasks[task_id].devices.set(&model::TaskDevices::numa_placement, std::move(zones));
  const model::Task& task = ssn.state.tasks[task_id];
  if (task.is_fraction_candidate())
    return allocate_shared_gpu_task(ssn, stmt, task_id, node_id, pipeline_only);
  const model::Node& node = ssn.state.nodes[node_id];
  if (!pipeline_only && node.task_fits(task, node.idle, false)) {
    stmt.allocate(task_id, node_id);
  } else {
    stmt.pipeline(task_id, node_id, !pipeline_only);
  }
  return true;
}

// `reasons` and `misses` (when given) say why the task was refused, for its fit error; the
// victim search's virtual placements record none and word none. `orders`: the allocate action's
// node orders kept for alike pods (alike_nodes.hpp), or nullptr.
// `in_nodes`: the members of `nodes` by node index, or nullptr (ordered_nodes). `search`: the
// victim search's node orders kept through a probe (search_orders.hpp) when `nodes` is the
// probe's list, or nullptr.
bool allocate_task(Session& ssn, Statement& stmt, const std::vector<NodeId>& nodes, TaskId task,
                   bool pipeline_only, std::vector<std::string>* reasons, NodeMisses* misses,
                   AlikeNodeOrders* orders, const std::vector<char>* in_nodes,
                   SearchNodeOrders* search) {
  if (std::string why = ssn.pre_predicate(ssn.state.tasks[task]); !why.empty()) {
    if (reasons) reasons->push_back(std::move(why));
    return false;
  }
  // The victim search words no reasons: the kept order's walk is the whole of it.
  if (search != nullptr && reasons == nullptr && misses == nullptr) {
    if (SearchNodeOrders::Walk* walk = search->walk(task, nodes)) {
      for (NodeId node; walk->next(node);) {
        if (fitting_node(ssn, task, node) &&
            allocate_task_to_node(ssn, stmt, task, node, pipeline_only))
          return true;
      }
      return false;
    }
  }
  // A pod alike to earlier ones finds the node the walk below would take in the order kept for
  // them, and when no node takes it, maybe the reasons a pod alike to it got. Debug builds walk
  // on and compare.
  using Outcome = AlikeNodeOrders::Outcome;
  Outcome alike = Outcome::kNotKept;
  const AlikeNodeOrders::Refusal* refused = nullptr;
  if (orders != nullptr && reasons != nullptr && misses != nullptr) {
    NodeId kept;
    alike = orders->first_fitting(task, nodes, kept);
    if (alike == Outcome::kFound)
      return allocate_task_to_node(ssn, stmt, task, kept, pipeline_only);
    if (alike == Outcome::kNoneFits) refused = orders->kept_refusal(task, nodes);
#ifdef NDEBUG
    if (refused != nullptr) {
      *reasons = refused->reasons;
      *misses = refused->misses;
      return false;
    }
#endif
  }
  // Nobody asks why the nodes the task does not fit refuse it: they need no score.
  NodeOrder order =
      ordered_nodes(ssn, task, nodes, reasons == nullptr && misses == nullptr, in_nodes);
  for (NodeId node; order.next(node);) {
    // summarize() words the first kWordedReasons reasons and counts the rest: those are not
    // worded (an empty entry each), which is most of the time of a pod that fits nowhere.
    std::string why;
    const bool worded = reasons && reasons->size() < kWordedReasons;
    if (!fitting_node(ssn, task, node, worded ? &why : nullptr)) {
      if (misses) misses->note(ssn, task, node);
      if (reasons) reasons->push_back(std::move(why));
      continue;
    }
    SIM_ASSERT(alike != Outcome::kNoneFits);
    if (allocate_task_to_node(ssn, stmt, task, node, pipeline_only)) return true;
  }
  if (alike == Outcome::kNoneFits) {
    // The proof: the kept reasons are the ones worded now.
    SIM_ASSERT(refused == nullptr || (refused->reasons == *reasons && refused->misses == *misses));
    orders->keep_refusal(task, nodes, {*reasons, *misses});
  }
  return false;
}

std::string summarize(const std::vector<std::string>& reasons) {
  std::string out;
  for (std::size_t i = 0; i < reasons.size() && i < kWordedReasons; ++i)
    out += (i ? "; " : "") + reasons[i];
  if (reasons.size() > kWordedReasons)
    out += "; and " + std::to_string(reasons.size() - kWordedReasons) + " more node(s)";
  return out.empty() ? "no nodes" : out;
}

// handleFailedTaskAllocation: the gang prefix when the task's PodSet is still short of its
// minimum (`index` pods of it placed so far), then kaisim's plain-words reasons; typed from the
// nodes' misses.
WaitReason fit_error(const Session& ssn, const JobView& view, const model::Task& task,
                     std::size_t index, const std::vector<std::string>& reasons,
                     const NodeMisses& misses) {
  WaitReason why = misses.reason(task);
  bool gang = false;
  for (const model::PodSet& p : view.groups->pod_sets) gang = gang || p.min_available > 1;
  const model::PodSet* pod_set = pod_set_of(view, task);
  std::string message;
  if (gang && pod_set != nullptr) {
    const PodSetCounts counts(ssn, view);
    if (counts.active_used[static_cast<std::size_t>(task.pod_set)] < pod_set->min_available) {
      why.gang_min = static_cast<int>(pod_set->min_available);
      why.gang_ready = static_cast<int>(index);
      const std::string wanted = std::to_string(pod_set->min_available);
      message = view.groups->declared
                    ? "Resources were found for " + std::to_string(index) +
                          " pods from all sub-groups while sub-group " + pod_set->name +
                          " requires " + wanted + " pods for gang scheduling. "
                    : "Resources were found for " + std::to_string(index) + " pods while " +
                          wanted + " are required for gang scheduling. ";
    }
  }
  if (reasons.size() > static_cast<std::size_t>(why.nodes))
    why.cause = WaitCause::Other;  // a pre-predicate refused it
  why.message = message + "Pod " + task.key() + " fits no node: " + summarize(reasons);
  return why;
}

WaitReason topology_reason(const std::string& why) {
  WaitReason reason;
  reason.cause = WaitCause::Topology;
  reason.message = why;
  return reason;
}

// AllocateJob's walk (actions/common/allocate.go allocateSubGroupSet, allocatePodSet): each set
// and PodSet splits the nodes it got into the node sets of its topology constraint and tries
// them in order, rolling back what a failed node set placed.
class JobPlacement {
 public:
  JobPlacement(Session& ssn, Statement& stmt, const JobView& view, bool pipeline_only,
               AlikeNodeOrders* orders, const std::vector<NodeId>& all,
               const std::vector<char>* in_all, SearchNodeOrders* search)
      : ssn_(ssn),
        stmt_(stmt),
        view_(view),
        groups_(*view.groups),
        pipeline_only_(pipeline_only),
        orders_(orders),
        all_(&all),
        in_all_(in_all),
        search_(search) {}

  bool place_set(int set, const std::vector<TaskId>& tasks, const std::vector<NodeId>& nodes) {
    if (tasks.empty()) return true;
    std::vector<int> pod_sets;  // subtreePodSetsContainingTasks
    for (TaskId t : tasks) {
      const int p = ssn_.state.tasks[t].pod_set;
      if (std::find(pod_sets.begin(), pod_sets.end(), p) == pod_sets.end()) pod_sets.push_back(p);
    }
    const model::SubGroupSet& s = groups_.sets[static_cast<std::size_t>(set)];
    return over_node_sets(
        {s.name, s.topology, pod_sets}, tasks, nodes,
        [&](const std::vector<NodeId>& ns) { return place_members(set, tasks, ns); });
  }

  // A PodGroup without subgroups or topology: its pods in list order on all the nodes.
  bool place_flat(const std::vector<TaskId>& tasks, const std::vector<NodeId>& nodes) {
    std::size_t index = 0;
    for (TaskId t : tasks) {
      if (ssn_.state.tasks[t].pod_set == 0 && !place_task(t, index++, nodes)) return false;
    }
    return true;
  }

 private:
  bool place_members(int set, const std::vector<TaskId>& tasks, const std::vector<NodeId>& nodes) {
    for (const SubgroupMember& m : members_in_order(ssn_, view_, set)) {
      std::vector<TaskId> mine;
      for (TaskId t : tasks) {
        const int p = ssn_.state.tasks[t].pod_set;
        if (m.is_set ? pod_set_under(groups_, p, m.index) : p == m.index) mine.push_back(t);
      }
      if (!(m.is_set ? place_set(m.index, mine, nodes) : place_pod_set(m.index, mine, nodes)))
        return false;
    }
    return true;
  }

  bool place_pod_set(int p, const std::vector<TaskId>& tasks, const std::vector<NodeId>& nodes) {
    if (tasks.empty()) return true;
    const model::PodSet& pod_set = groups_.pod_sets[static_cast<std::size_t>(p)];
    const std::vector<int> only{p};
    return over_node_sets({pod_set.name, pod_set.topology, only}, tasks, nodes,
                          [&](const std::vector<NodeId>& ns) {
                            std::size_t index = 0;
                            for (TaskId t : tasks) {
                              if (!place_task(t, index++, ns)) return false;
                            }
                            return true;
                          });
  }

  template <class Try>
  bool over_node_sets(const SubgroupScope& scope, const std::vector<TaskId>& tasks,
                      const std::vector<NodeId>& nodes, const Try& attempt) {
    if (ssn_.hooks.subset_nodes.empty() || scope.constraint.empty()) return attempt(nodes);
    std::string why;
    const auto sets = ssn_.subset_nodes(view_.id, scope, tasks, nodes, why);
    if (!why.empty() && !pipeline_only_) ssn_.record_fit_error(view_.id, topology_reason(why));
    if (!sets) return false;
    for (const std::vector<NodeId>& ns : *sets) {
      const std::size_t cp = stmt_.checkpoint();
      if (attempt(ns)) return true;
      stmt_.rollback(cp);
    }
    return false;
  }

  bool place_task(TaskId id, std::size_t index, const std::vector<NodeId>& nodes) {
    std::vector<std::string> reasons;
    NodeMisses misses;
    // The job's own node list has its members marked; a topology's node set has not.
    const bool all = &nodes == all_;
    if (allocate_task(ssn_, stmt_, nodes, id, pipeline_only_, pipeline_only_ ? nullptr : &reasons,
                      pipeline_only_ ? nullptr : &misses, orders_, all ? in_all_ : nullptr,
                      all ? search_ : nullptr))
      return true;
    if (!pipeline_only_) {
      ssn_.record_fit_error(view_.id,
                            fit_error(ssn_, view_, ssn_.state.tasks[id], index, reasons, misses));
    }
    return false;
  }

  Session& ssn_;
  Statement& stmt_;
  const JobView& view_;
  const model::SubGroupTree& groups_;
  bool pipeline_only_;
  AlikeNodeOrders* orders_;
  const std::vector<NodeId>* all_;
  const std::vector<char>* in_all_;
  SearchNodeOrders* search_;
};

}  // namespace

std::vector<NodeId> all_nodes(const Session& ssn) {
  std::vector<NodeId> nodes;
  for (std::size_t i = 0; i < ssn.state.nodes.size(); ++i)
    nodes.emplace_back(static_cast<NodeId::value_type>(i));
  return nodes;
}

bool allocate_job(Session& ssn, Statement& stmt, const std::vector<NodeId>& nodes,
                  const JobView& view, bool pipeline_only, AlikeNodeOrders* orders,
                  const std::vector<char>* in_nodes, SearchNodeOrders* search) {
  const JobId job = view.id;
  ssn.pre_job_allocation(job);
  const std::vector<TaskId> tasks = tasks_to_allocate(ssn, view, !pipeline_only);
  if (tasks.empty()) return false;
  if (CapacityVerdict over = ssn.job_over_capacity(job, tasks)) {
    if (!pipeline_only) ssn.record_fit_error(job, *over);
    return false;
  }
  const std::size_t cp = stmt.checkpoint();
  JobPlacement placement(ssn, stmt, view, pipeline_only, orders, nodes, in_nodes, search);
  const bool placed = is_single_pod_set(view) && !view.groups->any_topology()
                          ? placement.place_flat(tasks, nodes)
                          : placement.place_set(0, tasks, nodes);
  if (!placed) stmt.rollback(cp);
  return placed;
}

void run_allocate(Session& ssn) {
  JobQueue queue(ssn, false);
  for (JobId j : ssn.jobs_by_name()) {
    if (!job_has_pending_pod(ssn, j))
      continue;  // what has_tasks_to_allocate(real) asks, without a view
    const JobView v = full_view(ssn, j);
    if (is_ready_for_scheduling(ssn, v)) queue.push(v);
  }
  const std::vector<NodeId> nodes = all_nodes(ssn);
  AlikeNodeOrders orders(ssn);
  while (!queue.empty()) {
    const JobView job = queue.pop();
    if (!job.valid()) break;
    Statement stmt(ssn);
    bool had_allocated = false;
    for (TaskId t : job.tasks)
      had_allocated = had_allocated || model::is_allocated(ssn.state.tasks[t].status);
    if (allocate_job(ssn, stmt, nodes, job, false, &orders)) {
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
