#pragma once
// Private: reading the objects the scheduler uses from a live cluster, for the snapshot and for
// the Queue.status prediction of `kaisim diff`.

#include <map>
#include <string>
#include <vector>

#include "kube_api.hpp"
#include "sim/core/error.hpp"

namespace sim::live {

/// A kind the snapshot lists, with the API versions tried (preferred first).
struct SnapshotKind {
  std::string kind;
  std::vector<std::string> api_versions;
};

/// Node, Pod, Queue, PodGroup, BindRequest, PriorityClass, Topology, DeviceClass, ResourceSlice,
/// ResourceClaim, ResourceClaimTemplate, NodeResourceTopology.
const std::vector<SnapshotKind>& snapshot_kinds();

/// The objects of one listing: sorted by kind (in snapshot_kinds() order), namespace and name.
struct ClusterObjects {
  std::vector<ordered_json> items;
  std::map<std::string, std::string> resource_versions;  ///< by kind: where a watch resumes
  std::map<std::string, ResourceInfo> served;            ///< by kind
};

/// Lists every snapshot kind the server serves (warning about the others).
ClusterObjects read_cluster(KubeApi& api, Diagnostics& diagnostics);

/// Drops what only the API server needs (managedFields) from an object, in place.
void trim_object(ordered_json& object);

/// The objects as one JSON `kind: List`, two-space indented, with a trailing newline.
std::string list_text(const std::vector<ordered_json>& items);

/// Sorts objects by kind (snapshot_kinds() order, others after), namespace and name.
void sort_objects(std::vector<ordered_json>& items);

}  // namespace sim::live
