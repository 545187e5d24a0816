#pragma once
// Private: a workload trace as CSV (`trace:` in a scenario): one bare pod per row, submitted at
// its time. CSV rather than YAML because traces hold thousands of pods (docs/scenario-format.md).

#include <string>
#include <vector>

#include "scenario.hpp"
#include "sim/core/error.hpp"

namespace sim::replay {

/// Reads `text` (the file `file`) into one step per distinct submit time, in time order. A bad
/// cell throws InputError with the file, line, column number and column name.
std::vector<Step> read_trace_csv(const std::string& text, const std::string& file,
                                 Diagnostics& diagnostics);

}  // namespace sim::replay
