#pragma once
// Private: why each job still waits after a cycle, typed (sched::WaitReason) and in the plain
// words `kaisim cycle` prints; shared by the cycle report and the replay's wait events.

#include <cstdint>
#include <vector>

#include "sim/sched/framework/session.hpp"

namespace sim::api {

struct PendingJob {
  JobId job;
  std::int64_t pending_pods = 0;
  std::vector<sched::WaitReason> reasons;  ///< in the order the cycle report lists them
};

/// Every job with a Pending pod after the session's actions, by PodGroup name.
std::vector<PendingJob> pending_jobs(const sched::Session& ssn);

}  // namespace sim::api
