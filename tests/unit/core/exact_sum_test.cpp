// An exact sum gives the same bits whatever the order of its terms, and taking a term back
// undoes adding it: what a replay's ledger, kept up to date pod by pod, relies on.
#include "sim/core/exact_sum.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <random>
#include <vector>

namespace {

double sum_of(const std::vector<double>& terms) {
  sim::ExactSum s;
  for (double x : terms) s.add(x);
  return s.value();
}

}  // namespace

TEST_CASE("an exact sum does not depend on the order of its terms", "[core][exact_sum]") {
  // GPU fractions, GPU-memory fractions, millicores and bytes, as pods give them.
  const std::vector<double> terms = {0.33, 0.1,  0.2,           0.66, 1000.0 / 46068.0, 0.5,
                                     3.0,  2000, 34359738368.0, 0.01, 7.0 / 3.0};
  std::vector<double> shuffled = terms;
  const double first = sum_of(terms);
  std::mt19937 rng(7);
  bool naive_moved = false;  // plain doubles do depend on the order
  double naive_first = 0;
  for (double x : terms) naive_first += x;
  for (int i = 0; i < 200; ++i) {
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    CHECK(sum_of(shuffled) == first);
    double naive = 0;
    for (double x : shuffled) naive += x;
    naive_moved = naive_moved || naive != naive_first;
  }
  CHECK(naive_moved);
  CHECK(first == Approx(34359740373.0 + 0.33 + 0.1 + 0.2 + 0.66 + 1000.0 / 46068.0 + 0.5 + 0.01 +
                        7.0 / 3.0 - 2.0)
                     .epsilon(1e-15));
}

TEST_CASE("taking a term back undoes adding it, bit for bit", "[core][exact_sum]") {
  sim::ExactSum s;
  s.add(0.33);
  s.add(0.33);
  const sim::ExactSum before = s;
  for (double x : {0.1, 1000.0 / 46068.0, -2.5, 1e12, 0.999999}) {
    const auto t = sim::ExactSum::term(x);
    s.add(t);
    s.subtract(t);
    CHECK(s == before);
  }
  s.subtract(sim::ExactSum::term(0.33));
  s.subtract(sim::ExactSum::term(0.33));
  CHECK(s.value() == 0.0);
}

TEST_CASE("one term reads back as itself: huge and NaN terms stay finite", "[core][exact_sum]") {
  for (double x : {0.0, 0.33, 0.1, 1000.0 / 46068.0, -0.75, 123456.789, 34359738368.0, -1e15}) {
    sim::ExactSum s;
    s.add(x);
    CHECK(s.value() == x);
  }
  sim::ExactSum huge;
  huge.add(1e300);
  huge.add(std::nan(""));
  CHECK(std::isfinite(huge.value()));
  CHECK(huge.value() > 1e30);
}
