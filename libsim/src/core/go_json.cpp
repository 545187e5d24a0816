#include "sim/core/go_json.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "sim/core/assert.hpp"
#include "sim/core/error.hpp"

namespace sim {

std::string go_json_number(double value) {
  // Go's encoder refuses NaN and infinities; so does kaisim, in every build: no output ever
  // holds one.
  if (!std::isfinite(value)) {
    throw Error(ErrorCode::INTERNAL,
                std::string("a non-finite number (") + (std::isnan(value) ? "NaN" : "infinity") +
                    ") would be written to an output; please report the input");
  }
  const double magnitude = std::fabs(value);
  const bool exponent = magnitude != 0 && (magnitude < 1e-6 || magnitude >= 1e21);
  char buf[64];
  auto [end, ec] =
      std::to_chars(buf, buf + sizeof buf, value,
                    exponent ? std::chars_format::scientific : std::chars_format::fixed);
  SIM_ASSERT(ec == std::errc());
  std::string text(buf, end);
  // Go trims a zero-padded negative exponent: "1e-07" -> "1e-7".
  const std::size_t n = text.size();
  if (exponent && n >= 4 && text[n - 4] == 'e' && text[n - 3] == '-' && text[n - 2] == '0') {
    text.erase(n - 2, 1);
  }
  return text;
}

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    // Go's encoder also escapes HTML-sensitive bytes and the JavaScript line separators.
    if (c == '<' || c == '>' || c == '&') {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\u%04x", static_cast<unsigned>(c));
      out += esc;
      continue;
    }
    if (c == '\xe2' && i + 2 < text.size() && text[i + 1] == '\x80' &&
        (text[i + 2] == '\xa8' || text[i + 2] == '\xa9')) {
      out += text[i + 2] == '\xa8' ? "\\u2028" : "\\u2029";
      i += 2;
      continue;
    }
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char esc[8];
          std::snprintf(esc, sizeof esc, "\\u%04x", static_cast<unsigned>(c));
          out += esc;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

}  // namespace sim
