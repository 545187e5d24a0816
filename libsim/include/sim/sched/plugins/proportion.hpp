#pragma once
// The proportion plugin (pkg/scheduler/plugins/proportion): each queue's fair share, computed
// once as the session opens, and the policies the actions consult through the session's hooks:
// queue order (queue_order/queue_order.go), capacity checks (capacity_policy/) and the reclaim
// gates (reclaimable/). Its queue attributes follow every allocation of the session.

#include <cstdint>
#include <string>
#include <vector>

#include "sim/fairshare/hierarchy.hpp"
#include "sim/sched/framework/session.hpp"

namespace sim::sched {

/// What the queue order reads of one queue apart from the job at its head, kept until a pod of
/// the queue (or below it) is charged or credited: the job orders compare queues at every heap
/// step.
struct QueueOrderFacts {
  bool valid = false;
  bool over = false;
  ResourceVec allocated = ResourceVec::Zero();
  ResourceVec deserved = ResourceVec::Zero();
  ResourceVec allocatable = ResourceVec::Zero();
  ResourceVec divisor = ResourceVec::Zero();  ///< dominant share's: allocatable, total if unlimited
  double plain = 0;                           ///< dominant share of the allocated resources

  /// One queue's side of a comparison (queue_order) with a job at its head.
  struct JobSide {
    ResourceVec with = ResourceVec::Zero();  ///< allocated plus the job's next pods
    bool starved = false;                    ///< `with` within deserved
    bool violates = false;                   ///< asks for a resource the queue may not have
    double share = 0;                        ///< dominant share of `with`
  };
  /// The side for `job`, kept for one job view while neither the queue nor the job's pods
  /// change (the scenario queues compare the same heads again and again).
  struct WithJob {
    ViewStamp stamp;
    JobSide side;
  };
  WithJob with_job;
};

class ProportionPlugin final : public Plugin {
 public:
  std::string_view name() const override { return "proportion"; }
  void on_session_open(Session& ssn) override;

  /// Queue attributes, indexed like state.queue_tree (plugin units: CPU millicores, memory bytes,
  /// GPU devices): quota, limit and weight, usage, fair share, and what the session allocated.
  /// Changed only by the plugin's charges (allocate and deallocate events), which also drop what
  /// the queue order keeps of each queue they change.
  IdVector<QueueId, fairshare::QueueShares> queues;
  ResourceVec total = ResourceVec::Zero();  ///< capacity divided by the fair share

 private:
  QueueOrderFacts& facts(QueueId q);
  std::vector<QueueOrderFacts> order_facts_;  ///< by queue index
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
