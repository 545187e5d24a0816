#include "sim/sched/cycle.hpp"

#include "sim/core/error.hpp"
#include "sim/sched/actions/actions.hpp"
#include "sim/sched/framework/invariants.hpp"

namespace sim::sched {

Session run_cycle(model::ClusterState& state) {
  Session ssn(state);
#ifndef NDEBUG
  const InvariantChecker invariants(ssn);
#endif
  for (const std::string& action : state.config.actions) {
    ssn.action = action;
    if (action == "allocate") {
      run_allocate(ssn);
    } else if (action == "consolidation") {
      run_consolidation(ssn);
    } else if (action == "reclaim") {
      run_reclaim(ssn);
    } else if (action == "preempt") {
      run_preempt(ssn);
    } else if (action == "stalegangeviction") {
      run_stale_gang_eviction(ssn);
    } else {
      throw Error(ErrorCode::INVALID_INPUT, "unknown scheduler action \"" + action + "\"");
    }
#ifndef NDEBUG
    invariants.check(ssn, action);
#endif
  }
  ssn.action.clear();
  return ssn;
}

}  // namespace sim::sched
