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
#include "sim/io/queue_status.hpp"

namespace sim::api {

/// A condition that, once it holds, decides a measure of the replay whatever happens later, so
/// the replay may stop there (the planner stops a candidate that already misses a target).
/// Rules apply only when every pod comes from generators or a trace; otherwise they are ignored.
struct StopRule {
  enum class Kind {
    PERCENTILE,  ///< the nearest-rank `limit` percentile of the counted pods' waits exceeds
                 ///< wait_over_s
    SHARE,       ///< more than `limit` (0..1) of the counted pods waited longer than wait_over_s
    EVICTIONS,   ///< more than `limit` pods of the queues were evicted
    MEAN,        ///< the counted pods' mean wait exceeds `limit` seconds
  };
  Kind kind = Kind::PERCENTILE;
  std::string name;  ///< reported in ReplayResult::stopped_by
  std::vector<std::string>
      queues;  ///< pods of these queues (their `kai.scheduler/queue`); empty: every pod
  std::int64_t from_ms = 0;  ///< only pods submitted at or after this time count
  double wait_over_s = 0;    ///< s
  double limit = 0;
};

/// Where a running replay is, for a progress display.
struct ReplayProgress {
  std::int64_t now_ms = 0;  ///< virtual time reached
  std::int64_t end_ms = 0;  ///< the scenario's duration (a drained replay may end sooner)
  std::size_t cycles = 0;   ///< scheduling cycles so far
  std::size_t pods_submitted = 0;
  std::size_t pods_done = 0;  ///< pods that completed or left the cluster
  bool finished = false;      ///< the last call, once the replay has ended
};

struct ReplayOptions {
  std::string scenario_path;  ///< file to read; with `scenario_text` set, only its name in messages
  std::string scenario_text;  ///< the scenario itself when it does not come from a file
  std::string base_dir;       ///< where manifest paths of `scenario_text` are resolved
  std::string out_dir;        ///< empty: no files, only the summary text
  bool check = false;         ///< evaluate the scenario's `expect` blocks
  /// Reuse the outcome of a cycle that decided nothing while the cluster stays unchanged (see
  /// ReplayResult::cycles_reused). Off only to show that reuse changes no output.
  bool reuse_unchanged_cycles = true;
  /// Called between cycles, if set; returning true stops the replay with Error(INTERRUPTED).
  /// The Python package checks for Ctrl-C here.
  std::function<bool()> poll;
  /// Read and check the scenario and every object it names, then stop: no cycle, no output.
  bool validate_only = false;
  /// Fill ReplayResult::pending_reasons (costs a pass over the jobs after each full cycle).
  bool pending_reasons = false;
  /// Stop after the first cycle at which one of these holds (StopRule); the outputs then end there.
  std::vector<StopRule> stop_rules;
  /// Called about ten times per second of wall time while the replay runs, and once at the end
  /// (empty: not called). It must not throw.
  std::function<void(const ReplayProgress&)> progress;
};

/// One failed expectation, readable as "at 65s: queue team-vision allocated GPU is 0, want 0.33".
struct ExpectationFailure {
  std::int64_t at_ms;
  std::string what;
};

/// Every queue's Queue.status as KAI's controllers would write it, from `at_ms` until the next
/// sample (queue-status.csv holds the same values).
struct QueueStatusSample {
  std::int64_t at_ms;
  std::map<std::string, io::QueueStatus> queues;
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
  /// Queue.status as KAI's controllers would write it, each time it changes.
  std::vector<QueueStatusSample> queue_status;
  /// The output files by name (timeline.csv, kai-timeline.csv, queue-status.csv, events.jsonl,
  /// summary.json), filled whether or not `out_dir` is set; docs/replay-output.md describes them.
  std::map<std::string, std::string> outputs;
  /// What writing `out_dir` did besides creating it (earlier kaisim files replaced, other files
  /// kept, stale temporary folders removed): one line each, for the user.
  std::vector<std::string> output_notes;
  /// With ReplayOptions::pending_reasons: pod-seconds of waiting by queue and reason
  /// ("OverLimit", "OverQuota", "fragmentation", "not enough GPUs", "other", "releasing"; see
  /// docs/plan-format.md), each pending pod counted for the schedulePeriod after each cycle.
  std::map<std::string, std::map<std::string, double>> pending_reasons;
  /// The StopRule that ended the replay early ("" when it ran to its end), and when.
  std::string stopped_by;
  std::int64_t stopped_at_ms = -1;
};

/// Runs the replay. Throws InputError for a bad scenario (file, line, field) before writing
/// anything; output files go through io::write_output_folder (all or nothing; only kaisim's own
/// files are ever replaced).
ReplayResult run_replay(const ReplayOptions& options, Diagnostics& diagnostics);

}  // namespace sim::api
