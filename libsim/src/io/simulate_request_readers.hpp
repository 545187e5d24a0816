#pragma once
// Private to io: the simulator request's two readers. parse_simulate_request tries the plain
// reader first: it reads a well-formed JSON request straight off simdjson's On-Demand tokens (no
// document tree, no Fields) and gives up on anything the field reader would warn about or
// refuse, and that reader then reads the text again and says what and where. A 10,000-queue
// request is read about four times faster this way.

#include <optional>
#include <string>
#include <string_view>

#include "sim/io/simulate_request.hpp"

namespace sim::io {

/// The request, when `text` is JSON with only known keys, each once and spelt as KAI spells
/// them, and every value valid; nullopt otherwise (and for every text the field reader would
/// give a warning for). `padded`: the kReadPadding bytes after the text may be read (simdjson's
/// loads run past the end), so the text need not be copied.
std::optional<SimulateRequest> read_plain_simulate_request(std::string_view text,
                                                           const std::string& file,
                                                           bool padded = false);

/// Reads any request, JSON or YAML, through Fields: every problem with its position.
SimulateRequest read_simulate_request_fields(std::string_view text, const std::string& file,
                                             Diagnostics& diagnostics);

}  // namespace sim::io
