#pragma once
// The whole cluster state one scheduling cycle starts from: nodes, pods, PodGroups, queues and
// PriorityClasses, already translated from Kubernetes objects (io/snapshot does that).

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/model/dra.hpp"
#include "sim/model/job.hpp"
#include "sim/model/node.hpp"
#include "sim/model/queue.hpp"
#include "sim/model/queue_tree.hpp"
#include "sim/model/task.hpp"

namespace sim::model {

/// One plugin of a scheduler configuration's tier (conf/scheduler_conf.go PluginOption).
struct PluginOption {
  std::string name;
  std::map<std::string, std::string> arguments;
};

/// Scheduler settings that change decisions (cmd/scheduler/app/options/options.go and the
/// operator's SchedulingShard defaults). Defaults are KAI v0.16.4's.
struct SchedulerConfig {
  std::vector<std::string> actions = {"allocate", "consolidation", "reclaim", "preempt",
                                      "stalegangeviction"};
  bool predicates_enabled =
      true;                 ///< the predicates plugin (KAI's unit tests often run without it)
  bool gpu_binpack = true;  ///< placementStrategy.gpu: binpack (true) or spread
  bool cpu_binpack = true;  ///< placementStrategy.cpu
  /// Scoring plugins of a custom plugin list (KAI's tests configure some). Unset: as the
  /// placement strategy implies (gpusharingorder and gpupack with GPU binpack, gpuspread with
  /// spread); the others are on.
  struct Plugins {
    bool node_placement = true;             ///< nodeplacement
    bool node_availability = true;          ///< nodeavailability
    bool resource_type = true;              ///< resourcetype
    bool nominated_node = true;             ///< nominatednode
    std::optional<bool> gpu_sharing_order;  ///< gpusharingorder
    std::optional<bool> gpu_pack;  ///< gpupack (true), gpuspread (false), neither (unset: strategy)
    bool gpu_device_order = true;  ///< false: neither gpupack nor gpuspread is listed
    bool topology = true;          ///< topology (node sets and scores of topology constraints)
    bool dynamic_resources = true;  ///< dynamicresources (DRA claims)
    bool numa = false;              ///< numa (NUMA alignment; not in KAI's default list)
    /// podaffinity (preferred inter-pod affinity scores): in the operator's config, which a Helm
    /// install runs, but not in the in-code default list.
    bool pod_affinity = false;
    bool numa_reconstruct_available = true;  ///< numa argument reconstructAvailable
    std::set<std::string> numa_ignore;       ///< numa argument ignoreList
  } plugins;
  bool gpu_sharing_order() const { return plugins.gpu_sharing_order.value_or(gpu_binpack); }
  bool gpu_device_pack() const { return plugins.gpu_pack.value_or(gpu_binpack); }
  double k_value = 1.0;  ///< proportion kValue (no effect without usage data)
  int max_consolidation_preemptees = 16;
  bool allow_consolidating_reclaim = true;
  bool use_scheduling_signatures = true;
  /// SchedulerParams.FullHierarchyFairness; false: every queue with a parent is put below one
  /// top-level queue and the top level is dropped as the state is read (io, snapshots only).
  bool full_hierarchy_fairness = true;
  double reclaimer_saturation_multiplier = 1.0;
  std::int64_t staleness_grace_ns = 60'000'000'000;  ///< negative = never evict stale gangs
  std::int64_t default_preempt_min_runtime_ns = 0;
  std::int64_t default_reclaim_min_runtime_ns = 0;
  bool reclaim_resolve_lca = true;  ///< minruntime reclaimResolveMethod: lca (true) or queue
  std::string queue_label_key = "kai.scheduler/queue";  ///< SchedulerParams.QueueLabelKey
  /// The configuration's own plugin list, when it gives one (apply_plugin_list): exactly those
  /// plugins run, in that order. Unset: KAI's in-code default list, as the switches above shape it.
  std::optional<std::vector<PluginOption>> plugin_list;
};

/// The plugins a session opens, in order: the configuration's list, or KAI v0.16.4's in-code
/// default (conf_util/scheduler_conf_util.go) with the switches applied (gpusharingorder and
/// gpupack or gpuspread as the placement strategy implies, podaffinity after resourcetype where
/// the operator puts it, numa last). A numa or podaffinity switch turned on by a scenario adds
/// that plugin to a configuration's list that lacks it.
std::vector<PluginOption> enabled_plugins(const SchedulerConfig& config);

/// Takes a configuration's plugin list: the list itself (SchedulerConfig::plugin_list) and the
/// switches its plugins' arguments set (nodeplacement's gpu/cpu strategy, numa's arguments, ...).
void apply_plugin_list(SchedulerConfig& config, const std::vector<PluginOption>& plugins);

/// The operator's placement strategy (SchedulingShard placementStrategy): spread for GPUs turns
/// gpuspread on and gpupack and gpusharingorder off; spread for either resource drops the
/// consolidation action.
void apply_placement_strategy(SchedulerConfig& config, bool gpu_binpack, bool cpu_binpack);

struct PriorityClass {
  std::string name;
  int value = 0;
  bool global_default = false;
};

/// A KAI Topology (kai.scheduler/v1alpha1): the node labels that name a node's domain at each
/// level, outermost first (e.g. zone, then rack).
struct Topology {
  std::string name;
  std::vector<std::string> levels;
};

/// What a session opening on a state counts of its nodes and pods, when a caller that follows them
/// from cycle to cycle (a replay) already knows it; a session finds it with a pass over each.
struct OpenSums {
  /// The capacity the proportion plugin divides: schedulable nodes, less other schedulers' pods.
  ResourceVec capacity = ResourceVec::Zero();
  /// Per queue, its pods' and its descendants' (proportion plugin units).
  struct Queue {
    ResourceVec request = ResourceVec::Zero();  ///< allocated pods' accepted, pending pods' request
    ResourceVec allocated = ResourceVec::Zero();  ///< allocated pods' accepted
    ResourceVec allocated_not_preemptible =
        ResourceVec::Zero();  ///< of those, non-preemptible jobs'
  };
  IdVector<QueueId, Queue> queues;
  std::vector<JobId> may_pend;  ///< jobs with a pending pod, and jobs of pods in no queue
  /// Jobs that can be stale: more than one PodSet, a minimum above 1, or a pod outside the first
  /// PodSet (a job of one PodSet with a minimum of 1 and all its pods in it never is).
  std::vector<JobId> may_be_stale;
  bool any_pod_anti_affinity = false;
  bool any_preferred_pod_affinity = false;
};

/// How a session adds its pods' usage into the queue sums as it opens. KAI adds them one double at
/// a time as it walks its PodGroup map (proportion.go updateQueuesCurrentResourceUsage), and a Go
/// map of up to 8 entries walks them in the order they were put in: LISTED adds in the order the
/// state lists its jobs, each job's pods status by status (statuses in the order its pods first
/// show them, as the job's PodStatusIndex map was filled). EXACT sums exactly, with no order at
/// all: what a replay uses, so that the sums it keeps pod by pod equal a fresh pass's.
enum class SumOrder { LISTED, EXACT };

struct ClusterState {
  std::int64_t now_ns = 0;  ///< the session's "now" (min-runtime, staleness)
  SchedulerConfig config;
  /// Historical usage per queue name (fraction of cluster capacity per resource), what KAI's
  /// usage database gives the proportion plugin for time-based fair share. Empty: none.
  std::unordered_map<std::string, ResourceVec> queue_usage;
  IdVector<NodeId, Node> nodes;
  IdVector<TaskId, Task> tasks;
  IdVector<JobId, Job> jobs;
  QueueTree queue_tree;                 ///< hierarchy over the queues that survived validation
  IdVector<QueueId, QueueSpec> queues;  ///< spec of each queue in `queue_tree`
  std::vector<PriorityClass> priority_classes;
  std::vector<Topology> topologies;
  std::vector<DeviceClass> device_classes;
  std::vector<DraSlice> resource_slices;
  std::vector<ResourceClaim> claims;  ///< a session allocates and reserves them in place
  /// Min / max GPU memory per device over nodes whose label is > 100 MiB; unset if none.
  std::optional<std::int64_t> min_node_gpu_memory_mib;
  std::optional<std::int64_t> max_node_gpu_memory_mib;

  std::unordered_map<std::string, NodeId> node_by_name;
  /// Every job in PodGroup name order, when already known (a replay keeps it from cycle to cycle);
  /// empty, or of another size than `jobs`: a session sorts the jobs itself.
  std::vector<JobId> jobs_by_name;
  /// Sums a session opening on this state takes (and clears) instead of its passes over every
  /// node and pod.
  std::optional<OpenSums> open_sums;
  SumOrder sum_order = SumOrder::LISTED;  ///< how a session's own pass adds the queue sums
  /// Next number for a new shared-GPU group id; a replay carries it from cycle to cycle so ids
  /// stay unique.
  std::uint64_t next_gpu_group = 0;

  NodeId find_node(const std::string& name) const;
};

/// The chart's default PriorityClasses (deployments/kai-scheduler/templates/priorityclasses):
/// train 50, build-preemptible 75, build 100, inference 125.
std::vector<PriorityClass> default_priority_classes();

/// Default for a PodGroup whose class is not found: the globalDefault class, else 50.
int default_priority(const std::vector<PriorityClass>& classes);

/// Recomputes the min/max node GPU memory (cluster_info.go snapshotNodes).
void update_gpu_memory_bounds(ClusterState& state);

}  // namespace sim::model
