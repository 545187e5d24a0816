#pragma once
// Numbers formatted exactly as Go's encoding/json writes a float64, so kaisim's JSON is
// byte-identical to what KAI's own tools print for the same values.

#include <string>

namespace sim {

/// Shortest text that reads back as `value`; plain decimal, or exponent form (e.g. "1e-7",
/// "1e+21") when |value| < 1e-6 or >= 1e21, as Go's floatEncoder does. `value` must be finite.
std::string go_json_number(double value);

/// A JSON string literal for `text` (quotes and escapes; non-ASCII bytes are kept as they are).
std::string json_string(const std::string& text);

}  // namespace sim
