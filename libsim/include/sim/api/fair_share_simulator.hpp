#pragma once
// `kaisim fairshare` and `kaisim serve`: KAI's fair-share simulator (cmd/fairshare-simulator)
// with the same request, defaults and response, plus two extensions: `parentQueue` makes the
// division hierarchical, and a top-level `kValue` turns on time-based fair share.

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/io/simulate_request.hpp"

namespace sim::api {

/// Fair share of one queue, in the request's units (GPU devices, CPU as given, memory as given).
struct QueueFairShare {
  std::string uid;
  double gpu = 0;
  double cpu = 0;
  double memory = 0;
};

/// Runs the division. Queues are returned sorted by UID; queues dropped as orphans are absent.
/// Throws InputError for duplicate UIDs and parent cycles; orphans become warnings.
std::vector<QueueFairShare> simulate_fair_share(const io::SimulateRequest& request,
                                                Diagnostics& diagnostics);

/// KAI's response body: `{"<uid>":{"gpu":x,"cpu":y,"memory":z},...}` plus a newline, byte for
/// byte as Go's json.Encoder writes it (keys sorted). `pretty` indents by two spaces instead.
std::string fair_share_response(const std::vector<QueueFairShare>& shares, bool pretty);

/// Parse + simulate + format in one call; what both the CLI and the HTTP server run.
std::string answer_simulate_request(const std::string& body, const std::string& source, bool pretty,
                                    Diagnostics& diagnostics);

}  // namespace sim::api
