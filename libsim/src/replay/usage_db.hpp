#pragma once
// Private: the time-based fair share's usage history over virtual time, as KAI's Prometheus
// usage database computes it (pkg/scheduler/cache/usagedb/prometheus/prometheus.go
// GetResourceUsage, sliding window): U = sum A(t) d(t) / sum C(t) d(t) over samples every
// queryResolution within the window, d(t) = 0.5^((now - t) / halfLife) or 1 without a half-life.

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <unordered_map>

#include "sim/core/resource_vec.hpp"

namespace sim::replay {

struct UsageConfig {
  bool enabled = false;                           ///< KAI: only with usageDBConfig set
  std::int64_t window_ms = 7LL * 24 * 3'600'000;  ///< windowSize default 1w (sliding)
  std::int64_t half_life_ms = 0;                  ///< 0: no decay (KAI's default)
  std::int64_t resolution_ms = 60'000;            ///< queryResolution default 1m
  std::int64_t fetch_interval_ms = 60'000;        ///< fetchInterval default 1m
};

class UsageDb {
 public:
  explicit UsageDb(UsageConfig config) : config_(config) {}

  /// The queues' allocation and the cluster's capacity as of `now_ms` (after a cycle). Samples
  /// are taken on the resolution grid with the values in force at each grid time.
  void observe(std::int64_t now_ms, const std::map<std::string, ResourceVec>& allocated,
               const ResourceVec& capacity);

  /// The usage the scheduler sees at `now_ms`: recomputed every fetch interval, stale in between.
  const std::unordered_map<std::string, ResourceVec>& usage(std::int64_t now_ms);

 private:
  struct Sample {
    std::int64_t at_ms;
    std::map<std::string, ResourceVec> allocated;
    ResourceVec capacity;
  };
  UsageConfig config_;
  std::deque<Sample> samples_;
  std::map<std::string, ResourceVec> current_;
  ResourceVec current_capacity_ = ResourceVec::Zero();
  std::int64_t next_grid_ms_ = 0;
  std::int64_t next_fetch_ms_ = 0;
  std::unordered_map<std::string, ResourceVec> usage_;
};

}  // namespace sim::replay
