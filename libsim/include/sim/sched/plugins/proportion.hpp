#pragma once
// The proportion plugin (pkg/scheduler/plugins/proportion): each queue's fair share, computed
// once as the session opens, and the policies the actions consult through the session's hooks:
// queue order (queue_order/queue_order.go), capacity checks (capacity_policy/) and the reclaim
// gates (reclaimable/). Its queue attributes follow every allocation of the session.

#include <string>
#include <vector>

#include "sim/fairshare/hierarchy.hpp"
#include "sim/sched/framework/session.hpp"

namespace sim::sched {

class ProportionPlugin final : public Plugin {
 public:
  std::string_view name() const override { return "proportion"; }
  void on_session_open(Session& ssn) override;

  /// Queue attributes, indexed like state.queue_tree (plugin units: CPU millicores, memory bytes,
  /// GPU devices): quota, limit and weight, usage, fair share, and what the session allocated.
  IdVector<QueueId, fairshare::QueueShares> queues;
  ResourceVec total = ResourceVec::Zero();  ///< capacity divided by the fair share

 private:
  void check_queue_sums(const Session& ssn, const InvariantContext& context,
                        std::vector<std::string>& out) const;
  IdVector<QueueId, fairshare::QueueShares> at_solution_start_;  ///< OnJobSolutionStart's clone
};

/// The proportion plugin's queue attributes, or nullptr when the session runs without it.
const IdVector<QueueId, fairshare::QueueShares>* queue_shares(const Session& ssn);

/// The plugin's queue attributes before any pod counts (createQueueResourceAttrs): quota, limit
/// and weight from each Queue, and its historical usage.
IdVector<QueueId, fairshare::QueueShares> open_queue_attributes(const model::ClusterState& state);
/// The attributes a session opens with: those, the pods' usage from `sums`, and the fair share.
IdVector<QueueId, fairshare::QueueShares> proportion_queues(const model::ClusterState& state,
                                                            const model::OpenSums& sums);

}  // namespace sim::sched
