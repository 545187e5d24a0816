#pragma once
// Private: why each pod waited, period by period. After each full cycle the replay hands in the
// typed reason of every pending pod (sched::WaitReason); a pod's period lasts while its reason
// keeps its cause (and queue, resource), and each new period is one `wait` line in events.jsonl
// with the cycle's numbers. The time in each cause is summed per queue for summary.json.

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>

#include "sim/sched/framework/wait_reason.hpp"
#include "world.hpp"

namespace sim::replay {

/// A pending period's cause as outputs name it: the WaitCause's name, or one of the replay's own
/// ("AwaitingCycle": submitted, no cycle has looked at it yet; "Pipelined": waits for resources
/// being released).
struct WaitTotals {
  std::map<std::string, std::int64_t>
      ms_by_cause;         ///< pod-milliseconds per cause (whole, so sums have no order)
  int waiting_at_end = 0;  ///< pods still pending when the replay ended
};

class WaitLog {
 public:
  /// A pending pod's reason after the full cycle at `now_ms`; appends a `wait` line to `events`
  /// when a new period starts.
  void record(std::int64_t now_ms, const std::string& pod, const std::string& queue,
              const sched::WaitReason& why, std::string& events);
  /// Opens, switches or ends periods on the pod events (submit, pipeline, bind, delete, gone, ...).
  void on_event(const PodEvent& e);
  /// After a cycle's reasons are in: a pod still "AwaitingCycle" was neither pending, pipelined
  /// nor bound by it, so it runs already (created on its node): it never waited.
  void end_cycle();
  /// Ends every open period at the end of the replay (those pods are still waiting).
  void finish(std::int64_t end_ms);
  const std::map<std::string, WaitTotals>& totals() const { return totals_; }

 private:
  struct Open {
    std::int64_t since_ms;
    std::string queue;
    std::string cause;
    std::string signature;  // what makes a new period: cause, queue, resource, gang minimum
  };
  void close(std::unordered_map<std::string, Open>::iterator it, std::int64_t at_ms);
  std::unordered_map<std::string, Open> open_;
  std::map<std::string, WaitTotals> totals_;
};

/// The `wait` line's typed fields for `why` (after time, type, pod and queue), as JSON members
/// starting with a comma.
std::string wait_fields(const sched::WaitReason& why);

}  // namespace sim::replay
