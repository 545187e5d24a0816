#pragma once
// One scheduling cycle's working state (KAI pkg/scheduler/framework/session.go): the cluster
// snapshot it mutates, the proportion plugin's queue attributes (fair share computed once at
// open, allocated kept live by the allocate/deallocate events), and the decisions committed so
// far. Everything a cycle decides goes through a Statement (statement.hpp).

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "sim/fairshare/hierarchy.hpp"
#include "sim/model/cluster.hpp"
#include "sim/sched/plugins/dra_devices.hpp"
#include "sim/sched/plugins/topology.hpp"

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
  explicit Session(model::ClusterState& state);

  model::ClusterState& state;
  const model::SchedulerConfig& config;
  /// Proportion queue attributes, indexed like state.queue_tree (plugin units: CPU millicores,
  /// memory bytes, GPU devices).
  IdVector<QueueId, fairshare::QueueShares> queues;
  ResourceVec total = ResourceVec::Zero();  ///< capacity divided by the fair share
  /// Per queue, what its pods hold (as `allocated` counts them) beyond `allocated` because the
  /// solver evicted a second copy of a pod (Statement::evict): KAI changes the pod's status there
  /// without an allocate or deallocate event, so its own sums leave step with its pods. The
  /// invariant checker adds it; empty until that happens.
  IdVector<QueueId, ResourceVec> copy_drift;
  std::string action;                       ///< action now running, for decision records
  /// Some pod has required pod anti-affinity: only then can a pod without terms of its own be
  /// kept off a node by inter-pod affinity.
  bool any_pod_anti_affinity = false;
  /// Some pod has preferred pod (anti-)affinity terms: only then can the podaffinity plugin
  /// score a pod without terms of its own.
  bool any_preferred_pod_affinity = false;
  /// Tasks whose podaffinity PreScore skipped once in this session: the plugin scores them 0
  /// from then on (plugins/podaffinity/podaffinity.go skipOrderFn).
  std::unordered_set<TaskId> pod_affinity_skipped;
  /// The topology plugin, when it is enabled (KAI's default).
  std::optional<TopologyPlugin> topology;
  /// DRA devices by node and those claims hold, while the dynamicresources plugin is on.
  std::optional<DraDevices> dra;

  std::vector<BindDecision> binds;
  std::vector<PipelineDecision> pipelines;
  std::vector<EvictionDecision> evictions;
  /// Why each job that stayed pending could not be placed, in plain words (latest first wins).
  std::unordered_map<JobId, std::vector<std::string>> fit_errors;

  model::Task& task(TaskId id) { return state.tasks[id]; }
  model::Job& job(JobId id) { return state.jobs[id]; }
  model::Node& node(NodeId id) { return state.nodes[id]; }

  /// Proportion AllocateFunc / DeallocateFunc: the task's accepted resources are added to (or
  /// taken from) its queue and every ancestor.
  void on_allocate(const model::Task& task);
  void on_deallocate(const model::Task& task);

  /// The task's accepted resources as proportion quantities (QuantifyVector): CPU, memory, and
  /// GPUs plus MIG slices.
  static ResourceVec quantify_accepted(const model::Task& task);
  /// The task's request as proportion quantities: CPU, memory, and GPUs plus MIG slices.
  static ResourceVec quantify_request(const model::Task& task);

  void record_fit_error(JobId job, std::string message);

  /// Every job, by PodGroup name: the fixed order kaisim uses where KAI iterates its job map.
  const std::vector<JobId>& jobs_by_name() const { return jobs_by_name_; }
  /// False when no pod of the job was pending at open or has become pending since: the actions'
  /// scans for jobs with pending pods skip it without reading its pods.
  bool may_have_pending(JobId job) const { return may_pend_[job.index()] != 0; }
  /// False when the job cannot be stale (model::OpenSums::may_be_stale): the stale-gang scan
  /// skips it without reading its pods.
  bool may_be_stale(JobId job) const { return may_stale_[job.index()] != 0; }
  /// A pod of the job became pending again (a statement undid its allocation).
  void note_pending(JobId job) { may_pend_[job.index()] = 1; }

  /// Each node's place in name order (KAI breaks ties between equally scored nodes by name),
  /// worked out at the first call of the session.
  const std::vector<std::uint32_t>& node_name_ranks();

  /// A new shared-GPU group id. KAI uses a random UUID; kaisim numbers them per cycle so runs are
  /// reproducible ("<node>-gpu-<n>"; non-numeric, so KAI's "new group needs 2 pod slots" holds).
  std::string new_gpu_group_id(const model::Node& node);

 private:
  void open_proportion(const model::OpenSums& sums);
  std::vector<JobId> jobs_by_name_;
  std::vector<char> may_pend_;  // by job index
  std::vector<char> may_stale_;  // by job index
  std::vector<std::uint32_t> node_ranks_;  // by node index; empty until asked
};

/// The capacity the proportion plugin divides (proportion.go setTotalResources): schedulable
/// nodes, less what pods of other schedulers hold.
ResourceVec proportion_capacity(const model::ClusterState& state);
/// The proportion plugin's queue attributes before any pod counts (createQueueResourceAttrs):
/// quota, limit and weight from each Queue, and its historical usage.
IdVector<QueueId, fairshare::QueueShares> open_queue_attributes(const model::ClusterState& state);
/// The attributes a session opens with: those, the pods' usage from `sums`, and the fair share.
IdVector<QueueId, fairshare::QueueShares> proportion_queues(const model::ClusterState& state, const model::OpenSums& sums);
}  // namespace sim::sched
