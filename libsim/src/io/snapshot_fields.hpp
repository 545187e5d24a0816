#pragma once
// Private: build a cluster state from already parsed Kubernetes objects (the replay keeps its
// world as objects and rebuilds the state every cycle).

#include <vector>

#include "sim/io/snapshot.hpp"
#include "yaml_field.hpp"

namespace sim::io {

/// Like load_snapshot, over documents that are already parsed. Each Field keeps a pointer to its
/// file name, which must outlive the call.
model::ClusterState build_cluster_state(const std::vector<Field>& docs, const SnapshotOptions& options,
                                        Diagnostics& diagnostics);

}  // namespace sim::io
