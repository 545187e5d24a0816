#pragma once
// Kubernetes resource quantities ("500m", "2", "1.5Gi", "1e3", "100M") with the rounding of
// k8s.io/apimachinery's Quantity: Value() and MilliValue() round up to the next integer.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sim::io {

__extension__ typedef unsigned __int128 QuantityMantissa;  // 30+ decimal digits without loss

struct Quantity {
  bool negative = false;
  QuantityMantissa mantissa = 0;  ///< the digits, without the decimal point
  int decimal_exponent = 0;       ///< value = mantissa * 10^decimal_exponent * 2^binary_exponent
  int binary_exponent = 0;

  /// Value scaled by 10^scale and rounded up (ceiling) to an integer; nullopt on overflow.
  std::optional<std::int64_t> scaled(int scale) const;
  std::optional<std::int64_t> value() const { return scaled(0); }        ///< e.g. memory bytes
  std::optional<std::int64_t> milli_value() const { return scaled(3); }  ///< e.g. CPU millicores
};

/// Parses the Kubernetes quantity grammar; nullopt if `text` is not a quantity.
std::optional<Quantity> parse_quantity(std::string_view text);

/// Canonical text of `milli` thousandths, as Kubernetes prints a DecimalSI quantity:
/// 330 -> "330m", 1000 -> "1", 1500 -> "1500m", 0 -> "0".
std::string format_milli_quantity(std::int64_t milli);

}  // namespace sim::io
