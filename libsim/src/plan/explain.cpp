#include "explain.hpp"

#include <algorithm>
#include <functional>
#include <map>

#include "sim/core/go_json.hpp"

namespace sim::plan {
namespace {

std::string advice_for(const std::string& reason, Metric metric) {
  if (metric == Metric::UTILIZATION_MIN) return "fewer GPUs, or more load, raise utilization";
  if (metric == Metric::EVICTIONS_MAX)
    return "fewer evictions: higher quotas for the queues that borrow less, or lower limits for "
           "those that borrow";
  if (reason == "OverLimit")
    return "raise the queue's limit (or its parent's): pods wait at the limit with GPUs free";
  if (reason == "OverQuota")
    return "raise the queue's quota (or its weight, to borrow more): it asks beyond its quota and "
           "nothing is free to borrow";
  if (reason == "fragmentation")
    return "pack fractions (fewer sizes) or add nodes: free GPUs are split over devices and nodes";
  if (reason == "not enough GPUs")
    return "add GPUs: the queue asks within its quota and the cluster is full";
  if (reason == "releasing")
    return "shorter termination grace periods: pods wait for evicted or deleted pods to go";
  return "check the pods' node selectors, taints and CPU requests";
}

}  // namespace

std::string target_text(const Target& t) {
  const std::string scope = t.scope == "*" ? "each queue" : t.scope;
  std::string bound;
  switch (t.metric) {
    case Metric::WAIT_P95:
    case Metric::WAIT_MAX:
    case Metric::WAIT_MEAN:
    case Metric::RECLAIM_LATENCY_MAX:
      bound = go_json_number(t.bound) + " s";
      break;
    case Metric::WAIT_PROBABILITY:
      return std::string("P(wait > ") + go_json_number(t.over_s) +
             " s) <= " + go_json_number(t.bound) + " (" + scope + ")";
    case Metric::EVICTIONS_MAX:
      bound = go_json_number(t.bound) + " pods";
      break;
    case Metric::UTILIZATION_MIN:
      return "GPU utilization >= " + go_json_number(t.bound) + " (cluster)";
  }
  return std::string(metric_name(t.metric)) + " <= " + bound + " (" + scope + ")";
}

std::vector<Failure> explain(
    const PlanSpec& plan, const Judgement& j,
    const std::function<std::vector<std::string>(const std::string&)>& leaves_under) {
  std::vector<Failure> out;
  for (const Check& c : j.checks) {
    if (c.holds || c.partial) continue;
    const Target& t = plan.targets[c.target];
    Failure f;
    f.check = &c;
    f.target = target_text(t);
    if (t.scope == "*") f.target += " for " + c.queue;
    for (std::size_t s = 0; s < c.values.size(); ++s) {
      const bool misses = t.is_lower_bound() ? c.values[s] < t.bound : c.values[s] > t.bound;
      if (misses) f.seeds.push_back(j.seeds[s]);
    }
    // Why pods waited, in the seeds that miss the target (or in all, when only the bound does).
    std::map<std::string, double> by_reason;
    double total = 0;
    const std::vector<std::string> leaves = leaves_under(c.queue);
    for (std::size_t s = 0; s < j.measures.size(); ++s) {
      if (!f.seeds.empty() &&
          std::find(f.seeds.begin(), f.seeds.end(), j.seeds[s]) == f.seeds.end())
        continue;
      for (const std::string& q : leaves) {
        auto it = j.measures[s].pending.find(q);
        if (it == j.measures[s].pending.end()) continue;
        for (const auto& [reason, pod_s] : it->second) {
          by_reason[reason] += pod_s;
          total += pod_s;
        }
      }
    }
    for (const auto& [reason, pod_s] : by_reason)
      f.reasons.push_back({reason, pod_s, total > 0 ? pod_s / total : 0});
    std::stable_sort(f.reasons.begin(), f.reasons.end(), [](const Reason& a, const Reason& b) {
      return a.pod_seconds > b.pod_seconds;
    });
    f.advice = advice_for(f.reasons.empty() ? "" : f.reasons.front().reason, t.metric);
    if (f.reasons.empty() && t.metric != Metric::UTILIZATION_MIN &&
        t.metric != Metric::EVICTIONS_MAX) {
      f.advice = "no pod of " + c.queue +
                 " waited in a cycle for want of room; the waits come from the cycle period and "
                 "bind delays";
    }
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace sim::plan
