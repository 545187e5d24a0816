#pragma once
// Private: `kaisim cycle`'s default output, the JSON report laid out as tables for people.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/core/resource_vec.hpp"

namespace sim::api {

/// A queue's quota and limit (proportion units; -1 = unlimited), which the JSON report lacks.
struct QueueBounds {
  std::string queue;
  ResourceVec quota;
  ResourceVec limit;
};

/// The report's binds, evictions, pipelined pods, queues and pending jobs as aligned tables.
std::string cycle_table(const nlohmann::ordered_json& report,
                        const std::vector<QueueBounds>& bounds, std::int64_t now_ns);

}  // namespace sim::api
