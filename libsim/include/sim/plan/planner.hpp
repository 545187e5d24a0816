#pragma once
// `kaisim plan`: answers a plan file's question (docs/plan-format.md) with full replays of the
// base scenario on several workload seeds, and writes the plan folder: the manifests, plan.json,
// report.md and report.html with their figures. Same plan, same bytes, however many threads.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/plan/plan_spec.hpp"

namespace sim::plan {

/// One replay the planner needs: a candidate's scenario for one seed, and what to measure.
struct ReplayJob {
  std::string scenario_text;
  std::string scenario_name;  ///< for messages
  std::string base_dir;       ///< where the scenario's relative paths resolve
  std::uint64_t seed = 0;
  std::string measure_options;  ///< JSON: queue parents, warm-up, Queue.status times
};

/// Replays `job` and measures it (waits, evictions, reclaim latency, pending reasons, Queue.status);
/// returns the measure as JSON text. Thread-safe; what a Dask worker runs.
std::string run_replay_job(const ReplayJob& job);

/// Runs batches of replays. The default runs them on local threads; the Python package passes
/// one that maps them over a Dask cluster. Results come back in job order.
class ReplayRunner {
 public:
  virtual ~ReplayRunner() = default;
  virtual std::vector<std::string> run(const std::vector<ReplayJob>& jobs) = 0;
};

/// What a running plan reports after each batch (for a progress line).
struct Progress {
  std::size_t judged = 0;        ///< candidates judged so far
  std::size_t replays = 0;       ///< replays run so far
  std::size_t replays_left = 0;  ///< the search's estimate of replays still to run
  std::string best;              ///< best answer so far, in words ("6 GPUs (6 x l40s)")
  double elapsed_s = 0;
  double left_s = 0;             ///< estimate from the replays' mean time
};

struct PlanOptions {
  int jobs = 0;                     ///< parallel replays on local threads; 0 = one per core
  ReplayRunner* runner = nullptr;   ///< replaces the local threads when set
  std::function<void(const Progress&)> progress;
};

struct PlanResult {
  /// Every file of the plan folder by name (plan.json, report.md, report.html, the figures'
  /// SVG files, queues.yaml, ...).
  std::map<std::string, std::string> files;
  std::string summary;          ///< what the CLI prints: the answer and any failing target
  bool targets_met = false;     ///< the answer meets every target on the seeds and the fresh seeds
  std::size_t replays = 0;
  double replay_seconds = 0;    ///< wall time spent waiting for replays (all threads together)
  double search_seconds = 0;    ///< wall time of everything else (scenarios, statistics, report)
};

/// Answers the plan. Throws InputError for a bad plan or base scenario (before any replay).
PlanResult run_plan(const PlanSpec& plan, const PlanOptions& options, Diagnostics& diagnostics);

/// Writes the folder all at once (replacing an earlier plan folder only; see
/// docs/plan-format.md).
void write_plan_folder(const std::string& out, const PlanResult& result);

}  // namespace sim::plan
