#pragma once
// Private: proof that a replay's kept state is what a new snapshot would give (Debug and
// sanitizer builds run it on every cycle on a kept state).

#include "queue_ledger.hpp"
#include "sim/fairshare/hierarchy.hpp"
#include "sim/model/cluster.hpp"
#include "sim/sched/framework/session.hpp"

namespace sim::replay {

#ifndef NDEBUG
/// Asserts that `kept` equals `fresh`, a new snapshot of the same objects, in every field a cycle
/// reads, and that a full cycle on either decides the same and gives every queue the same
/// attributes. With `light`, the attributes of a cycle that only recomputed the fair share on
/// `kept`: check_queues_without_cycle. Runs cycles on `fresh`.
void check_kept_state(const model::ClusterState& kept, model::ClusterState& fresh,
                      const IdVector<QueueId, fairshare::QueueShares>* light);
/// Asserts that a full cycle on `fresh` decides nothing and gives every queue the attributes
/// `queues` (those a cycle that only recomputed the fair share gave).
void check_queues_without_cycle(model::ClusterState& fresh,
                                const IdVector<QueueId, fairshare::QueueShares>& queues);
/// Asserts that a ledger kept up to date equals one rebuilt from `state`, bit for bit.
void check_ledger(const QueueLedger& ledger, const model::ClusterState& state);
#endif

}  // namespace sim::replay
