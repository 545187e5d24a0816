#pragma once
// One queue's state for one resource during fair-share division, in plugin units (GPU devices,
// CPU millicores, memory bytes). Mirrors KAI's proportion/resource_share/resource_share.go.

namespace sim::fairshare {

struct ResourceShare {
  double deserved = 0;                   ///< quota; -1 = "all of the level's total"
  double fair_share = 0;                 ///< output; division adds to the starting value
  double max_allowed = 0;                ///< limit; -1 = no cap
  double over_quota_weight = 0;          ///< weight inside the queue's priority bucket
  double allocated = 0;                  ///< in use now (queue order and reclaim only)
  double allocated_not_preemptible = 0;  ///< in use by non-preemptible jobs
  double request = 0;                    ///< allocated + pending demand
  double usage = 0;                      ///< historical usage / cluster capacity (time-based share)

  /// Request capped by the limit (GetRequestableShare).
  double requestable() const;
  /// What the queue may hold: the limit when deserved is unlimited, else max(deserved, fair
  /// share) capped by the limit (GetAllocatableShare).
  double allocatable() const;
};

}  // namespace sim::fairshare
