#pragma once
// Private to io: Kubernetes objects read into typed form, and the steps that turn them into a
// cluster state's tasks and jobs (snapshot.cpp assembles a whole state from them, pod_update.cpp
// updates one).

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dra_reader.hpp"
#include "sim/core/error.hpp"
#include "sim/model/cluster.hpp"
#include "yaml_field.hpp"

namespace sim::io {

// A resource list (requests, limits, allocatable) as (cpu milli, memory bytes, gpu count, pods)
// plus other scalars (MIG profiles) by name.
struct ResourceList {
  ResourceVec base = ResourceVec::Zero();
  std::map<std::string, double> scalars;
  bool has_gpu = false;
  std::int64_t gpu = 0;
};

// A pod's GPU request, read once from its resources and annotations (pod_info.go
// updatePodAdditionalFields); its Task takes it as it is.
struct PodGpuRequest {
  model::GpuRequirement gpu;
  model::RequestType type = model::RequestType::REGULAR;
  bool legacy_mig = false;  ///< from the old MIG annotation rather than a resource
};

// A PodGroup as read, or as the pod-grouper would create it for a pod without one.
struct PodGroupObject {
  explicit PodGroupObject(Field f) : source(std::move(f)) {}
  Field source;
  std::string name, ns, queue, priority_class, preemptibility;
  std::int64_t min_member = 1;
  std::shared_ptr<const model::SubGroupTree> groups = model::SubGroupTree::single(1);
  std::int64_t created_ns = 0;
  std::optional<std::int64_t> last_start_ns, stale_since_ns;
  std::size_t name_hash = 0;
};

// A Pod as read: its own part of the task, and what the snapshot needs to place it in a job.
struct PodObject {
  explicit PodObject(Field f) : source(std::move(f)) {}
  Field source;
  std::string name, ns, uid;
  model::Labels labels, annotations;
  std::int64_t created_ns = 0;
  std::optional<std::int64_t> deleted_ns;
  bool controller_owned = false;
  std::string node_name, scheduler_name, priority_class, phase, nominated_node;
  bool gated = false;
  ResourceList requests;
  PodGpuRequest gpu_request;
  model::SharedPlacement placement;
  model::Task base;                // task_template(): the pod's own part of its Task
  bool reservation_label = false;  // app=kai-resource-reservation, in any namespace
  std::string pod_group;           // the pod-group-name annotation
  std::string sub_group;           // kai.scheduler/subgroup-name, "default" without one
  // What the pod-grouper would create for a KAI pod without a PodGroup (its priority class is
  // checked per state, against the classes that exist then). Out of line: few pods need one.
  std::shared_ptr<const PodGroupObject> grouper;
  std::string grouper_class;
  std::size_t group_hash = 0;  // name_hash() of pod_group, or of the grouper's PodGroup
  bool guaranteed = false;     // QoS class Guaranteed
  std::shared_ptr<const model::NumaUnits> numa_units;  // Guaranteed pods only
  std::optional<std::vector<model::ZoneAmounts>> numa_observed, numa_predicted;
  std::vector<PodClaimRef> claims;  // spec.resourceClaims
};

// A BindRequest as read: the binder's record of a pod being bound.
struct BindRequestObject {
  std::string pod_key, node;
  std::vector<std::string> gpu_groups;
  std::string received_type;
  bool finally_failed = false;
  std::optional<std::vector<model::ZoneAmounts>> numa_zones;  // spec.predictedNUMAZones
  std::vector<std::pair<std::string, model::DraAllocation>>
      claim_allocations;  // spec.resourceClaimAllocations
};

// Every object of one or more documents, read into typed form once.
struct ParsedObjects {
  /// Which of the lists below hold anything (a bit per list, `Kind`): a replay assembles thousands
  /// of one-object parts a cycle, and reads one word of each instead of every list.
  std::uint32_t kinds = 0;
  std::vector<Field> queues;  // read per state: their position matters and they are few
  std::vector<std::pair<Field, model::Node>> nodes;
  std::vector<PodObject> pods;
  std::vector<PodGroupObject> pod_groups;
  std::vector<BindRequestObject> bind_requests;
  std::vector<model::PriorityClass> priority_classes;
  std::vector<model::Topology> topologies;
  std::vector<std::pair<std::string, model::NumaTopology>> numa;  ///< node name -> its zones
  std::vector<model::DeviceClass> device_classes;
  std::vector<model::DraSlice> resource_slices;
  std::vector<model::ResourceClaim> resource_claims;
  std::optional<model::SchedulerConfig> config;  ///< from a KAI snapshot
  std::int64_t latest_time = 0;
  enum Kind : std::uint32_t {
    kQueues = 1,
    kNodes = 2,
    kPods = 4,
    kPodGroups = 8,
    kBindRequests = 16,
    kPriorityClasses = 32,
    kTopologies = 64,
    kNuma = 128,
    kDeviceClasses = 256,
    kSlices = 512,
    kClaims = 1024,
    kConfig = 2048,
  };
  void mark_kinds() {
    const std::pair<bool, Kind> present[] = {{!queues.empty(), kQueues},
                                             {!nodes.empty(), kNodes},
                                             {!pods.empty(), kPods},
                                             {!pod_groups.empty(), kPodGroups},
                                             {!bind_requests.empty(), kBindRequests},
                                             {!priority_classes.empty(), kPriorityClasses},
                                             {!topologies.empty(), kTopologies},
                                             {!numa.empty(), kNuma},
                                             {!device_classes.empty(), kDeviceClasses},
                                             {!resource_slices.empty(), kSlices},
                                             {!resource_claims.empty(), kClaims},
                                             {config.has_value(), kConfig}};
    kinds = 0;
    for (const auto& [has, kind] : present) kinds |= has ? static_cast<std::uint32_t>(kind) : 0U;
  }
};

/// The GPU request of resources `requests` with the typed annotations: gpu-memory in MiB and
/// gpu-fraction (0: none), gpu-fraction-num-devices (absent: none). Legacy MIG annotations are
/// read_pod's alone.
PodGpuRequest gpu_request_of(const ResourceList& requests, std::int64_t gpu_memory_mib,
                             double gpu_fraction, std::optional<long long> fraction_devices);
/// PodGroups are matched by name every cycle of a replay: the hash is taken once, at reading.
std::size_t name_hash(const std::string& name);
/// The schedulerName of the pods KAI schedules (others are foreign to it).
inline constexpr std::string_view kSchedulerName = "kai-scheduler";
/// The NUMA placement records a pod's annotations hold (JSON, as KAI's binder writes them).
inline constexpr std::string_view kNumaObservedAnnotation = "kai.scheduler/numa-placement-observed";
inline constexpr std::string_view kNumaPredictedAnnotation =
    "kai.scheduler/numa-placement-predicted";
/// Reads them into `numa_observed` and `numa_predicted`: after reading a pod, and when a mark
/// changes one of them.
void read_numa_marks(PodObject& pod);
/// What a pod's reading takes from its other labels and annotations: its task and its grouping.
/// Run after reading a pod, and again when the replay's binder adds marks.
void derive_from_marks(PodObject& pod);

/// The value of a PriorityClass by name; `found` says whether it exists (else the default).
int priority_of(const std::vector<model::PriorityClass>& classes, const std::string& name,
                bool& found);
/// Sets every field of `job` but its tasks from its PodGroup, in `state`'s queues and classes.
void set_job(model::Job& job, const model::ClusterState& state, const PodGroupObject& pg,
             const std::string& priority_class);
/// Sets `task` (id `id`) from its pod and BindRequest, as the snapshot reads them: everything but
/// its DRA claims, its job and its place on the node's books.
void set_task(model::Task& task, TaskId id, const model::ClusterState& state, const PodObject& pod,
              const BindRequestObject* br, Diagnostics& diagnostics);

}  // namespace sim::io
