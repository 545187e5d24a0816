#pragma once
// Private: what a replay measures, cycle by cycle (timeline rows, per-queue totals, waits,
// reclaim latency, fragmentation), and how it is written out.

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "queue_ledger.hpp"
#include "sim/fairshare/hierarchy.hpp"
#include "wait_log.hpp"
#include "world.hpp"

namespace sim::replay {

struct QueueSample {
  ResourceVec allocated = ResourceVec::Zero();
  ResourceVec allocated_np = ResourceVec::Zero();
  ResourceVec requested = ResourceVec::Zero();
  ResourceVec fair_share = ResourceVec::Zero();
  ResourceVec quota = ResourceVec::Zero();
  ResourceVec limit = ResourceVec::Zero();
  bool leaf = true;
};

struct QueueTotals {
  double gpu_seconds = 0;
  std::vector<double>
      waits_s;             ///< submit -> bind, and censored waits (submit -> end) once finished
  int waiting_at_end = 0;  ///< submissions with no bind by the end (their waits are censored)
  std::vector<double> reclaim_latencies_s;
  std::int64_t starved_since_ms = -1;  ///< open "below guaranteed share with demand" episode
  int evictions_suffered = 0;
  int evictions_caused = 0;
  double quota_gpu = 0;
};

class Metrics {
 public:
  /// Records the state after the cycle at `now_ms`: queues as the scheduler counts them (the
  /// proportion plugin's attributes, and the pods' sums from the ledger of `state`'s pods).
  void sample(const model::ClusterState& state, const QueueLedger& ledger,
              const IdVector<QueueId, fairshare::QueueShares>& queues, std::int64_t now_ms);
  /// A cycle whose input and outcome equal the last sampled one's: the same rows again at `now_ms`.
  void repeat(std::int64_t now_ms);
  void record_events(const std::vector<PodEvent>& events);
  /// A pending pod's typed reason after the full cycle at `now_ms` (a `wait` event when its
  /// period starts; docs/replay-output.md).
  void record_wait(std::int64_t now_ms, const std::string& pod, const std::string& queue,
                   const sched::WaitReason& why) {
    waits_.record(now_ms, pod, queue, why, events_);
  }
  /// Every pending pod's reason of a cycle is in (after a cycle with nothing pending too).
  void end_cycle_waits() { waits_.end_cycle(); }
  /// Closes the integrals at the end of the replay.
  void finish(std::int64_t end_ms);

  std::string timeline_csv() const { return timeline_; }
  std::string kai_timeline_csv() const { return kai_timeline_; }
  std::string events_jsonl() const { return events_; }
  std::string cluster_csv() const { return cluster_; }
  std::string summary_json(const std::string& name, std::size_t cycles,
                           std::int64_t duration_ms) const;
  std::string summary_table(const std::string& name, std::size_t cycles, std::size_t cycles_reused,
                            std::size_t cycles_fair_share_only, std::int64_t duration_ms) const;

  /// Every queue's allocation after the latest cycle (what the Queue status and its metric show).
  std::map<std::string, ResourceVec> allocated_by_queue() const;
  /// Allocated GPUs of a queue after the latest cycle (scheduler's view).
  double allocated_gpu(const std::string& queue) const;
  bool evicted(const std::string& pod, std::int64_t by_ms) const;

 private:
  std::string timeline_ =
      "time_s,queue,resource,allocated,allocated_non_preemptible,requested,fair_share,quota,"
      "limit\n";
  std::string kai_timeline_ = "Time,QueueID,Allocation,FairShare\n";
  std::string events_;
  static constexpr std::string_view kClusterHeader =
      "time_s,gpus,allocated_gpus,stranded_gpu_memory_mib\n";
  std::string cluster_{kClusterHeader};
  std::array<double, 3> last_cluster_row_{};
  std::map<std::string, QueueSample> last_;
  std::map<std::string, QueueTotals> totals_;
  std::map<std::string, std::pair<std::int64_t, std::string>>
      submitted_;                                   // pod -> submit time (ms), queue
  std::map<std::string, std::int64_t> evicted_at_;  // pod -> first eviction (ms)
  std::int64_t last_ms_ = 0;
  std::vector<std::string> last_kai_rows_;  // the leaves' kai-timeline rows without the time
  void integrate(std::int64_t now_ms);
  double cluster_gpus_ = 0;
  double cluster_gpu_seconds_ = 0;
  double allocated_gpus_now_ = 0;
  double stranded_mib_now_ = 0;
  double stranded_mib_seconds_ = 0;
  double stranded_mib_max_ = 0;
  std::vector<double> all_waits_s_;
  int waiting_at_end_ = 0;
  WaitLog waits_;
  int evictions_ = 0;
};

}  // namespace sim::replay
