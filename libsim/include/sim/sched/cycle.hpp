#pragma once
// One KAI scheduling cycle (scheduler.go runOnce): open a session on the snapshot with the
// configured plugins, run the configured actions in order (allocate, consolidation, reclaim,
// preempt, stalegangeviction by default), close it.

#include "sim/sched/framework/session.hpp"

namespace sim::sched {

/// A session on `state` with the plugins its configuration enables (model::enabled_plugins), each
/// opened in list order.
Session open_session(model::ClusterState& state);

/// What one cycle decided, with the session it ran in (queue attributes, final task states).
/// `state` is mutated: committed decisions are applied to the tasks and nodes.
Session run_cycle(model::ClusterState& state);

}  // namespace sim::sched
