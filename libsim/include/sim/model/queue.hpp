#pragma once
// Plain queue data as a Queue v2 manifest (scheduling.run.ai/v2) states it; no scheduling policy.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/error.hpp"

namespace sim::model {

/// When a queue was created, for KAI's "older first" tie-breaks. Queues without a timestamp are
/// "created now" in list order, so they sort after every real timestamp and among themselves by
/// `seq` (their position in the input).
struct CreationTime {
  std::int64_t unix_ns = 0;  ///< nanoseconds since the Unix epoch
  std::int64_t seq = 0;      ///< input position; breaks ties between queues without a timestamp
  static CreationTime unknown(std::int64_t position);
  friend auto operator<=>(const CreationTime&, const CreationTime&) = default;
};

/// One resource of `spec.resources` in CRD units: GPU in devices, CPU in millicores, memory in
/// MB (10^6 bytes). An omitted number is 0 (KAI has no defaults); -1 means unlimited.
struct QuotaSpec {
  double quota = 0;              ///< guaranteed ("deserved")
  double limit = 0;              ///< hard cap ("maxAllowed"); 0 = nothing may be allocated
  double over_quota_weight = 0;  ///< weight inside a priority bucket; 0 = never over quota
  bool stated = false;           ///< the manifest has this resource's block (explanations only)
};

/// A Queue as the scheduler reads it (pkg/apis/scheduling/v2/queue_types.go).
struct QueueSpec {
  std::string name;          ///< metadata.name, the queue's UID inside KAI
  std::string display_name;  ///< spec.displayName (logging only)
  std::string parent;        ///< spec.parentQueue; empty = top level
  int priority = 100;        ///< spec.priority; nil -> 100 (DefaultQueuePriority)
  CreationTime created;
  QuotaSpec gpu, cpu, memory;
  std::optional<std::int64_t> preempt_min_runtime_ms;  ///< spec.preemptMinRuntime; unset = inherit
  std::optional<std::int64_t> reclaim_min_runtime_ms;  ///< spec.reclaimMinRuntime; unset = inherit
  SourceLocation where;                                ///< where the manifest starts, for messages
};

}  // namespace sim::model
