#pragma once
// A pod as the scheduler tracks it (pkg/scheduler/api/pod_info/pod_info.go PodInfo): its
// request, where it runs, its GPU groups and what it accepted on its node.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/out_of_line.hpp"
#include "sim/core/resource_vec.hpp"
#include "sim/core/strong_id.hpp"
#include "sim/model/dra.hpp"
#include "sim/model/gpu_requirement.hpp"
#include "sim/model/numa.hpp"
#include "sim/model/placement_rules.hpp"
#include "sim/model/shared_map.hpp"
#include "sim/model/task_status.hpp"

namespace sim {
struct TaskTag {};
struct JobTag {};
struct NodeTag {};
using TaskId = StrongId<TaskTag>;
using JobId = StrongId<JobTag>;
using NodeId = StrongId<NodeTag>;
}  // namespace sim

namespace sim::model {

/// How the pod asks for GPUs; every pod without a fraction/memory/MIG request is REGULAR,
/// including CPU-only pods (KAI's default RequestTypeRegular).
enum class RequestType : std::uint8_t { REGULAR, FRACTION, GPU_MEMORY, MIG };
/// What the pod received once placed (KAI ResourceReceivedType).
enum class ReceivedType : std::uint8_t { NONE, REGULAR, FRACTION, MIG };

/// What a pod holds of NUMA zones and DRA claims (most pods: nothing).
struct TaskDevices {
  /// What NUMA alignment applies to; set for Guaranteed pods only.
  std::shared_ptr<const NumaUnits> numa_units;
  /// Persisted NUMA placement (observed annotation, else BindRequest, else predicted annotation).
  std::vector<ZoneAmounts> numa_record;
  /// The NUMA zones this pod is charged to on its node in this session (by zone index).
  std::vector<ZoneAmounts> numa_placement;
  /// DRA claims of the pod (spec.resourceClaims).
  std::vector<PodClaim> claims;
  /// ResourceClaimInfo: per pod claim name, the devices its claim held when this pod last had it
  /// (a virtual eviction gives them back on undo).
  std::map<std::string, std::optional<DraAllocation>> claim_memory;

  bool empty() const {
    return !numa_units && numa_record.empty() && numa_placement.empty() && claims.empty() &&
           claim_memory.empty();
  }
};
using TaskDevicesBox = OutOfLine<TaskDevices>;

struct Task {
  // The fields every cycle reads for every pod come first, a few cache lines together: a replay
  // walks thousands of tasks several times a cycle.
  TaskId id;
  JobId job;
  /// Index of its PodSet in the job's SubGroupTree; -1 when its kai.scheduler/subgroup-name
  /// names no subgroup of the PodGroup (KAI never schedules such a pod).
  int pod_set = 0;
  TaskStatus status = TaskStatus::PENDING;
  NodeId node = NodeId::invalid();
  RequestType request_type = RequestType::REGULAR;
  ReceivedType received_type = ReceivedType::NONE;
  /// True while the status was set inside this session (virtual eviction/allocation).
  bool virtual_status = false;
  bool reservation = false;  ///< KAI GPU reservation pod (app=kai-resource-reservation)
  bool foreign = false;      ///< scheduled by another scheduler: uses node resources only
  bool legacy_mig = false;
  bool controller_owned = false;  ///< an owner recreates it after eviction
  bool has_task_priority = false;
  /// QoS class Guaranteed (every container's cpu and memory requests equal their limits).
  bool qos_guaranteed = false;
  ResourceVec request = ResourceVec::Zero();  ///< cpu millicores, memory bytes, GPUs(), pods (1)
  ResourceVec accepted = ResourceVec::Zero();
  GpuRequirement gpu;
  GpuRequirement accepted_gpu;
  std::vector<std::string> gpu_groups;  ///< shared-GPU group ids this pod uses

  std::string uid;
  std::string name;
  std::string ns;             ///< namespace
  SharedMap<double> scalars;  ///< its MIG instances as scalar resources; shared by copies
  std::int64_t created_ns = 0;
  std::int64_t task_priority = 0;  ///< label kai.scheduler/task-priority
  std::string nominated_node;
  Labels labels;
  SharedPlacement placement;  ///< shared by the copies of this task
  TaskDevicesBox devices;     ///< NUMA and DRA; absent for most pods

  std::string key() const { return ns + "/" + name; }
  bool is_fraction_candidate() const {
    return request_type == RequestType::FRACTION || request_type == RequestType::GPU_MEMORY;
  }
  bool is_shared_gpu_allocation() const { return received_type == ReceivedType::FRACTION; }
  bool is_gpu_memory_request() const { return request_type == RequestType::GPU_MEMORY; }
  bool is_mig_candidate() const { return request_type == RequestType::MIG; }
  bool is_regular_gpu_request() const { return request_type == RequestType::REGULAR; }
  /// Whether a node's fit check compares the GPU entry of the request with the node's vector
  /// (whole GPUs or MIG); a fraction's GPUs are judged by the node's shared groups instead.
  bool fits_gpus_by_vector() const { return is_regular_gpu_request() || is_mig_candidate(); }
  /// Whether Node::task_fits compares the request's vector and nothing else, on every node
  /// alike: whole GPUs (or MIG) or none, no scalar resources, and a GPU portion that needs no
  /// node's memory to read and is valid (a whole number of devices, or at most one).
  bool fits_by_vector_only() const {
    if (!fits_gpus_by_vector() || !scalars.empty() || gpu.memory_mib > 0) return false;
    return gpu.portion <= 1 ||
           gpu.portion == static_cast<double>(static_cast<std::int64_t>(gpu.portion));
  }
  bool requires_any_gpu() const {
    return gpu.gpus() > 0 || gpu.dra > 0 || is_gpu_memory_request() || is_mig_candidate();
  }
  bool is_cpu_only() const { return !requires_any_gpu(); }
  /// The same resource requests: kind, amounts, GPUs (devices, portion, memory, MIG), scalars.
  bool same_requests(const Task& o) const {
    return request_type == o.request_type && (request == o.request).all() &&
           gpu.count == o.gpu.count && gpu.portion == o.gpu.portion &&
           gpu.memory_mib == o.gpu.memory_mib && gpu.mig == o.gpu.mig && scalars == o.scalars;
  }
};

}  // namespace sim::model
