#pragma once
// `kaisim verify-live SCENARIO`: a scenario's objects and steps applied to a live cluster at the
// scenario's times, each step's settled Queue.status compared with the replay's prediction.

#include <functional>
#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/live/connection.hpp"
#include "sim/live/diff.hpp"

namespace sim::api {

struct VerifyOptions {
  std::string scenario;
  /// How long Queue.status may take to show the prediction after its last change (seconds).
  double settle_s = 5;
};

struct VerifyStep {
  std::size_t index = 0;  ///< 1-based
  std::string name;
  double at_s = 0;           ///< the step's time in the scenario
  double compared_at_s = 0;  ///< when the comparison ended (seconds after the first step)
  std::vector<std::string>
      actions;  ///< what was applied and deleted ("apply Pod default/x: created")
  std::vector<live::DriftRow> rows;  ///< each queue's status fields against the prediction
  bool drift = false;
};

struct VerifyReport {
  std::vector<VerifyStep> steps;
  std::size_t drifting() const;
  /// {"schema_version": 1, "steps": [...]}.
  std::string json() const;
  /// A step's lines: "step 2 at 60 s (name): ok" or "...: DRIFT" and the drifting values.
  static std::string step_text(const VerifyStep& step);
};

/// Replays the scenario (the prediction), applies its manifests (not Nodes: the cluster has its
/// own) with server-side apply, then each step at its time, and after each step compares the
/// Queue.status of the scenario's queues with the prediction for the end of the step (before
/// the next one), from its last predicted change for up to `settle_s`. `on_step` gets each step
/// when it is compared. Throws ClusterError when the cluster cannot be reached or refuses an
/// object.
VerifyReport verify_live(const live::ConnectionOptions& connection, const VerifyOptions& options,
                         const std::function<void(const VerifyStep&)>& on_step,
                         Diagnostics& diagnostics);

}  // namespace sim::api
