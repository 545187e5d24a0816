#include "usage_db.hpp"

#include <cmath>

namespace sim::replay {

void UsageDb::observe(std::int64_t now_ms, const std::map<std::string, ResourceVec>& allocated,
                      const ResourceVec& capacity) {
  // Grid points up to now see the values before this cycle's decisions (the metric is scraped
  // from the Queue status, which the cycle has not updated yet).
  for (; next_grid_ms_ <= now_ms; next_grid_ms_ += config_.resolution_ms) {
    if (next_grid_ms_ > 0) samples_.push_back({next_grid_ms_, current_, current_capacity_});
  }
  while (!samples_.empty() && samples_.front().at_ms <= now_ms - config_.window_ms)
    samples_.pop_front();
  current_ = allocated;
  current_capacity_ = capacity;
}

const std::unordered_map<std::string, ResourceVec>& UsageDb::usage(std::int64_t now_ms) {
  if (now_ms < next_fetch_ms_) return usage_;
  next_fetch_ms_ = now_ms + config_.fetch_interval_ms;
  usage_.clear();
  ResourceVec capacity_sum = ResourceVec::Zero();
  std::map<std::string, ResourceVec> allocated_sum;
  for (const Sample& s : samples_) {
    if (s.at_ms <= now_ms - config_.window_ms || s.at_ms > now_ms) continue;
    const double decay = config_.half_life_ms > 0
                             ? std::pow(0.5, static_cast<double>(now_ms - s.at_ms) /
                                                 static_cast<double>(config_.half_life_ms))
                             : 1.0;
    capacity_sum += s.capacity * decay;
    for (const auto& [queue, a] : s.allocated) {
      auto [it, fresh] = allocated_sum.try_emplace(queue, ResourceVec::Zero());
      it->second += a * decay;
    }
  }
  for (const auto& [queue, a] : allocated_sum) {
    ResourceVec u = ResourceVec::Zero();
    for (Eigen::Index r = 0; r < u.size(); ++r)
      u[r] = capacity_sum[r] > 0 ? a[r] / capacity_sum[r] : 0.0;
    usage_[queue] = u;
  }
  return usage_;
}

}  // namespace sim::replay
