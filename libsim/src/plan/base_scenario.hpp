#pragma once
// Private: the plan's base scenario, and the scenario of each candidate (its node counts, its
// queues' GPU blocks, its hardware alternative) for one workload seed, as YAML text the replay
// reads. Everything else of the base scenario is left exactly as written.

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/plan/manifests.hpp"
#include "sim/plan/plan_spec.hpp"

namespace sim::plan {

/// One configuration the planner judges.
struct Candidate {
  std::map<std::string, int> nodes;          ///< node count of each pool the GPU knob moves
  std::map<std::string, QueueResource> gpu;  ///< GPU block of each queue a quota knob moves
  std::string hardware;                      ///< alternative's name; empty: the base hardware
  int knob = 0;                              ///< the searched integer: nodes, or percent
  friend bool operator==(const Candidate&, const Candidate&) = default;
};

/// A node pool of the base scenario (cluster.nodePools[]).
struct PoolInfo {
  std::string name;
  int count = 1;
  int gpus_per_node = 0;
  std::string gpu_model;
  int gpu_memory_mib = 0;
  bool mig = false;
  std::map<std::string, int> mig_layout;  ///< profile -> instances per GPU
  /// GPUs KAI counts per node: devices, or for MIG the instances' "Ng" summed.
  double quota_gpus_per_node = 0;
};

/// A candidate's scenario for one seed.
struct ScenarioText {
  std::string text;
  std::string name;      ///< for messages
  std::string base_dir;  ///< where its relative paths resolve
};

class BaseScenario {
 public:
  /// Reads the base scenario of `plan` and checks the knobs against it (pools and queues that
  /// exist, child quotas within the parent's), with messages at the plan's lines.
  static std::shared_ptr<const BaseScenario> load(const PlanSpec& plan, Diagnostics& diagnostics);
  ~BaseScenario();

  /// The queues at time 0 as the plan writes them (cpu and memory unlimited where the scenario
  /// has no block for them), with `c`'s GPU blocks.
  std::vector<PlannedQueue> queues_for(const Candidate& c) const;
  /// The base configuration: the knobs at the scenario's own values.
  Candidate base_candidate() const;
  /// The candidate's scenario with the workload seed `seed`.
  ScenarioText text_for(const Candidate& c, std::uint64_t seed) const;
  /// The GPUs the candidate's cluster has (MIG instances as the GPUs KAI counts).
  double gpus_of(const Candidate& c) const;
  /// The GPU devices the candidate's cluster has (a MIG-partitioned GPU is one device).
  int devices_of(const Candidate& c) const;
  /// The node counts of the knob's pools for knob value `v` (nodes, or percent of base counts).
  std::map<std::string, int> nodes_at(int v, const std::string& hardware) const;

  const std::vector<PoolInfo>& pools() const { return pools_; }
  const PoolInfo* pool(const std::string& name) const;
  std::int64_t duration_ms() const { return duration_ms_; }
  std::int64_t period_ms() const { return period_ms_; }
  /// Times of the base scenario's own steps (not generated pods), for Queue.status by phase.
  const std::vector<std::int64_t>& step_times_ms() const { return step_times_ms_; }
  /// Leaf queues (no other queue names them as parent), in name order.
  std::vector<std::string> leaf_queues() const;
  /// A queue's parent, "" at the top.
  std::string parent_of(const std::string& queue) const;
  bool has_queue(const std::string& queue) const;

 private:
  BaseScenario() = default;
  YAML::Node root_for(std::uint64_t seed) const;
  void read(const YAML::Node& root, const PlanSpec& plan, Diagnostics& diagnostics);
  void check_knobs(const PlanSpec& plan) const;
  void apply_hardware(YAML::Node& root, const HardwareOption& h) const;

  const PlanSpec* plan_ = nullptr;
  std::string file_;
  std::string base_dir_;
  mutable YAML::Node root_;  // the scenario (seed first_seed's for a trace base)
  std::string trace_dir_;    // genTrace: a folder of this run with each seed's CSV
  std::vector<PoolInfo> pools_;
  std::vector<PlannedQueue> queues_;  // in manifest order
  std::vector<std::pair<std::size_t, std::vector<YAML::Node>>>
      queue_files_;  // manifests[i] -> its docs
  std::int64_t duration_ms_ = 600000, period_ms_ = 1000;
  std::vector<std::int64_t> step_times_ms_;
};

/// The leaf queues under `queue` (itself for a leaf; every leaf for "cluster"), in name order.
std::vector<std::string> leaves_under(const BaseScenario& base, const std::string& queue);

/// A GPU count for messages: "8" or "3.5".
std::string gpus_text(double gpus);

}  // namespace sim::plan
