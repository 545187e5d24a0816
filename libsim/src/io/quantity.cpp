#include "sim/io/quantity.hpp"

#include <cctype>
#include <limits>

namespace sim::io {
namespace {

using u128 = QuantityMantissa;
constexpr u128 kMantissaLimit = static_cast<u128>(1) << 100;

bool suffix_exponents(std::string_view suffix, int& dec, int& bin) {
  dec = 0;
  bin = 0;
  if (suffix.empty()) return true;
  if (suffix.size() == 2 && suffix[1] == 'i') {
    const std::string_view units = "KMGTPE";
    const std::size_t at = units.find(suffix[0]);
    if (at == std::string_view::npos) return false;
    bin = 10 * static_cast<int>(at + 1);
    return true;
  }
  if (suffix.size() != 1) return false;
  switch (suffix[0]) {
    case 'n':
      dec = -9;
      return true;
    case 'u':
      dec = -6;
      return true;
    case 'm':
      dec = -3;
      return true;
    case 'k':
      dec = 3;
      return true;
    case 'M':
      dec = 6;
      return true;
    case 'G':
      dec = 9;
      return true;
    case 'T':
      dec = 12;
      return true;
    case 'P':
      dec = 15;
      return true;
    case 'E':
      dec = 18;
      return true;
    default:
      return false;
  }
}

}  // namespace

std::optional<Quantity> parse_quantity(std::string_view text) {
  Quantity q;
  std::size_t i = 0;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) q.negative = text[i++] == '-';
  std::size_t digits = 0;
  bool point = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      if (q.mantissa < kMantissaLimit) {
        q.mantissa = q.mantissa * 10 + static_cast<u128>(c - '0');
        if (point) --q.decimal_exponent;
      } else if (!point) {
        ++q.decimal_exponent;  // drop precision beyond ~30 digits, keep magnitude
      }
      ++digits;
    } else if (c == '.' && !point) {
      point = true;
    } else {
      break;
    }
  }
  if (digits == 0) return std::nullopt;
  std::string_view rest = text.substr(i);
  // Exponent form "1e3" / "1E-2" (only without an SI suffix).
  if (!rest.empty() && (rest[0] == 'e' || rest[0] == 'E') && rest.size() > 1) {
    std::size_t j = 1;
    bool neg = false;
    if (rest[j] == '+' || rest[j] == '-') neg = rest[j++] == '-';
    if (j < rest.size()) {
      int exp = 0;
      std::size_t start = j;
      while (j < rest.size() && std::isdigit(static_cast<unsigned char>(rest[j])) && exp < 10000) {
        exp = exp * 10 + (rest[j++] - '0');
      }
      if (j == rest.size() && j > start) {
        q.decimal_exponent += neg ? -exp : exp;
        return q;
      }
    }
  }
  int dec = 0, bin = 0;
  if (!suffix_exponents(rest, dec, bin)) return std::nullopt;
  q.decimal_exponent += dec;
  q.binary_exponent = bin;
  return q;
}

std::optional<std::int64_t> Quantity::scaled(int scale) const {
  u128 num = mantissa;
  u128 den = 1;
  int dec = decimal_exponent + scale;
  const u128 limit = static_cast<u128>(std::numeric_limits<std::int64_t>::max());
  for (int b = 0; b < binary_exponent; ++b) {
    num *= 2;
    if (num > (limit << 20)) return std::nullopt;
  }
  for (; dec > 0; --dec) {
    num *= 10;
    if (num > (limit << 20)) return std::nullopt;
  }
  for (; dec < 0; ++dec) {
    den *= 10;
    if (den > (static_cast<u128>(1) << 120)) return 0;
  }
  u128 whole = num / den;
  const bool remainder = num % den != 0;
  if (negative) {
    if (whole > limit) return std::nullopt;
    return -static_cast<std::int64_t>(whole);  // ceiling of a negative number truncates
  }
  if (remainder) ++whole;
  if (whole > limit) return std::nullopt;
  return static_cast<std::int64_t>(whole);
}

std::string format_milli_quantity(std::int64_t milli) {
  if (milli % 1000 == 0) return std::to_string(milli / 1000);
  return std::to_string(milli) + "m";
}

}  // namespace sim::io
