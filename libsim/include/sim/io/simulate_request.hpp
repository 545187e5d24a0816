#pragma once
// The request body of KAI's fair-share simulator (cmd/fairshare-simulator, POST /simulate), read
// from JSON or YAML with every field checked. Only syntax and ranges are checked here; KAI's
// defaults for omitted fields are applied by api/fair_share_simulator.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/io/input_limits.hpp"

namespace sim::io {

/// `resourceShare.{gpu,cpu,memory}`: every number optional, as in KAI's ResourceShareOverrides.
struct ShareOverrides {
  std::optional<double> deserved;                   ///< >= 0 or -1 (unlimited)
  std::optional<double> fair_share;                 ///< starting fair share, >= 0
  std::optional<double> max_allowed;                ///< >= 0 or -1 (no cap)
  std::optional<double> over_quota_weight;          ///< >= 0
  std::optional<double> allocated;                  ///< >= 0
  std::optional<double> allocated_not_preemptible;  ///< >= 0
  std::optional<double> request;                    ///< >= 0
  std::optional<double> absolute_usage;             ///< >= 0; used only when kValue > 0
};

/// One entry of `queues`.
struct QueueOverrides {
  std::string uid;                         ///< required, unique
  std::string name;                        ///< display only
  std::string parent;                      ///< `parentQueue`; "" = top level
  std::optional<int> priority;             ///< default 0 in the simulator
  std::optional<std::int64_t> created_ns;  ///< `creationTimestamp`, ns since the epoch
  /// `resourceShare.gpu|cpu|memory`, indexed by index_of(Resource); nullopt = block omitted.
  std::array<std::optional<ShareOverrides>, 3> shares;
  SourceLocation where;  ///< position of the entry
  std::string path;      ///< e.g. `queues[2]`
};

/// The whole request. `total` is indexed by index_of(Resource) (CPU, Memory, GPU).
struct SimulateRequest {
  std::array<double, 3> total{0, 0, 0};  ///< `totalResource.{CPU,Memory,GPU}`, >= 0
  double k_value = 0;                    ///< kaisim extension; KAI's simulator fixes k = 0
  std::vector<QueueOverrides> queues;
};

/// Parses and validates a request. Throws InputError (file, line, column, field path) on the first
/// problem; unknown fields and other harmless oddities go to `diagnostics` as warnings. A JSON
/// text is read in place when its capacity leaves kReadPadding bytes after its end (as
/// read_input_file's does), else from a copy.
SimulateRequest parse_simulate_request(const std::string& text, const std::string& file,
                                       Diagnostics& diagnostics);

}  // namespace sim::io
