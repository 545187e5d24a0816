#pragma once
// `kaisim diff [PLAN]`: drift between a plan and a live cluster (each Queue's spec, field by
// field) and between kaisim's prediction and the live Queue.status (allocated,
// allocatedNonPreemptible, requested per resource); `--watch` keeps comparing (docs/live.md).
// The comparison with a recording of the real KAI is sim/api/live_recording.hpp.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/live/connection.hpp"

namespace sim::live {

struct DiffOptions {
  /// Plan manifests (files or folders, as `kaisim apply` reads them); empty: status drift only.
  std::vector<std::string> plan;
  /// How long the observed Queue.status may take to show what kaisim predicts (seconds): KAI's
  /// binder binds ~1.1 s after the cycle (~1.9 s for the first pods on a GPU, which wait for the
  /// reservation pod) and the controllers sum the pods within ~1 s.
  double settle_s = 5;
};

/// One compared value. Spec rows: `field` is the Queue spec path (spec.resources.gpu.quota),
/// `resource` empty, `planned` and `observed` set. Status rows: `field` is allocated,
/// allocatedNonPreemptible or requested, `resource` a Kubernetes resource name, `predicted` and
/// `observed` Kubernetes quantities ("330m").
struct DriftRow {
  std::string queue;
  std::string kind;  ///< "spec" or "status"
  std::string field;
  std::string resource;
  std::string planned, predicted, observed;
  bool drift = false;
  double at_s = 0;  ///< --watch and --recording: seconds since the start
};

struct DiffReport {
  std::vector<DriftRow> rows;
  /// A line printed before the table (what was compared), or empty.
  std::string note;
  /// text() lists only drifting rows (a recording compares thousands of values).
  bool text_drift_only = false;
  bool drifting() const;
  /// A table, one row per line, then "drift: N of M values" (or "no drift: M values").
  std::string text() const;
  /// {"schema_version": 1, "rows": [...], "drifting": N} (docs/live.md).
  std::string json() const;
};

/// Reads the cluster once, predicts each Queue's status from that state (one KAI cycle whose
/// binds then land, pods counted as KAI's podgroup-controller counts them), and compares it with
/// the Queue.status observed, re-reading the Queues until they agree or `settle_s` has passed.
DiffReport diff_live(const ConnectionOptions& connection, const DiffOptions& options,
                     Diagnostics& diagnostics);

/// Keeps comparing for `duration_s` (< 0: until `keep_going` returns false) with watches on
/// Queues, PodGroups, Pods and Nodes (resumed where they stopped after a dropped connection;
/// listed again after 410 Gone). A value counts as drifting once it has differed for longer than
/// `settle_s`. `on_change` gets the rows whose drift began or ended (all rows the first time).
/// Returns the last comparison.
DiffReport watch_diff(const ConnectionOptions& connection, const DiffOptions& options,
                      double duration_s, const std::function<void(const DiffReport&)>& on_change,
                      const std::function<bool()>& keep_going, Diagnostics& diagnostics);

}  // namespace sim::live
