#pragma once
// Compact builders for fair-share tests: queues described like the rows of
// kai-fairshare.md section 6 (D = deserved, w = weight, R = request, L = limit, p = priority).

#include <string>
#include <vector>

#include "sim/fairshare/resource_division.hpp"

namespace test {

struct Q {
  std::string uid;
  double d = 0;   // deserved
  double w = 0;   // over-quota weight
  double r = 0;   // request
  double l = -1;  // limit
  int p = 0;      // priority
  double fs = 0;  // starting fair share
  double u = 0;   // usage (time-based)
};

/// Runs one sibling-level division over `queues` in the given order; returns the remainder and
/// writes fair shares back into `fair_share` (same order). Creation order = list order.
struct Level {
  std::vector<sim::fairshare::ResourceShare> shares;
  std::vector<sim::model::CreationTime> created;
  std::vector<sim::fairshare::DivisionEntry> entries;
  std::vector<std::string> uids;  // owned, so entries never point into a temporary

  explicit Level(const std::vector<Q>& queues) {
    shares.resize(queues.size());
    for (const Q& q : queues) uids.push_back(q.uid);
    created.resize(queues.size());
    for (std::size_t i = 0; i < queues.size(); ++i) {
      const Q& q = queues[i];
      shares[i].deserved = q.d;
      shares[i].over_quota_weight = q.w;
      shares[i].request = q.r;
      shares[i].max_allowed = q.l;
      shares[i].fair_share = q.fs;
      shares[i].usage = q.u;
      created[i] = sim::model::CreationTime{static_cast<std::int64_t>(i), 0};
    }
    for (std::size_t i = 0; i < queues.size(); ++i) {
      entries.push_back({&shares[i], queues[i].p, &created[i], uids[i]});
    }
  }
  double fs(std::size_t i) const { return shares[i].fair_share; }
};

}  // namespace test
