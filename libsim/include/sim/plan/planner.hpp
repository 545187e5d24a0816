#pragma once
// `kaisim plan`: answers a plan file's question (docs/plan-format.md) with full replays of the
// base scenario on several workload seeds, and writes the plan folder: the manifests, plan.json,
// report.md and report.html with their figures. Same plan, same bytes, however many threads.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
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

/// Replays `job` and measures it (waits, evictions, reclaim latency, pending reasons,
/// Queue.status); returns the measure as JSON text. Thread-safe; what a Dask worker runs.
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
  double left_s = 0;  ///< estimate from the replays' mean time
};

struct PlanOptions {
  int jobs = 0;                    ///< parallel replays on local threads; 0 = one per core
  ReplayRunner* runner = nullptr;  ///< replaces the local threads when set
  std::function<void(const Progress&)> progress;
};

struct PlanResult {
  /// Every file of the plan folder by name (plan.json, report.md, report.html, the figures'
  /// SVG files, queues.yaml, ...).
  std::map<std::string, std::string> files;
  std::string summary;       ///< what the CLI prints: the answer and any failing target
  bool targets_met = false;  ///< the answer meets every target on the seeds and the fresh seeds
  std::size_t replays = 0;
  double replay_seconds = 0;  ///< wall time spent waiting for replays (all threads together)
  double search_seconds = 0;  ///< wall time of everything else (scenarios, statistics, report)
};

/// Answers the plan. Throws InputError for a bad plan or base scenario (before any replay).
PlanResult run_plan(const PlanSpec& plan, const PlanOptions& options, Diagnostics& diagnostics);

class Planner;

/// A plan being answered step by step: what the Python package drives when another optimiser
/// (Optuna) proposes the quota candidates. `answer()` is run_plan's own search.
class PlanSession {
 public:
  /// One searched number of the quota knobs.
  struct Dimension {
    std::string queue;
    std::string field;  ///< "quota", "limit" or "overQuotaWeight"
    double min = 0, max = 0, step = 0;
  };

  /// Reads the base scenario and checks the knobs; throws InputError like run_plan.
  PlanSession(const PlanSpec& plan, const PlanOptions& options, Diagnostics& diagnostics);
  ~PlanSession();
  PlanSession(const PlanSession&) = delete;
  PlanSession& operator=(const PlanSession&) = delete;

  /// The base scenario's leaf queues, in name order.
  std::vector<std::string> leaf_queues() const;
  /// The quota knobs' ranges, in the order judge_quotas takes values.
  std::vector<Dimension> dimensions() const;
  /// Judges quota candidates (each a value per dimension, put on its grid) on the plan's seeds,
  /// or the fresh ones, all replays together. Returns each candidate's id (its place in
  /// plan.json's candidates), or -1 when it breaks a rule (children's quotas above the parent's,
  /// a quota above its limit) and is not judged.
  std::vector<int> judge_quotas(const std::vector<std::vector<double>>& values, bool fresh,
                                const std::string& role);
  /// A judged candidate as plan.json lists it (JSON text).
  std::string candidate_json(int id) const;

  /// The plan's own deterministic search; the session is used up afterwards.
  PlanResult answer();
  /// A quota answer chosen by the caller: `chosen` is judged again on the fresh seeds (when the
  /// plan has any) and `pareto` is the front to report; `notes` go into the summary.
  PlanResult finish(int chosen, const std::vector<int>& pareto,
                    const std::vector<std::string>& notes);

 private:
  const PlanSpec& plan_;
  PlanOptions options_;
  Diagnostics& diagnostics_;
  std::unique_ptr<Planner> planner_;
};

/// Writes the folder through io::write_output_folder (all at once; an earlier plan folder's files
/// replaced, nobody else's; see docs/plan-format.md). Returns what it did besides creating the
/// folder, one line each, for the user.
std::vector<std::string> write_plan_folder(const std::string& out, const PlanResult& result);

}  // namespace sim::plan
