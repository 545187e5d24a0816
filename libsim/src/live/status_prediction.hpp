#pragma once
// Private: Queue.status predicted from a live cluster's objects and Queue.status as observed.
// The prediction is what KAI's controllers will write once KAI's next scheduling cycle on this
// state has bound its pods: the objects as they are, the cycle's binds landed (spec.nodeName,
// PodScheduled=True, received-resource-type for GPU shares), pods counted as the
// podgroup-controller counts them (io/pod_status.hpp). Evictions change nothing within a settle
// period: an evicted pod that still runs counts until it is gone.

#include <map>
#include <string>
#include <vector>

#include "kube_api.hpp"
#include "sim/core/error.hpp"
#include "sim/io/queue_status.hpp"
#include "sim/live/diff.hpp"

namespace sim::live {

/// Each existing Queue's predicted status (queues without pods: all zero).
std::map<std::string, io::QueueStatus> predict_queue_status(const std::vector<ordered_json>& items,
                                                            Diagnostics& diagnostics);

/// Each Queue's status as its object holds it.
std::map<std::string, io::QueueStatus> observed_queue_status(
    const std::vector<ordered_json>& items);

/// One row per queue, status field and resource (nvidia.com/gpu always, and every resource either
/// side names), predicted against observed.
std::vector<DriftRow> status_rows(const std::map<std::string, io::QueueStatus>& predicted,
                                  const std::map<std::string, io::QueueStatus>& observed,
                                  double at_s);

}  // namespace sim::live
