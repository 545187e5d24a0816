#pragma once
// Private: what one replay of one candidate on one seed shows, read from the replay's own
// outputs (events.jsonl, timeline.csv, summary.json) and its pending reasons, and the value of a
// target's measure on it.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/plan/plan_spec.hpp"

namespace sim::plan {

/// What a queue (its own pods and its descendants') or the whole cluster went through.
struct PodWaits {
  std::vector<double>
      waits_s;          ///< submit -> bind per pod, sorted; a pod never bound waits until the end
  int never_bound = 0;  ///< of those, the pods still pending at the end
  int evictions = 0;    ///< pods evicted
  double reclaim_latency_max_s = 0;  ///< an episode still open at the end counts up to the end
  bool short_at_end = false;         ///< such an episode is open
};

/// Queue.status as the queue controller would write it (allocated, allocatedNonPreemptible,
/// requested), in kaisim's units: CPU millicores, memory bytes, GPU devices.
struct QueueStatus {
  double allocated[3] = {0, 0, 0};  ///< cpu, memory, gpu
  double allocated_non_preemptible[3] = {0, 0, 0};
  double requested[3] = {0, 0, 0};
};

struct StatusSample {
  std::int64_t at_ms = 0;
  std::map<std::string, QueueStatus> queues;
};

struct SeedMeasure {
  std::uint64_t seed = 0;
  double duration_s = 0;
  double gpus = 0;         ///< schedulable GPUs (summary.json cluster.gpus)
  double utilization = 0;  ///< summary.json cluster.gpu_utilisation
  PodWaits cluster;
  std::map<std::string, PodWaits> queues;
  /// Pod-seconds of waiting by queue and reason (ReplayResult::pending_reasons).
  std::map<std::string, std::map<std::string, double>> pending;
  std::vector<StatusSample> status;
  std::size_t cycles = 0;
  /// GPUs each queue asked for (allocated + pending, as Queue.status requested shows it) at
  /// kDemandSamples evenly spaced times after the warm-up: what the quota screen divides.
  std::map<std::string, std::vector<double>> demand;
  /// GPUs of the pods each queue submitted after the warm-up, summed (the screen's arrival rate).
  std::map<std::string, double> gpus_submitted;
  /// The stop rule that ended the replay early ("" when it ran to its end), and when (s): every
  /// measure above then covers the run up to that time only.
  std::string stopped_by;
  double stopped_at_s = -1;
};

inline constexpr int kDemandSamples = 240;

/// What to measure: which queue has which parent, the warm-up, and when to read Queue.status.
struct MeasureOptions {
  std::map<std::string, std::string> parents;  ///< queue -> parent ("" at the top)
  std::int64_t warmup_ms = 0;
  std::vector<std::int64_t> status_at_ms;
};

/// Reads a replay's outputs (ReplayResult::outputs) and pending reasons into a SeedMeasure.
SeedMeasure measure(const std::map<std::string, std::string>& outputs,
                    const std::map<std::string, std::map<std::string, double>>& pending,
                    const MeasureOptions& options, std::uint64_t seed, std::size_t cycles);

/// The value of `metric` for `queue` ("cluster" for the whole cluster) on one seed: seconds, a
/// count or a fraction (see Metric). A queue without pods waited 0 s.
double metric_value(const SeedMeasure& m, const Target& t, const std::string& queue);

/// Nearest-rank percentile of sorted values (0 when empty), as summary.json computes it.
double nearest_rank(const std::vector<double>& sorted, double p);

/// JSON text of a SeedMeasure and back (for measures made on other machines, e.g. Dask workers).
std::string measure_to_json(const SeedMeasure& m);
SeedMeasure measure_from_json(const std::string& text);

}  // namespace sim::plan
