#pragma once
// Private: a candidate judged on a set of seeds. Each target's measure is taken on every seed;
// the target holds when its one-sided confidence bound over the seeds meets it: Student's t
// interval, mean + t(level, n-1) * s / sqrt(n) for an upper bound (docs/plan-format.md).

#include <cstdint>
#include <string>
#include <vector>

#include "base_scenario.hpp"
#include "measure.hpp"

namespace sim::plan {

/// Mean, sample standard deviation and one-sided bounds at the plan's level, over n seeds.
struct Interval {
  double mean = 0, sd = 0, lower = 0, upper = 0;
  int n = 0;
};

/// Student's t bounds: `level` one-sided each (the lower one for >= targets, the upper one for
/// <= targets). n >= 2 (the plan file asks for at least two seeds).
Interval t_interval(const std::vector<double>& values, double level);

/// One target on one queue (a "*" target is checked on every leaf queue).
struct Check {
  std::size_t target = 0;      ///< index into PlanSpec::targets
  std::string queue;           ///< "cluster" or a queue
  std::vector<double> values;  ///< per seed, in seed order
  Interval interval;
  bool holds = false;
  bool lower = false;  ///< the target is a lower limit (utilization_min)
  /// The replays stopped early on another target: the values cover the runs up to then only.
  bool partial = false;
  /// The bound that decides it: the upper bound for an upper limit, the lower for a lower one.
  double deciding() const;
};

struct Judgement {
  Candidate candidate;
  std::vector<std::uint64_t> seeds;
  std::vector<SeedMeasure> measures;  ///< by seed, in `seeds` order
  std::vector<Check> checks;
  bool feasible = false;
  /// Every seed's replay stopped early on this rule (a target missed for certain on each seed):
  /// the checks' values cover the runs up to then, and the rule's check fails.
  std::string stopped_by;
  /// max over checks of deciding bound / target (or target / bound for lower limits): <= 1 holds
  /// every target; how close the candidate runs to its worst target.
  double worst_ratio = 0;
};

/// The name of the stop rule of target `t` on `queue` ("cluster" or a queue).
std::string stop_rule_name(std::size_t t, const std::string& queue);

/// Judges `measures` (one per seed, same order as `seeds`) against the plan's targets.
Judgement judge(const PlanSpec& plan, const BaseScenario& base, const Candidate& c,
                std::vector<std::uint64_t> seeds, std::vector<SeedMeasure> measures);

}  // namespace sim::plan
