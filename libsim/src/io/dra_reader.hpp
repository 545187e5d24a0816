#pragma once
// Private: the DRA objects KAI's dynamicresources plugin reads (resource.k8s.io v1, v1beta1 and
// v1beta2 field layouts): DeviceClass, ResourceSlice, ResourceClaim, a pod's claim references and
// a BindRequest's claim allocations.

#include <optional>
#include <string>
#include <vector>

#include "io/yaml_field.hpp"
#include "sim/core/error.hpp"
#include "sim/model/dra.hpp"

namespace sim::io {

/// A DeviceClass with the CEL selectors kaisim evaluates (a warning names each one left out).
model::DeviceClass read_device_class(const Field& obj, Diagnostics& diagnostics);

/// A ResourceSlice. One offered through a node selector counts on no node (a warning says so).
model::DraSlice read_resource_slice(const Field& obj, Diagnostics& diagnostics);

/// A ResourceClaim with its status (allocation, node, consumers).
model::ResourceClaim read_resource_claim(const Field& obj, Diagnostics& diagnostics);

/// A ResourceClaimTemplate's claim (spec.spec), checked as a claim's spec: the scheduler never
/// reads templates, the replay's claim controller makes claims of them.
void check_claim_template(const Field& obj, Diagnostics& diagnostics);

/// A pod's spec.resourceClaims entry: its name and the claim it names (resourceClaimName, or for
/// a template the name the pod's status.resourceClaimStatuses gives; empty when not created yet).
struct PodClaimRef {
  std::string name;
  std::string claim;
  bool from_template = false;
};
std::vector<PodClaimRef> read_pod_claims(const Field& pod);

/// A BindRequest's spec.resourceClaimAllocations: pod claim name and allocation.
std::vector<std::pair<std::string, model::DraAllocation>> read_claim_allocations(const Field& spec);

}  // namespace sim::io
