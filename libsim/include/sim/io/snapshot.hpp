#pragma once
// Cluster state for one scheduling cycle, read from
// - KAI's own snapshot (`snapshot.json` from the snapshot plugin: {"config", "schedulerParams",
//   "rawObjects": {"nodes", "pods", "queues", "podGroups", "bindRequests", "priorityClasses"}}), or
// - a stream of literal Kubernetes manifests (Node, Pod, Queue, PodGroup, BindRequest,
//   PriorityClass, or a `kind: List`), e.g. the runbook's files.
// Pods without a PodGroup are grouped as KAI's pod-grouper groups bare pods.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/model/cluster.hpp"

namespace sim::io {

struct SnapshotOptions {
  /// The session's "now" (ns since the epoch). Unset: the latest timestamp found in the objects,
  /// so the same input always gives the same cycle.
  std::optional<std::int64_t> now_ns;
};

/// One input text (a file). Several can be combined, e.g. a folder of manifests.
struct SnapshotSource {
  /// With kReadPadding (input_limits.hpp) bytes of spare capacity, as read_input_file leaves them,
  /// a JSON text is read where it is; any other is copied once for simdjson.
  std::string text;
  std::string file;
};

/// Parses an RFC 3339 time given on the command line (nanoseconds since the epoch).
std::optional<std::int64_t> parse_time_option(const std::string& text);

/// Parses and validates every object, then builds the cluster state. Throws InputError naming
/// the file, line, column and field of the first bad value; oddities become warnings.
model::ClusterState load_snapshot(const std::vector<SnapshotSource>& sources,
                                  const SnapshotOptions& options, Diagnostics& diagnostics);

}  // namespace sim::io
