#pragma once
// What the pods add to their queues' sums as a session opens (proportion.go
// updateQueuesCurrentResourceUsage). A state's `sum_order` picks how: in KAI's order of additions
// (LISTED, model/cluster.hpp), or exactly (ExactSum, EXACT): then the total does not depend on the
// order of the pods, so a replay can keep it up to date pod by pod (replay/queue_ledger) and give
// a session the very sums its own pass over every pod would find.

#include <array>

#include "sim/core/exact_sum.hpp"
#include "sim/model/cluster.hpp"

namespace sim::sched {

/// One pod's part: an allocated pod what it accepted, a pending pod what it requests (MIG
/// slices and, with GPU-memory requests, the memory as a fraction of the smallest GPU, as GPUs).
struct PodPart {
  bool allocated = false;
  bool pending = false;
  std::array<ExactSum::Term, 3> amount{};  ///< by kQuotaResources, in proportion plugin units
};
PodPart pod_part(const model::ClusterState& state, const model::Task& task);

/// Whether the pod makes its job one that can be stale (model::OpenSums::may_be_stale).
bool pod_may_be_stale(const model::Job& job, const model::Task& task);

/// Per queue, exact sums of the parts of its pods and its descendants'.
class QueueSums {
 public:
  QueueSums() = default;
  explicit QueueSums(const model::QueueTree& tree);
  /// Adds (sign +1) or takes back (-1) a part of a pod of a job in `queue`.
  void add(QueueId queue, bool preemptible, const PodPart& part, int sign);
  /// The sums as a session takes them.
  IdVector<QueueId, model::OpenSums::Queue> values() const;
  /// The queue's parent in the tree, or invalid.
  QueueId parent(QueueId q) const { return parents_[q]; }
  std::size_t size() const { return queues_.size(); }

 private:
  struct Sums {
    std::array<ExactSum, 3> request, allocated, allocated_not_preemptible;
  };
  IdVector<QueueId, Sums> queues_;
  IdVector<QueueId, QueueId> parents_;
};

/// What a session opening on `state` counts, with one pass over every node and pod (queue sums
/// in `state.sum_order`).
model::OpenSums count_open_sums(const model::ClusterState& state);

}  // namespace sim::sched
