#pragma once
// Private: for each target a judgement misses, which queue, which seeds, and why its pods waited
// (the cycles' pending reasons, by pod-seconds), so the user knows what to change.

#include <functional>
#include <string>
#include <vector>

#include "judge.hpp"

namespace sim::plan {

struct Reason {
  std::string reason;  ///< "OverQuota", "OverLimit", "not enough GPUs", "fragmentation", "other"
  double pod_seconds = 0;
  double share = 0;  ///< of all the pod-seconds of waiting in those seeds, 0..1
};

struct Failure {
  const Check* check = nullptr;
  std::string target;                ///< e.g. "wait_p95 <= 600 s"
  std::vector<std::uint64_t> seeds;  ///< seeds whose own value misses the target
  std::vector<Reason> reasons;       ///< most pod-seconds first
  std::string advice;                ///< what to change, in words
};

/// Every failing check of `j`, explained. `leaves_under` gives the leaf queues a check's queue
/// covers (itself for a leaf, every leaf for "cluster").
std::vector<Failure> explain(
    const PlanSpec& plan, const Judgement& j,
    const std::function<std::vector<std::string>(const std::string&)>& leaves_under);

/// "wait_p95 <= 10m0s"-like words for a target.
std::string target_text(const Target& t);

}  // namespace sim::plan
