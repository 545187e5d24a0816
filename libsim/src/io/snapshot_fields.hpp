#pragma once
// Private: build a cluster state from already parsed Kubernetes objects (the replay keeps its
// world as objects and rebuilds the state every cycle).

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/io/snapshot.hpp"
#include "yaml_field.hpp"

namespace sim::io {

/// The objects of one document in typed form (opaque): read once, reused while the document does
/// not change.
struct ParsedObjects;

/// A pod's spec.tolerations (null: none); the replay's taint eviction reads them too.
std::vector<model::Toleration> read_tolerations(const Field& list);

struct PodObject;
/// A pod's reading after these labels and annotations were set on its document (the replay's
/// binder writes a shared pod's GPU group and received type): what the reading derives from them
/// is derived again, as parsing the changed document would.
void add_pod_marks(PodObject& pod, const std::vector<std::pair<std::string, std::string>>& labels,
                   const std::vector<std::pair<std::string, std::string>>& annotations);

/// Reads every object of `doc` (a manifest, a List, or a KAI snapshot). Throws InputError on a bad
/// field. The Field's file name must outlive the result.
std::shared_ptr<const ParsedObjects> parse_objects(const Field& doc, Diagnostics& diagnostics);

/// The cluster state of all `parts`, in their order (build_cluster_state's rules).
model::ClusterState assemble_cluster_state(const std::vector<const ParsedObjects*>& parts,
                                           const SnapshotOptions& options,
                                           Diagnostics& diagnostics);
/// The same, built in `recycled`'s storage: a replay assembles thousands of nodes and pods every
/// cycle, and assigning over last cycle's objects reuses their memory instead of allocating
/// anew. The result depends only on `parts`, never on what `recycled` held.
model::ClusterState assemble_cluster_state(const std::vector<const ParsedObjects*>& parts,
                                           const SnapshotOptions& options, Diagnostics& diagnostics,
                                           model::ClusterState recycled);

/// What changed in a replay's objects since a state was assembled, when only pods and PodGroups
/// did. Gone objects are named "namespace/name"; changed ones (new, or with a new reading) are
/// parts of one object each.
struct PodChanges {
  std::vector<std::string> gone_pods, gone_groups;
  std::vector<const ParsedObjects*> pods, groups;
};
/// Whether update_pods can follow changes to `state`: its pods and PodGroups are in the order of
/// their keys (no reservation pods, no pods without a PodGroup, no List objects), no two
/// PodGroups share a name, and it holds no DRA objects and no NUMA topologies.
bool updatable(const model::ClusterState& state);
/// Brings `state`, which assemble_cluster_state built, to the state it would build after
/// `changes`: the same tasks and jobs in the same order (the ids after an added or gone one
/// shift), and each node that held or now holds a changed pod built again from its Node object
/// (`node_object` finds it by name). The caller sets the state's clock and GPU group counter;
/// `updatable(state)` must have held when the state was assembled (updates keep it). False,
/// with `state` untouched, for a change this does not follow (DRA objects, reservation pods, pods
/// without a PodGroup annotation, a PodGroup name used in two namespaces):
/// the state must then be assembled anew. BindRequests are the caller's to rule out.
bool update_pods(model::ClusterState& state, const PodChanges& changes,
                 const std::function<const ParsedObjects*(const std::string&)>& node_object,
                 Diagnostics& diagnostics);

/// The task of the pod "namespace/name" in an updatable state, or invalid.
TaskId find_task(const model::ClusterState& state, std::string_view ns, std::string_view name);
/// The task a changed pod would become if update_pods took it into `state`, without changing
/// the state: the task of the same key, read anew into `out`. False when update_pods would not
/// follow the pod the same way: not a one-pod part of a KAI pod without DRA claims, not in the
/// state, or in another PodGroup than its task's job.
bool read_changed_pod(const model::ClusterState& state, const ParsedObjects& part, model::Task& out,
                      Diagnostics& diagnostics);

/// Like load_snapshot, over documents that are already parsed. Each Field keeps a pointer to its
/// file name, which must outlive the call.
model::ClusterState build_cluster_state(const std::vector<Field>& docs,
                                        const SnapshotOptions& options, Diagnostics& diagnostics);

}  // namespace sim::io
