#include "sim/fairshare/hierarchy.hpp"

#include <vector>

#include "sim/fairshare/resource_division.hpp"

namespace sim::fairshare {
namespace {

void divide_level(const model::QueueTree& tree, IdVector<QueueId, QueueShares>& shares,
                  std::span<const QueueId> siblings, const ResourceVec& total, double k_value,
                  std::vector<DivisionEntry>& scratch) {
  if (siblings.empty()) return;
  for (Resource r : kQuotaResources) {
    scratch.clear();
    for (QueueId q : siblings) {
      scratch.push_back(
          DivisionEntry{&shares[q][r], shares[q].priority, &shares[q].created, tree.uid(q)});
    }
    set_resource_share(at(total, r), k_value, scratch);
  }
  for (QueueId q : siblings) {
    if (tree.is_leaf(q)) continue;
    ResourceVec parent_share = ResourceVec::Zero();
    for (Resource r : kQuotaResources) at(parent_share, r) = shares[q][r].fair_share;
    divide_level(tree, shares, tree.children(q), parent_share, k_value, scratch);
  }
}

}  // namespace

void compute_fair_shares(const model::QueueTree& tree, IdVector<QueueId, QueueShares>& shares,
                         const ResourceVec& total, double k_value) {
  // proportion.go New: kValue <= 0 is treated as 0.
  const double k = k_value > 0 ? k_value : 0.0;
  std::vector<DivisionEntry> scratch;
  divide_level(tree, shares, tree.roots(), total, k, scratch);
}

}  // namespace sim::fairshare
