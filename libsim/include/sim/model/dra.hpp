#pragma once
// Dynamic Resource Allocation objects as KAI's dynamicresources plugin uses them
// (resource.k8s.io/v1: DeviceClass, ResourceSlice, ResourceClaim), reduced to what decides
// placement: which devices a node offers, which a claim asks for and which it holds.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/model/placement_rules.hpp"

namespace sim::model {

/// A device of a ResourceSlice: driver, pool and device name identify it.
struct DraDevice {
  std::string driver, pool, name;
  bool operator==(const DraDevice&) const = default;
};

/// A claim's status.allocation: the devices it holds and the node they are on (empty: any node,
/// no node selector).
struct DraAllocation {
  std::vector<DraDevice> devices;
  std::string node;
  bool operator==(const DraAllocation&) const = default;
};

/// A ResourceSlice: devices published by a driver for one node (or for every node).
struct DraSlice {
  std::string name;
  std::string driver;
  std::string pool;
  std::string node;        ///< spec.nodeName; empty when all_nodes
  bool all_nodes = false;  ///< spec.allNodes
  std::vector<std::string> devices;
};

/// A DeviceClass. kaisim evaluates one CEL form of its selectors, `device.driver == "<name>"`
/// (`driver`); a class without selectors matches every device.
struct DeviceClass {
  std::string name;
  std::optional<std::string> driver;
  bool matches(const DraDevice& d) const { return !driver || *driver == d.driver; }
};

/// One request of a claim (spec.devices.requests[].exactly).
struct DraRequest {
  std::string name;
  std::string device_class;
  std::int64_t count = 1;  ///< ExactCount; ignored with all
  bool all = false;        ///< allocationMode All
};

/// A ResourceClaim with its allocation and consumers (the session's ledger of claims).
struct ResourceClaim {
  std::string ns, name;
  Labels labels;
  std::vector<DraRequest> requests;
  std::optional<DraAllocation> allocation;
  std::vector<std::string> reserved_for;  ///< status.reservedFor pod uids

  /// IsGpuResourceClaim: some request names a device class with "gpu" in its name.
  bool is_gpu_claim() const;
  /// countGPUDevicesFromClaim: the GPU devices it asks for (All counts as one).
  std::int64_t gpu_devices() const;
};

/// A pod's reference to a claim (spec.resourceClaims[] resolved to a claim).
struct PodClaim {
  std::string name;            ///< the pod's name for it
  int claim = -1;              ///< index in ClusterState::claims, -1 if the claim does not exist
  std::string claim_name;      ///< the ResourceClaim's name (for messages)
  bool from_template = false;  ///< resourceClaimTemplateName: a claim of this pod alone
};

/// IsGPUDeviceClass: KAI counts a device class or driver as GPUs when its name says "gpu".
bool is_gpu_device_class(const std::string& name);

/// resourceapi.ResourceClaimReservedForMaxSize.
inline constexpr std::size_t kClaimMaxConsumers = 256;

}  // namespace sim::model
