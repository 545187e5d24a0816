#pragma once
// `kaisim snapshot`: the objects the scheduler reads, listed from a live cluster into one file
// that kaisim reads back as it is (`kaisim cycle FILE`, a scenario's `manifests: [FILE]`).

#include <string>

#include "sim/core/error.hpp"
#include "sim/live/connection.hpp"

namespace sim::live {

/// Nodes, Pods, Queues, PodGroups, BindRequests, PriorityClasses, Topologies, DRA objects
/// (DeviceClasses, ResourceSlices, ResourceClaims, ResourceClaimTemplates) and
/// NodeResourceTopologies, as one JSON `kind: List` (objects sorted by kind, namespace and name;
/// managedFields dropped). Kinds the server does not serve are left out with a warning.
/// Throws ClusterError when the cluster cannot be read.
std::string take_snapshot(const ConnectionOptions& options, Diagnostics& diagnostics);

}  // namespace sim::live
