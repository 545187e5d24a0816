#pragma once
// Top-down fair share over a queue tree (proportion.go setFairShareForQueues): the top-level
// queues divide the cluster total, then every parent's fair share is its children's total.

#include <array>

#include "sim/core/resource_vec.hpp"
#include "sim/core/strong_id.hpp"
#include "sim/fairshare/resource_share.hpp"
#include "sim/model/queue.hpp"
#include "sim/model/queue_tree.hpp"

namespace sim::fairshare {

/// A queue's division state for CPU, memory and GPU (indexed by index_of(Resource)).
struct QueueShares {
  std::array<ResourceShare, 3> by_resource;
  int priority = 0;
  model::CreationTime created;
  ResourceShare& operator[](Resource r) {
    return by_resource[static_cast<std::size_t>(index_of(r))];
  }
  const ResourceShare& operator[](Resource r) const {
    return by_resource[static_cast<std::size_t>(index_of(r))];
  }
};

/// Fills `fair_share` of every queue in `tree` (adding to its starting value). `total` is the
/// cluster capacity in plugin units; `k_value` is the time-based weight (<= 0 means 0).
/// Unassigned remainders at each level are dropped, as in KAI.
void compute_fair_shares(const model::QueueTree& tree, IdVector<QueueId, QueueShares>& shares,
                         const ResourceVec& total, double k_value);

}  // namespace sim::fairshare
