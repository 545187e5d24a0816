#pragma once
// Private: build a cluster state from already parsed Kubernetes objects (the replay keeps its
// world as objects and rebuilds the state every cycle).

#include <memory>
#include <vector>

#include "sim/io/snapshot.hpp"
#include "yaml_field.hpp"

namespace sim::io {

/// The objects of one document in typed form (opaque): read once, reused while the document does
/// not change.
struct ParsedObjects;

/// A pod's spec.tolerations (null: none); the replay's taint eviction reads them too.
std::vector<model::Toleration> read_tolerations(const Field& list);

/// Reads every object of `doc` (a manifest, a List, or a KAI snapshot). Throws InputError on a bad
/// field. The Field's file name must outlive the result.
std::shared_ptr<const ParsedObjects> parse_objects(const Field& doc, Diagnostics& diagnostics);

/// The cluster state of all `parts`, in their order (build_cluster_state's rules).
model::ClusterState assemble_cluster_state(const std::vector<const ParsedObjects*>& parts,
                                           const SnapshotOptions& options, Diagnostics& diagnostics);
/// The same, built in `recycled`'s storage: a replay assembles thousands of nodes and pods every
/// cycle, and assigning over last cycle's objects reuses their memory instead of allocating
/// anew. The result depends only on `parts`, never on what `recycled` held.
model::ClusterState assemble_cluster_state(const std::vector<const ParsedObjects*>& parts,
                                           const SnapshotOptions& options, Diagnostics& diagnostics,
                                           model::ClusterState recycled);

/// Like load_snapshot, over documents that are already parsed. Each Field keeps a pointer to its
/// file name, which must outlive the call.
model::ClusterState build_cluster_state(const std::vector<Field>& docs, const SnapshotOptions& options,
                                        Diagnostics& diagnostics);

}  // namespace sim::io
