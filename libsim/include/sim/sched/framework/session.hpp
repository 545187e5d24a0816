#pragma once
// One scheduling cycle's working state (KAI pkg/scheduler/framework/session.go): the cluster
// snapshot it mutates, the plugins opened on it with the hooks they filled (hooks.hpp), and the
// decisions committed so far. Everything a cycle decides goes through a Statement (statement.hpp).
// The framework calls plugins only through the hooks, in the order of the plugin list.

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/model/cluster.hpp"
#include "sim/sched/framework/free_capacity.hpp"
#include "sim/sched/framework/hooks.hpp"
#include "sim/sched/framework/job_view.hpp"
#include "sim/sched/framework/plugin.hpp"

namespace sim::sched {

/// A committed bind: the task was allocated on `node` (BindRequest created).
struct BindDecision {
  TaskId task;
  NodeId node;
  std::vector<std::string> gpu_groups;
  std::string action;
};

/// A committed pipeline: the task will run on `node` once releasing resources are freed.
struct PipelineDecision {
  TaskId task;
  NodeId node;
  std::vector<std::string> gpu_groups;
  std::string action;
};

/// A committed eviction (pod DELETE). `beneficiary` is the job it was evicted for.
struct EvictionDecision {
  TaskId task;
  NodeId node;
  std::string reason;  ///< reclaim, preempt, consolidation or stalegang
  JobId beneficiary = JobId::invalid();
};

class Session {
 public:
  /// Opens a session on `state` with `plugins` (in plugin-list order): the pods' sums are taken
  /// from `state.open_sums` when a caller kept them, else counted; then each plugin opens.
  Session(model::ClusterState& state, std::vector<std::unique_ptr<Plugin>> plugins);

  model::ClusterState& state;
  const model::SchedulerConfig& config;
  SessionHooks hooks;
  std::string action;  ///< action now running, for decision records
  /// Per queue, what its pods hold (as the proportion plugin counts `allocated`) beyond what the
  /// plugin's events gave it, because the solver evicted a second copy of a pod
  /// (Statement::hold): KAI changes the pod's status there with no allocate or deallocate event,
  /// so its own sums leave step with its pods. Only invariant checks read it; empty until then.
  IdVector<QueueId, ResourceVec> copy_drift;
  /// Buffers the node ordering reuses from task to task (node_fit.cpp).
  struct Scratch {
    std::vector<double> scores;
    std::vector<char> dropped;
    std::vector<NodeId> fitting;
  } scratch;
  /// Each node's idle plus releasing resources in one dense table, kept fresh by node().
  FreeCapacity free_capacity{state.nodes};

  std::vector<BindDecision> binds;
  std::vector<PipelineDecision> pipelines;
  std::vector<EvictionDecision> evictions;
  /// Why each job that stayed pending could not be placed, typed and in plain words, in the order
  /// found (one entry per distinct message).
  std::unordered_map<JobId, std::vector<WaitReason>> fit_errors;

  model::Task& task(TaskId id) { return state.tasks[id]; }
  model::Job& job(JobId id) { return state.jobs[id]; }
  /// A node to change (statements, stale-gang evictions): noted in the node change log while
  /// it is on, from which the kept orders of alike pods learn which nodes to score again, and
  /// read again by free_capacity at its next question.
  model::Node& node(NodeId id) {
    if (node_log_on_) note_node_change(id);
    free_capacity.touch(id);
    return state.nodes[id];
  }
  /// Turns the node change log on (for readers that keep positions in it) or off (cleared). It
  /// is cleared (a new generation) past `changes_per_node` changes per node plus `beyond`.
  void log_node_changes(bool on, std::size_t changes_per_node = 8, std::size_t beyond = 1024);
  /// The nodes node() handed out since the log was last cleared, oldest first (a node once per
  /// call: a reader may have read the log between two changes of one node).
  const std::vector<NodeId>& node_changes() const { return node_changes_; }
  /// Counts the clearings of the node change log: a position in it holds while this stays.
  std::uint64_t node_change_generation() const { return node_change_generation_; }

  /// The opened plugin of type P, or nullptr when the plugin list lacks it.
  template <class P>
  P* plugin() const {
    for (const auto& p : plugins_) {
      if (auto* found = dynamic_cast<P*>(p.get())) return found;
    }
    return nullptr;
  }
  /// The pods' sums as the session opened (plugins read them in on_session_open; empty after).
  const model::OpenSums& open_sums() const { return sums_; }
  /// Whether a pod held a required pod anti-affinity term as the session opened.
  bool any_pod_anti_affinity() const { return any_pod_anti_affinity_; }

  // --- the hooks, combined as KAI's Session methods combine them ---
  /// AllocateFunc / DeallocateFunc of every event handler.
  void on_allocate(const model::Task& task);
  void on_deallocate(const model::Task& task);
  /// Counts the calls of on_allocate and on_deallocate: what was worked out from the queues'
  /// allocations at one count holds while it stays the same.
  std::uint64_t allocation_epoch() const { return allocation_epoch_; }
  /// JobOrderFn; no opinion: older PodGroup, then smaller name.
  bool job_before(const JobView& a, const JobView& b) const;
  /// TaskOrderFn; no opinion: older pod, then smaller UID.
  bool task_before(const model::Task& a, const model::Task& b) const;
  /// QueueOrderFn < 0; no opinion: older queue, then smaller UID.
  bool queue_before(QueueId left, QueueId right, const JobView* left_job, const JobView* right_job,
                    const std::vector<const JobView*>& left_victims,
                    const std::vector<const JobView*>& right_victims) const;
  /// PrePredicateFn: the first failure's reason, or "".
  std::string pre_predicate(const model::Task& task);
  /// GetNumaPlacement.
  bool numa_placement(const model::Task& task, const model::Node& node,
                      std::vector<model::ZoneAmounts>* placement) const;
  CapacityVerdict job_over_capacity(JobId job, const std::vector<TaskId>& tasks) const;
  CapacityVerdict non_preemptible_over_quota(JobId job, const std::vector<TaskId>& tasks) const;
  CapacityVerdict task_on_node_over_capacity(TaskId task, NodeId node) const;
  bool can_reclaim_resources(const JobView& reclaimer) const;
  void on_job_solution_start() const;
  bool reclaim_victim_allowed(const JobView& reclaimer, const ResourceVec& reclaimer_request,
                              JobId victim) const;
  /// False when reclaim_victim_allowed refuses every job of `victim_queue` (a queue filter says
  /// so); true says nothing of its jobs.
  bool reclaim_victim_queue_allowed(const JobView& reclaimer, const ResourceVec& reclaimer_request,
                                    QueueId victim_queue) const;
  bool reclaim_scenario_valid(const Scenario& scenario) const;
  bool preempt_victim_allowed(const JobView& preemptor, JobId victim) const;
  bool preempt_scenario_valid(const Scenario& scenario) const;
  /// SubsetNodesFn over every plugin's split; one set (`nodes`) when no plugin splits.
  std::optional<std::vector<std::vector<NodeId>>> subset_nodes(JobId job,
                                                               const SubgroupScope& scope,
                                                               const std::vector<TaskId>& tasks,
                                                               const std::vector<NodeId>& nodes,
                                                               std::string& why) const;
  void pre_job_allocation(JobId job) const;

  /// The task's accepted resources as proportion quantities (QuantifyVector): CPU, memory, and
  /// GPUs plus MIG slices.
  static ResourceVec quantify_accepted(const model::Task& task);
  /// The task's request as proportion quantities: CPU, memory, and GPUs plus MIG slices.
  static ResourceVec quantify_request(const model::Task& task);

  void record_fit_error(JobId job, WaitReason reason);

  /// Every job, by PodGroup name: the fixed order kaisim uses where KAI iterates its job map.
  const std::vector<JobId>& jobs_by_name() const { return jobs_by_name_; }
  /// The jobs of each queue (by queue index) as places in jobs_by_name(), ascending; jobs of no
  /// queue are in none. Worked out at the first call: a victim queue that takes jobs of a few
  /// queues reads only theirs.
  const std::vector<std::vector<std::uint32_t>>& jobs_by_queue();
  /// False when no pod of the job was pending at open or has become pending since: the actions'
  /// scans for jobs with pending pods skip it without reading its pods.
  bool may_have_pending(JobId job) const { return may_pend_[job.index()] != 0; }
  /// False when the job cannot be stale (model::OpenSums::may_be_stale): the stale-gang scan
  /// skips it without reading its pods.
  bool may_be_stale(JobId job) const { return may_stale_[job.index()] != 0; }
  /// A pod of the job became pending again (a statement undid its allocation).
  void note_pending(JobId job) { may_pend_[job.index()] = 1; }
  /// Counts the changes of any pod's status or virtual flag (statements, stale-gang evictions):
  /// what was worked out from the pods' statuses at one count holds while it stays the same.
  std::uint64_t status_epoch() const { return status_epoch_; }
  /// The count at the last change of one of the job's pods (the session's first count if none):
  /// what was worked out from the job's own pods at a count no lower still holds, whatever
  /// other jobs' pods did since (a scenario changes a few jobs and orders hundreds).
  std::uint64_t job_status_epoch(JobId job) const { return job_changed_[job.index()]; }
  void note_status_change(JobId job) {
    ++status_epoch_;
    if (job.valid()) job_changed_[job.index()] = status_epoch_;  // pods of no job have no memo
  }

  /// Each node's place in name order (KAI breaks ties between equally scored nodes by name),
  /// worked out at the first call of the session.
  const std::vector<std::uint32_t>& node_name_ranks();
  /// Each job's place in jobs_by_name(), by job index; empty when two jobs share a name (their
  /// order is then std::sort's, which a rank cannot give). Worked out at the first call.
  const std::vector<std::uint32_t>& job_name_ranks();
  /// The allocation memo every full view of `job` shares (full_view): the actions make a new
  /// full view of a job for each queue they build, and the memo outlives them.
  std::shared_ptr<AllocationMemo> full_view_memo(JobId job) const;

  /// A new shared-GPU group id. KAI uses a random UUID; kaisim numbers them per cycle so runs are
  /// reproducible ("<node>-gpu-<n>"; non-numeric, so KAI's "new group needs 2 pod slots" holds).
  std::string new_gpu_group_id(const model::Node& node);

 private:
  std::vector<std::unique_ptr<Plugin>> plugins_;
  model::OpenSums sums_;
  std::vector<JobId> jobs_by_name_;
  std::vector<std::vector<std::uint32_t>> jobs_by_queue_;  // empty until asked
  bool jobs_by_queue_known_ = false;
  std::vector<char> may_pend_;             // by job index
  std::vector<char> may_stale_;            // by job index
  std::vector<std::uint32_t> node_ranks_;  // by node index; empty until asked
  std::vector<std::uint32_t> job_ranks_;   // by job index; empty until asked
  bool job_ranks_known_ = false;
  std::uint64_t status_epoch_;                                            // see Session::Session
  std::uint64_t allocation_epoch_ = 0;                                    // see allocation_epoch()
  std::vector<std::uint64_t> job_changed_;                                // by job index
  mutable std::vector<std::shared_ptr<AllocationMemo>> full_view_memos_;  // by job index
  void note_node_change(NodeId id);
  std::vector<NodeId> node_changes_;
  std::uint64_t node_change_generation_ = 0;
  bool node_log_on_ = false;
  std::size_t node_log_bound_ = 0;
  bool any_pod_anti_affinity_ = false;
};

// The job and task orders run at every heap comparison: inline, so the loop over the plugins'
// functions costs no extra call.
inline bool Session::job_before(const JobView& a, const JobView& b) const {
  const model::Job& ja = state.jobs[a.id];
  const model::Job& jb = state.jobs[b.id];
  for (const auto& key : hooks.job_order) {
    const std::int64_t ka = key(*this, ja, a), kb = key(*this, jb, b);
    if (ka != kb) return ka < kb;
  }
  // KAI falls back to creation time, then UID; a kaisim PodGroup's UID is its name.
  if (ja.created_ns != jb.created_ns) return ja.created_ns < jb.created_ns;
  return ja.name < jb.name;
}

inline bool Session::task_before(const model::Task& a, const model::Task& b) const {
  for (const auto& fn : hooks.task_order) {
    if (const int c = fn(a, b); c != 0) return c < 0;
  }
  if (a.created_ns != b.created_ns) return a.created_ns < b.created_ns;
  return a.uid < b.uid;
}

/// What a memo of one job view (or of none) was worked out from: while holds() says so, the view
/// and its job's pods are as they were then (the view by its address, job, PodSets and pod count;
/// the pods by the session's status epochs). The queue orders' memos of a queue's head job.
struct ViewStamp {
  bool valid = false;
  const JobView* view = nullptr;
  JobId id;
  const void* groups = nullptr;
  std::size_t tasks = 0;
  std::uint64_t epoch = 0;  ///< Session::status_epoch when taken

  bool holds(const Session& ssn, const JobView* job) const {
    return valid && view == job &&
           (job == nullptr ||
            (id == job->id && groups == job->groups.get() && tasks == job->tasks.size() &&
             epoch >= ssn.job_status_epoch(job->id)));
  }
  void take(const Session& ssn, const JobView* job) {
    valid = true;
    view = job;
    id = job ? job->id : JobId();
    groups = job ? job->groups.get() : nullptr;
    tasks = job ? job->tasks.size() : 0;
    epoch = ssn.status_epoch();
  }
};

/// The capacity the proportion plugin divides (proportion.go setTotalResources): schedulable
/// nodes, less what pods of other schedulers hold.
ResourceVec proportion_capacity(const model::ClusterState& state);

}  // namespace sim::sched
