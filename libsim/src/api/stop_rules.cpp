#include "stop_rules.hpp"

#include <algorithm>
#include <cmath>

namespace sim::api {

using replay::Manifest;
using replay::PodEventType;
using replay::PodShape;
using replay::Step;

StopRules::StopRules(const std::vector<StopRule>& rules, const replay::Scenario& sc) {
  if (rules.empty()) return;
  // Pods that steps apply as manifests, or that a controller re-creates, are not known before
  // the replay: no rule then.
  auto is_pod = [](const Manifest& m) {
    if (!m.doc.IsMap()) return false;
    const YAML::Node kind = m.doc["kind"];
    return kind.IsDefined() && kind.IsScalar() && kind.Scalar() == "Pod";
  };
  for (const Manifest& m : sc.manifests) {
    if (is_pod(m)) return;
  }
  for (const Step& s : sc.steps) {
    for (const Manifest& m : s.apply) {
      if (is_pod(m)) return;
    }
  }
  for (const StopRule& spec : rules) {
    Rule r;
    r.spec = spec;
    for (const Step& s : sc.steps) {
      if (s.at_ms > sc.duration_ms) continue;
      for (const PodShape& p : s.pods) {
        if (counts(r, p.queue, s.at_ms)) ++r.pods;
      }
    }
    rules_.push_back(std::move(r));
  }
}

bool StopRules::counts(const Rule& r, const std::string& queue, std::int64_t submitted_ms) const {
  if (submitted_ms < r.spec.from_ms) return false;
  return r.spec.queues.empty() ||
         std::find(r.spec.queues.begin(), r.spec.queues.end(), queue) != r.spec.queues.end();
}

void StopRules::record(const std::vector<replay::PodEvent>& events) {
  if (rules_.empty()) return;
  for (const replay::PodEvent& e : events) {
    if (e.type == PodEventType::SUBMIT || e.type == PodEventType::RECREATE) {
      pending_[e.pod] = {e.at_ms, e.queue};
      by_time_.emplace(e.at_ms, e.pod);
    } else if (e.type == PodEventType::BIND || e.type == PodEventType::DELETE ||
               e.type == PodEventType::GONE || e.type == PodEventType::LOST) {
      auto it = pending_.find(e.pod);
      if (it == pending_.end()) continue;
      if (e.type == PodEventType::BIND) {
        const double wait_s = static_cast<double>(e.at_ms - it->second.at_ms) / 1000.0;
        for (Rule& r : rules_) {
          if (!counts(r, it->second.queue, it->second.at_ms)) continue;
          if (wait_s > r.spec.wait_over_s) ++r.waited;
          r.waited_s += wait_s;
        }
      }
      for (auto [b, end] = by_time_.equal_range(it->second.at_ms); b != end; ++b) {
        if (b->second == e.pod) {
          by_time_.erase(b);
          break;
        }
      }
      pending_.erase(it);
    } else if (e.type == PodEventType::EVICT) {
      for (Rule& r : rules_) {
        if (r.spec.queues.empty() ||
            std::find(r.spec.queues.begin(), r.spec.queues.end(), e.queue) != r.spec.queues.end()) {
          ++r.evictions;
        }
      }
    }
  }
}

std::string StopRules::reached(std::int64_t now_ms) const {
  for (const Rule& r : rules_) {
    if (r.spec.kind == StopRule::Kind::EVICTIONS) {
      if (static_cast<double>(r.evictions) > r.spec.limit) return r.spec.name;
      continue;
    }
    if (r.pods == 0) continue;
    if (r.spec.kind == api::StopRule::Kind::MEAN) {
      // Every pod still pending waits at least until now: the waits' sum can only grow.
      double sum = r.waited_s;
      for (const auto& [at, pod] : by_time_) {
        if (counts(r, pending_.at(pod).queue, at)) sum += static_cast<double>(now_ms - at) / 1000.0;
      }
      if (sum / static_cast<double>(r.pods) > r.spec.limit) return r.spec.name;
      continue;
    }
    // The measure (plan/measure.cpp) divides by every pod of the run: a count above its limit
    // decides it whatever the rest of the run does.
    const double n = static_cast<double>(r.pods);
    const std::size_t allowed =
        r.spec.kind == StopRule::Kind::PERCENTILE
            ? r.pods -
                  std::min(r.pods, static_cast<std::size_t>(std::ceil(r.spec.limit / 100.0 * n)))
            : r.pods;  // SHARE: compared below as the measure compares it
    std::size_t count = r.waited;
    // A pod still pending after this cycle binds at a later instant: it waits longer than
    // now - submitted.
    for (const auto& [at, pod] : by_time_) {
      if (static_cast<double>(now_ms - at) / 1000.0 < r.spec.wait_over_s) break;
      if (counts(r, pending_.at(pod).queue, at)) ++count;
      if (r.spec.kind == StopRule::Kind::PERCENTILE && count > allowed) break;
    }
    const bool certain = r.spec.kind == StopRule::Kind::PERCENTILE
                             ? count > allowed
                             : static_cast<double>(count) / n > r.spec.limit;
    if (certain) return r.spec.name;
  }
  return "";
}

}  // namespace sim::api
