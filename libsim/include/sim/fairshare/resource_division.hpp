#pragma once
// KAI v0.16.4 fair-share division among one set of sibling queues for one resource
// (pkg/scheduler/plugins/proportion/resource_division/resource_division.go), with the same IEEE
// double operations in the same order. Where KAI iterates a Go map (random order) this code
// iterates `siblings` in the order given; callers pass a fixed canonical order (UID ascending).

#include <span>
#include <string_view>

#include "sim/fairshare/resource_share.hpp"
#include "sim/model/queue.hpp"

namespace sim::fairshare {

/// One sibling as the division sees it. `share` is updated in place (fair_share grows).
struct DivisionEntry {
  ResourceShare* share = nullptr;
  int priority = 0;                              ///< queue priority: over-quota bucket
  const model::CreationTime* created = nullptr;  ///< leftover-unit tie-break: older first
  std::string_view uid;                          ///< last tie-break: smaller UID first
};

/// setResourceShare: deserved phase, then over-quota by priority bucket. Returns what is left
/// unassigned (0 when the deserved phase used everything).
double set_resource_share(double total, double k_value, std::span<const DivisionEntry> siblings);

/// Phase A alone (setDeservedResource): each queue gets min(deserved, requestable), not capped by
/// `total`; returns total minus what was given (may be negative).
double set_deserved(double total, std::span<const DivisionEntry> siblings);

/// Phase B alone (divideOverQuotaResource): weight rounds per priority bucket with whole units
/// while a queue is capped by its share, then at most one leftover unit per queue.
double divide_over_quota(double amount, double k_value, std::span<const DivisionEntry> siblings);

}  // namespace sim::fairshare
