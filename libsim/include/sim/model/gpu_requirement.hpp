#pragma once
// A pod's GPU demand (pkg/scheduler/api/resource_info/gpu_resource_requirment.go): a count of
// devices, the portion of each device (1 for whole GPUs), GPU memory per device in MiB, and MIG
// instances by profile name. The arithmetic is KAI's, in doubles, in KAI's operation order.

#include <cstdint>
#include <string>

#include "sim/model/shared_map.hpp"

namespace sim::model {

struct GpuRequirement {
  std::int64_t count = 0;       ///< devices
  double portion = 0;           ///< share of each device; 1 for whole GPUs
  std::int64_t memory_mib = 0;  ///< per device, for gpu-memory requests
  SharedMap<std::int64_t> mig;  ///< e.g. {"nvidia.com/mig-3g.20gb": 1}; shared by copies
  std::int64_t dra = 0;         ///< GPU devices asked for through DRA claims (draGpuCounts, summed)

  /// Whole GPUs requested as an extended resource: N >= 1 -> (N, 1); 0 < g < 1 -> (1, g);
  /// a gpu-memory request -> (1, 0, memory) (NewGpuResourceRequirementWithGpus).
  static GpuRequirement with_gpus(double gpus, std::int64_t memory_mib);
  static GpuRequirement multi_fraction(std::int64_t count, double portion, std::int64_t memory_mib);

  /// round(portion * 100) * count / 100: the portion is rounded to whole percent.
  double gpus() const;
  /// gpus() plus MIG slices (a `mig-Ng.*` instance counts as N GPUs) plus DRA GPUs.
  double gpus_quota() const;
  /// count * (memory / device memory); 0 unless this is a gpu-memory request.
  double memory_as_fraction(std::int64_t device_memory_mib) const;
  bool is_empty() const;
};

/// The `g` count of a MIG profile name such as "nvidia.com/mig-3g.20gb" (3); 0 if not MIG.
std::int64_t mig_profile_gpus(const std::string& resource_name);

/// True for "nvidia.com/mig-..." resource names.
bool is_mig_resource(const std::string& resource_name);

}  // namespace sim::model
