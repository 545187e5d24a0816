#pragma once
// Private: stopping a replay early once its outcome for a measure is certain (ReplayOptions::
// stop_rules): the planner's way of not replaying a whole day for a candidate that already
// misses a wait target on this seed. Only sound when every pod comes from generators or a trace,
// so that the number of pods the measure divides by is known before the replay.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "replay/scenario.hpp"
#include "replay/world.hpp"
#include "sim/api/replay.hpp"

namespace sim::api {

class StopRules {
 public:
  /// Off (every call a no-op) unless `rules` is non-empty and every pod of `sc` is generated.
  StopRules(const std::vector<StopRule>& rules, const replay::Scenario& sc);

  void record(const std::vector<replay::PodEvent>& events);
  /// After the cycle at `now_ms`: the name of a rule that holds for certain, or "".
  std::string reached(std::int64_t now_ms) const;

 private:
  struct Rule {
    StopRule spec;
    std::size_t pods = 0;    // pods of the run the measure counts
    std::size_t waited = 0;  // bound after waiting longer than wait_over_s
    double waited_s = 0;     // the waits of the pods bound so far, summed
    std::size_t evictions = 0;
  };
  bool counts(const Rule& r, const std::string& queue, std::int64_t submitted_ms) const;
  std::vector<Rule> rules_;
  struct Pending {
    std::int64_t at_ms;
    std::string queue;
  };
  std::map<std::string, Pending> pending_;            // pod -> its submission
  std::multimap<std::int64_t, std::string> by_time_;  // submission time -> pod, while pending
};

}  // namespace sim::api
