#pragma once
// `kaisim replay`: a scenario (docs/scenario-format.md) replayed on a virtual clock, one KAI
// scheduling cycle every schedulePeriod, with the cluster kept as Kubernetes objects between
// cycles exactly as the API server would hold them.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sim/core/error.hpp"

namespace sim::api {

/// Where a running replay is, for a progress display.
struct ReplayProgress {
  std::int64_t now_ms = 0;     ///< virtual time reached
  std::int64_t end_ms = 0;     ///< the scenario's duration (a drained replay may end sooner)
  std::size_t cycles = 0;      ///< scheduling cycles so far
  std::size_t pods_submitted = 0;
  std::size_t pods_done = 0;   ///< pods that completed or left the cluster
  bool finished = false;       ///< the last call, once the replay has ended
};

struct ReplayOptions {
  std::string scenario_path;  ///< file to read; with `scenario_text` set, only its name in messages
  std::string scenario_text;  ///< the scenario itself when it does not come from a file
  std::string base_dir;       ///< where manifest paths of `scenario_text` are resolved
  std::string out_dir;  ///< empty: no files, only the summary text
  bool check = false;   ///< evaluate the scenario's `expect` blocks
  /// Reuse the outcome of a cycle that decided nothing while the cluster stays unchanged (see
  /// ReplayResult::cycles_reused). Off only to show that reuse changes no output.
  bool reuse_unchanged_cycles = true;
  /// Called about ten times per second of wall time while the replay runs, and once at the end
  /// (empty: not called). It must not throw.
  std::function<void(const ReplayProgress&)> progress;
};

/// One failed expectation, readable as "at 65s: queue team-vision allocated GPU is 0, want 0.33".
struct ExpectationFailure {
  std::int64_t at_ms;
  std::string what;
};

struct ReplayResult {
  std::string summary_table;  ///< the human-readable table printed on stdout
  std::vector<ExpectationFailure> failures;
  std::size_t expectations_checked = 0;
  std::size_t cycles = 0;
  /// Cycles whose outcome was reused because nothing had changed since a cycle that decided
  /// nothing, or, when nothing is pending, nothing but bound pods starting to run (and no
  /// clock-dependent rule was in play); they count in `cycles` too.
  std::size_t cycles_reused = 0;
  /// Cycles right after one that bound the last pending pods (and evicted nothing): with nothing
  /// pending the actions have nothing to do, so only the fair share is recomputed, on the state
  /// that cycle left; they count in `cycles` too.
  std::size_t cycles_fair_share_only = 0;
  /// Full cycles on the state the previous cycle left, brought up to date with the pods that
  /// arrived, started or completed since, instead of a new snapshot of every object (the same
  /// state, built faster); they count in `cycles` too.
  std::size_t cycles_updated = 0;
  /// The output files by name (timeline.csv, kai-timeline.csv, events.jsonl, summary.json),
  /// filled whether or not `out_dir` is set; docs/replay-output.md describes them.
  std::map<std::string, std::string> outputs;
};

/// Runs the replay. Throws InputError for a bad scenario (file, line, field) before writing
/// anything; output files are written to a temporary folder and renamed into place at the end,
/// so a failed run leaves no partial output.
ReplayResult run_replay(const ReplayOptions& options, Diagnostics& diagnostics);

}  // namespace sim::api
