#pragma once
// One KAI scheduling cycle: open a session on the snapshot, run the configured actions in order
// (allocate, consolidation, reclaim, preempt, stalegangeviction by default), close it.

#include "sim/sched/framework/session.hpp"

namespace sim::sched {

/// What one cycle decided, with the session it ran in (queue attributes, final task states).
/// `state` is mutated: committed decisions are applied to the tasks and nodes.
Session run_cycle(model::ClusterState& state);

}  // namespace sim::sched
