#pragma once
// A plan file (docs/plan-format.md, schema_version 1) as kaisim reads it: the base scenario, the
// targets, the knobs, the workload seeds and the tenants. Every field keeps where it was written,
// so a problem found later (a queue the scenario lacks) still names the plan file's line.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/plan/manifests.hpp"

namespace sim::plan {

/// What a plan asks, from its knobs: only fixed values (CHECK: judge that configuration), a
/// range of node counts (GPUS: the fewest that meet the targets), ranges of queue quotas, limits
/// or weights (QUOTAS: values that meet the targets, a Pareto front), or hardware alternatives.
enum class Question { CHECK, GPUS, QUOTAS, HARDWARE };

/// The measures a target can bound (per seed; docs/plan-format.md gives each one's definition).
enum class Metric {
  WAIT_P95,             ///< s, nearest-rank 95th percentile of submit -> bind
  WAIT_MAX,             ///< s
  WAIT_MEAN,            ///< s
  WAIT_PROBABILITY,     ///< fraction of pods that waited longer than `over_s`
  RECLAIM_LATENCY_MAX,  ///< s, longest time short of the guaranteed quota while asking for it
  EVICTIONS_MAX,        ///< count of pods evicted
  UTILIZATION_MIN,      ///< fraction 0..1 of the cluster's GPUs allocated, time-weighted
};

/// "wait_p95", "wait_max", ...: the names the plan file uses.
const char* metric_name(Metric m);
/// The unit a value of `m` is in, for tables and axes ("s", "pods", "fraction").
const char* metric_unit(Metric m);

/// One bound. `scope` is "cluster" (every pod / the whole cluster), "*" (each leaf queue on its
/// own) or a queue name.
struct Target {
  Metric metric = Metric::WAIT_P95;
  std::string scope;
  double bound =
      0;  ///< seconds, a count or a fraction; an upper bound, a lower one for UTILIZATION_MIN
  double over_s = 0;  ///< WAIT_PROBABILITY: the wait that counts as waiting, s
  SourceLocation where;
  std::string path;
  bool is_lower_bound() const { return metric == Metric::UTILIZATION_MIN; }
};

/// A knob's value: fixed (min == max) or a range searched in steps of `step`.
struct Range {
  double min = 0, max = 0, step = 1;
  bool fixed() const { return min == max; }
  SourceLocation where;
  std::string path;
};

/// `knobs.gpus`: the node count of one pool, or every named pool scaled together in percent of
/// its count in the base scenario (at least one node each).
struct GpuKnob {
  std::vector<std::string> pools;  ///< one pool for `pool:`, several (or all) for `scale:`
  bool scaled = false;             ///< the value is a percentage of each pool's base count
  Range count;                     ///< nodes, or percent when `scaled`
  SourceLocation where;            ///< of `pool` / `pools`, for messages
  std::string path;
};

/// `knobs.quotas.<queue>`: the GPU block of one Queue (quota and limit in GPU devices, in steps
/// of 0.001; limit -1 = none; overQuotaWeight >= 0). Unset parts keep the base scenario's value.
struct QuotaKnob {
  std::string queue;
  std::optional<Range> quota, limit, weight;
  SourceLocation where;
  std::string path;
};

/// `knobs.hardware[]`: an alternative for the GPU knob's pool, judged on the same seeds.
struct HardwareOption {
  std::string name;
  /// Pool fields that replace the base pool's (gpuModel, gpusPerNode, gpuMemoryMib, mig, cpu,
  /// memory), as YAML text of a flow map.
  std::string pool_yaml;
  std::optional<double> price_per_gpu_hour;  ///< currency units per GPU-hour
  std::optional<Range> count;                ///< node counts to search; default the GPU knob's
  std::vector<QuotaKnob> quotas;             ///< fixed quota overrides for this alternative
  /// MIG layouts: fractional and gpu-memory pods ask for the smallest instance that holds their
  /// memory, whole-GPU pods for the profile named here (default: none, they stay whole GPUs).
  std::string whole_gpu_profile;
  SourceLocation where;
  std::string path;
  SourceLocation pool_where;  ///< of `pool`, for messages
};

/// `base.genTrace`: `kaisim gen trace` drawn again for every seed.
struct TraceBase {
  int pods = 8000;
  double arrival_hours = 6;
  double node_scale = 1;
};

/// `search`: how much the quota search may spend.
struct SearchOptions {
  int screen = 2000;       ///< candidates screened with the fair-share engine
  int replayed = 24;       ///< candidates judged with full replays (each on every seed)
  std::uint64_t seed = 1;  ///< the search's own random draws (not the workload's)
};

struct PlanSpec {
  std::string file;      ///< the plan file, for messages
  std::string base_dir;  ///< folder of the plan file
  std::string name;
  std::string description;
  Question question = Question::CHECK;
  std::string scenario_path;  ///< base scenario (resolved), unless `trace` is set
  std::optional<TraceBase> trace;
  std::uint64_t first_seed = 1;  ///< the seeds are first_seed ... first_seed + seeds - 1
  int seeds = 10;
  int fresh_seeds = 10;        ///< the answer is checked again on the seeds after those
  double confidence = 0.95;    ///< one-sided level of every bound
  std::int64_t warmup_ms = 0;  ///< pods submitted before this count in no measure
  std::vector<Target> targets;
  std::optional<GpuKnob> gpus;
  std::vector<QuotaKnob> quotas;
  std::vector<HardwareOption> hardware;
  std::vector<Tenant> tenants;
  SearchOptions search;
  std::vector<std::int64_t> status_at_ms;  ///< when plan.json reads Queue.status; empty: phases
};

/// Reads and checks a plan file. Throws InputError (`FILE:LINE:COLUMN: FIELD.PATH: problem`)
/// on the first bad field; unknown fields are warnings.
PlanSpec load_plan(const std::string& path, Diagnostics& diagnostics);
/// The same from text in memory; `name` labels messages, paths resolve against `base_dir`.
PlanSpec load_plan_text(const std::string& text, const std::string& name,
                        const std::string& base_dir, Diagnostics& diagnostics);

}  // namespace sim::plan
