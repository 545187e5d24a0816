#include "judge.hpp"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>

namespace sim::plan {

Interval t_interval(const std::vector<double>& values, double level) {
  Interval r;
  r.n = static_cast<int>(values.size());
  if (values.empty()) return r;
  double sum = 0;
  for (double v : values) sum += v;
  r.mean = sum / r.n;
  double ss = 0;
  for (double v : values) ss += (v - r.mean) * (v - r.mean);
  r.sd = r.n > 1 ? std::sqrt(ss / (r.n - 1)) : 0;
  double t = 0;
  if (r.n > 1) {
    const boost::math::students_t dist(r.n - 1);
    t = boost::math::quantile(dist, level);
  }
  const double half = t * r.sd / std::sqrt(static_cast<double>(r.n));
  r.lower = r.mean - half;
  r.upper = r.mean + half;
  return r;
}

double Check::deciding() const { return lower ? interval.lower : interval.upper; }

std::string stop_rule_name(std::size_t t, const std::string& queue) {
  return "t" + std::to_string(t) + "|" + queue;
}

Judgement judge(const PlanSpec& plan, const BaseScenario& base, const Candidate& c,
                std::vector<std::uint64_t> seeds, std::vector<SeedMeasure> measures) {
  Judgement j;
  j.candidate = c;
  j.seeds = std::move(seeds);
  j.measures = std::move(measures);
  j.feasible = true;
  bool all_stopped = !j.measures.empty();
  for (const SeedMeasure& m : j.measures)
    all_stopped =
        all_stopped && !m.stopped_by.empty() && m.stopped_by == j.measures.front().stopped_by;
  if (all_stopped) j.stopped_by = j.measures.front().stopped_by;
  for (std::size_t t = 0; t < plan.targets.size(); ++t) {
    const Target& target = plan.targets[t];
    std::vector<std::string> queues;
    if (target.scope == "*") {
      queues = base.leaf_queues();
    } else {
      queues.push_back(target.scope);
    }
    for (const std::string& q : queues) {
      Check check;
      check.target = t;
      check.queue = q;
      for (const SeedMeasure& m : j.measures) check.values.push_back(metric_value(m, target, q));
      check.interval = t_interval(check.values, plan.confidence);
      check.lower = target.is_lower_bound();
      const double bound = target.is_lower_bound() ? check.interval.lower : check.interval.upper;
      check.holds =
          target.is_lower_bound() ? bound >= target.bound - 1e-12 : bound <= target.bound + 1e-12;
      if (!j.stopped_by.empty() && j.stopped_by == stop_rule_name(t, q)) check.holds = false;
      check.partial = !j.stopped_by.empty() && j.stopped_by != stop_rule_name(t, q);
      // How far from the target, as a ratio (a zero target counts any excess as a ratio above 1).
      double ratio = 0;
      if (target.is_lower_bound()) {
        ratio = bound <= 0 ? (target.bound > 0 ? 1e9 : 0) : target.bound / bound;
      } else {
        ratio = target.bound > 0 ? bound / target.bound : (bound > 1e-12 ? 1 + bound : 0);
      }
      j.worst_ratio = std::max(j.worst_ratio, ratio);
      j.feasible = j.feasible && check.holds && j.stopped_by.empty();
      j.checks.push_back(std::move(check));
    }
  }
  return j;
}

}  // namespace sim::plan
