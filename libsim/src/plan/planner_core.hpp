#pragma once
// Private: what every question's search shares: the base scenario, the seeds, judging
// candidates in batches (each candidate once per seed set), the record of everything judged,
// and the time spent.

#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base_scenario.hpp"
#include "judge.hpp"
#include "sim/plan/planner.hpp"

namespace sim::plan {

/// Which seeds a judgement used: the plan's seeds, or the fresh ones the answer is checked on.
enum class SeedSet { MAIN, FRESH };

/// A judged candidate as the result lists it.
struct Entry {
  Judgement judgement;
  SeedSet seeds = SeedSet::MAIN;
  std::string role;  ///< "search", "neighbour", "recheck", "screen-best", "alternative", ...
};

class Planner {
 public:
  Planner(const PlanSpec& plan, const PlanOptions& options, Diagnostics& diagnostics);

  const PlanSpec& plan() const { return plan_; }
  const BaseScenario& base() const { return *base_; }
  const std::vector<std::uint64_t>& seeds(SeedSet s) const {
    return s == SeedSet::MAIN ? main_ : fresh_;
  }

  /// Judges each candidate on the seed set (replays run together, in parallel); a candidate
  /// judged before on the same set is not replayed again. Adds new ones to `entries()`. A
  /// replay stops as soon as a target is missed for certain on its seed, unless `full`: then
  /// every replay runs to its end and every measure is complete.
  std::vector<const Judgement*> judge(const std::vector<Candidate>& candidates, SeedSet seeds,
                                      const std::string& role, bool full = false);
  const Judgement& judge_one(const Candidate& c, SeedSet seeds, const std::string& role,
                             bool full = false) {
    return *judge({c}, seeds, role, full).front();
  }
  /// `j` itself when its replays ran to their end, else `j`'s candidate judged again in full.
  const Judgement& complete(const Judgement& j, SeedSet seeds, const std::string& role);

  /// Every judgement so far, in judging order (references stay valid).
  const std::deque<Entry>& entries() const { return entries_; }
  /// The search's own estimate of the replays still to come, for the progress line.
  void expect_replays(std::size_t n) { expected_ = n; }
  void set_best(std::string best) { best_ = std::move(best); }

  /// A candidate in words: "6 x l40s (6 GPUs)", "team-nlp quota 0.5 limit 1 weight 2, ...".
  std::string describe(const Candidate& c) const;

  std::size_t replays() const { return replays_; }
  double replay_seconds() const { return replay_seconds_; }
  double elapsed_seconds() const;

 private:
  std::string key(const Candidate& c, SeedSet s, bool full) const;
  void report_progress();

  const PlanSpec& plan_;
  const PlanOptions& options_;
  std::shared_ptr<const BaseScenario> base_;
  std::vector<std::uint64_t> main_, fresh_;
  std::string measure_options_;                         // with the stop rules
  std::string measure_options_full_;                    // without: replays that must run to the end
  std::map<std::string, std::string> options_by_rule_;  // with one stop rule
  const std::string& options_with_rule(const std::string& rule) const;
  std::deque<Entry> entries_;
  std::map<std::string, std::size_t> index_;  // key -> entry
  std::size_t replays_ = 0, expected_ = 0;
  double replay_seconds_ = 0;
  std::string best_;
  std::chrono::steady_clock::time_point started_;
  std::unique_ptr<ReplayRunner> local_;
  ReplayRunner* runner_ = nullptr;
};

/// The times at which plan.json reads Queue.status: the plan's, else just before each of the
/// base scenario's own steps and at the end, else every hour.
std::vector<std::int64_t> status_times(const PlanSpec& plan, const BaseScenario& base);

}  // namespace sim::plan
