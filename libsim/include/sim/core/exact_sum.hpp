#pragma once
// A sum of doubles that does not depend on the order of its terms. Each term is cut once to a
// multiple of 2^-64 (which loses nothing from terms of 2^-11 and more: GPU fractions, millicores,
// bytes) and the sum is kept as an integer, so adding terms in any order, or adding a term and
// taking it away again, gives the same bits. A total kept up to date change by change then equals
// one summed from scratch, which plain doubles do not promise.

#include <cmath>
#include <cstdint>

namespace sim {

__extension__ using Int128 = __int128;  // GCC and Clang; __extension__ keeps -Wpedantic quiet

class ExactSum {
 public:
  /// A term as the sum takes it: whole part and the first 64 bits of the fraction.
  struct Term {
    Int128 whole = 0;
    std::uint64_t fraction = 0;
    bool operator==(const Term&) const = default;
  };

  /// Terms beyond +-2^100 (no quantity is that large) count as 2^100; NaN counts as 0.
  static Term term(double x) {
    constexpr double kLargest = 1267650600228229401496703205376.0;  // 2^100
    if (!(std::fabs(x) <= kLargest)) x = std::isnan(x) ? 0.0 : std::copysign(kLargest, x);
    const double whole = std::floor(x);
    // x - floor(x) is exact, in [0, 1); times 2^64 it stays below 2^64.
    return {static_cast<Int128>(whole), static_cast<std::uint64_t>(std::ldexp(x - whole, 64))};
  }

  void add(const Term& t) {
    const std::uint64_t fraction = fraction_ + t.fraction;
    whole_ += t.whole + (fraction < fraction_ ? 1 : 0);
    fraction_ = fraction;
  }
  void subtract(const Term& t) {
    const bool borrow = fraction_ < t.fraction;
    fraction_ -= t.fraction;
    whole_ -= t.whole + (borrow ? 1 : 0);
  }
  void add(double x) { add(term(x)); }

  /// The sum as the nearest double (after rounding the whole and the fraction parts each once).
  double value() const {
    return static_cast<double>(whole_) + std::ldexp(static_cast<double>(fraction_), -64);
  }
  bool operator==(const ExactSum&) const = default;

 private:
  Int128 whole_ = 0;
  std::uint64_t fraction_ = 0;
};

}  // namespace sim
