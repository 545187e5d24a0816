#pragma once
// Dynamic Resource Allocation objects as KAI's dynamicresources plugin uses them
// (resource.k8s.io/v1: DeviceClass, ResourceSlice, ResourceClaim), reduced to what decides
// placement: which devices a node offers, which a claim asks for and which it holds.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/model/device_selector.hpp"
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

/// A device attribute (DeviceAttribute: exactly one of int, bool, string, version).
struct DeviceAttribute {
  enum class Kind { INT, BOOL, STRING, VERSION };
  Kind kind = Kind::STRING;
  std::int64_t integer = 0;
  bool boolean = false;
  std::string text;  ///< string and version values
};

/// A device of a ResourceSlice with what selectors read of it. Attribute and capacity names are
/// qualified, "domain/name"; a name without a domain has the slice's driver as its domain.
struct SliceDevice {
  std::string name;
  std::map<std::string, DeviceAttribute> attributes;
  std::map<std::string, std::int64_t> capacity;  ///< milli-units
};

/// A ResourceSlice: devices published by a driver for one node (or for every node).
struct DraSlice {
  std::string name;
  std::string driver;
  std::string pool;
  std::string node;        ///< spec.nodeName; empty when all_nodes
  bool all_nodes = false;  ///< spec.allNodes
  std::vector<SliceDevice> devices;
};

/// A DeviceClass: a device must match every selector (none: every device). Selectors kaisim
/// cannot parse are reported when read and left out.
struct DeviceClass {
  std::string name;
  std::vector<DeviceSelector> selectors;
};

/// One request of a claim (spec.devices.requests[].exactly).
struct DraRequest {
  std::string name;
  std::string device_class;
  std::int64_t count = 1;                 ///< ExactCount; ignored with all
  bool all = false;                       ///< allocationMode All
  std::vector<DeviceSelector> selectors;  ///< on top of the class's
  bool first_available = false;           ///< a list of subrequests instead of `exactly`
  /// Why the allocator refuses the request (KAI runs it with every optional DRA feature off:
  /// `firstAvailable`, admin access); empty when it does not.
  std::string refused;
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
