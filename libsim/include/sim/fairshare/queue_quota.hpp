#pragma once
// From a Queue spec (CRD units) to the proportion plugin's units, as
// proportion.go createQueueResourceAttrs does it.

#include "sim/fairshare/hierarchy.hpp"
#include "sim/model/queue.hpp"

namespace sim::fairshare {

/// KAI multiplies memory quota and limit by 10^6 (the constant is named "mebibytes" but is
/// 1,000,000) and keeps -1 through max(-1, v * 1e6). CPU stays in millicores, GPU in devices.
inline constexpr double kMemoryQuotaUnitBytes = 1000000.0;

/// Quota, limit, weight, priority and creation time of `spec`; request/allocated start at 0.
QueueShares shares_from_spec(const model::QueueSpec& spec);

}  // namespace sim::fairshare
