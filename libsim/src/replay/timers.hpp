#pragma once
// Private: per-pod timers of the world (bind done, run time over, taint toleration over, grace
// period over), kept in time order so the replay loop finds the next one without scanning every
// pod.

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace sim::replay {

class Timers {
 public:
  /// Sets (or moves) the timer of `key` to `at_ms`.
  void set(const std::string& key, std::int64_t at_ms) {
    erase(key);
    by_key_.emplace(key, at_ms);
    by_time_.emplace(at_ms, key);
  }
  void erase(const std::string& key) {
    auto it = by_key_.find(key);
    if (it == by_key_.end()) return;
    by_time_.erase({it->second, key});
    by_key_.erase(it);
  }
  bool contains(const std::string& key) const { return by_key_.contains(key); }
  /// Earliest timer, or -1.
  std::int64_t next() const { return by_time_.empty() ? -1 : by_time_.begin()->first; }
  /// Removes the timers due at or before `now_ms` and returns them in key order (the order the
  /// world handles simultaneous changes in).
  std::vector<std::pair<std::string, std::int64_t>> take_due(std::int64_t now_ms) {
    std::vector<std::pair<std::string, std::int64_t>> due;
    while (!by_time_.empty() && by_time_.begin()->first <= now_ms) {
      auto first = by_time_.begin();
      due.emplace_back(first->second, first->first);
      by_key_.erase(first->second);
      by_time_.erase(first);
    }
    std::sort(due.begin(), due.end());
    return due;
  }

 private:
  std::map<std::string, std::int64_t> by_key_;
  std::set<std::pair<std::int64_t, std::string>> by_time_;
};

}  // namespace sim::replay
