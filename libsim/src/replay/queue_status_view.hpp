#pragma once
// Private: Queue.status as KAI's podgroup-controller and queue-controller would write it for the
// replayed cluster (io/queue_status), kept up to date pod by pod from the world's events, with its
// history (queue-status.csv, and the recording comparison of `kaisim diff --recording`).

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "io/pod_status.hpp"
#include "world.hpp"

namespace sim::replay {

class QueueStatusView {
 public:
  /// Pods named by these events changed: they are counted again at the next sample.
  void touch(const std::vector<PodEvent>& events);
  /// Something other than pods changed (a PodGroup, Queue, PriorityClass or Node): every pod is
  /// counted again at the next sample.
  void touch_all() { all_ = true; }
  /// Counts what changed since the last sample; when a queue's status changed, adds its rows and
  /// a history entry at `now_ms`.
  void sample(const World& world, std::int64_t now_ms);

  /// time_s,queue,resource,allocated,allocated_non_preemptible,requested (docs/replay-output.md).
  const std::string& csv() const { return csv_; }
  /// Every queue's status from each time on (ms), in time order.
  const std::vector<std::pair<std::int64_t, std::map<std::string, io::QueueStatus>>>& history()
      const {
    return history_;
  }

 private:
  void recount(const World& world, const std::string& pod);
  void write_rows(std::int64_t now_ms, const std::map<std::string, io::QueueStatus>& status);

  io::QueueStatusSums sums_;
  std::map<std::string, io::PodStatusPart> parts_;  // pod "namespace/name" -> its part now
  std::set<std::string> touched_;
  bool all_ = true;
  std::map<std::string, std::string> parents_;
  std::string csv_ = "time_s,queue,resource,allocated,allocated_non_preemptible,requested\n";
  std::vector<std::pair<std::int64_t, std::map<std::string, io::QueueStatus>>> history_;
};

}  // namespace sim::replay
