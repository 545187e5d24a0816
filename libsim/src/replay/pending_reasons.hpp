#pragma once
// Private: why pods wait, cycle by cycle, summed as pod-seconds per queue and reason (what
// `kaisim plan` explains a failing target with). Off unless ReplayOptions::pending_reasons.

#include <map>
#include <string>

#include "sim/sched/framework/session.hpp"

namespace sim::replay {

class PendingReasons {
 public:
  /// The pods still pending after the cycle of `ssn`, each under one reason: "OverLimit" (the
  /// queue or an ancestor would pass its limit), "OverQuota" (the job would take its queue past
  /// its quota, which needs idle GPUs to borrow, or it is non-preemptible), "fragmentation" (the
  /// cluster has the job's GPUs free in total, but no node fits it), "not enough GPUs" (within
  /// quota, nothing free to take), or "other" (node selectors, taints, CPU, gangs); and the pods
  /// pipelined onto resources still being released (evicted or deleted pods terminating) under
  /// "releasing".
  void observe(const sched::Session& ssn);
  /// The latest observation holds for `seconds` more (the cycle period, or up to the next cycle).
  void hold(double seconds);
  /// Nothing is pending from now on.
  void clear() { now_.clear(); }

  /// Pod-seconds of waiting, by queue and reason.
  const std::map<std::string, std::map<std::string, double>>& totals() const { return totals_; }

 private:
  std::map<std::string, std::map<std::string, int>> now_;
  std::map<std::string, std::map<std::string, double>> totals_;
};

}  // namespace sim::replay
