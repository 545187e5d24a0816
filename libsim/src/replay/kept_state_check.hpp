#pragma once
// Private: proof that a replay's kept state is what a new snapshot would give (Debug and
// sanitizer builds run it on every cycle on a kept state).

#include "sim/model/cluster.hpp"
#include "sim/sched/session.hpp"

namespace sim::replay {

#ifndef NDEBUG
/// Asserts that `kept` equals `fresh`, a new snapshot of the same objects, in every field a cycle
/// reads, and that a full cycle on either decides the same and gives every queue the same
/// attributes. With `light`, the fair-share-only session on `kept`: the full cycle on `fresh`
/// decides nothing and gives `light`'s attributes. Runs cycles on `fresh`.
void check_kept_state(const model::ClusterState& kept, model::ClusterState& fresh, const sched::Session* light);
#endif

}  // namespace sim::replay
