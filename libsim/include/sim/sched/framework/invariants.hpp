#pragma once
// Consistency of a session after each action, checked in Debug and sanitizer builds: no node or
// GPU device over capacity, GPU portions within [0, 1], each queue's allocated resources equal to
// the sum over its pods, the DRA devices the session counts as held equal to those its claims
// hold. Nodes the input already over-commits are not held to capacity.

#include <string>
#include <vector>

#include "sim/sched/framework/session.hpp"

namespace sim::sched {

class InvariantChecker {
 public:
  /// Notes which nodes are within capacity, and which pods are Pipelined, as the session opens.
  explicit InvariantChecker(const Session& ssn);

  /// What does not hold now, one line each (empty when all holds).
  std::vector<std::string> violations(const Session& ssn) const;

  /// Aborts with the violations after `action` in builds with SIM_ASSERT; nothing in Release.
  void check(const Session& ssn, const std::string& action) const;

 private:
  std::vector<bool> node_ok_;            ///< per node: within capacity at session open
  std::vector<bool> pipelined_at_open_;  ///< per task: already Pipelined at session open
};

}  // namespace sim::sched
