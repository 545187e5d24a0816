// Kubernetes quantities: exact decimal parsing and Kubernetes' round-up rule.
#include "sim/io/quantity.hpp"

#include <catch2/catch.hpp>

using sim::io::format_milli_quantity;
using sim::io::parse_quantity;

TEST_CASE("quantities parse with SI and binary suffixes and round up", "[io][quantity]") {
  CHECK(parse_quantity("500m")->milli_value() == 500);
  CHECK(parse_quantity("2")->milli_value() == 2000);
  CHECK(parse_quantity("0.1")->milli_value() == 100);  // exact decimal, not 100.00000000000001
  CHECK(parse_quantity("1.5Gi")->value() == 1610612736);
  CHECK(parse_quantity("256Mi")->value() == 268435456);
  CHECK(parse_quantity("100M")->value() == 100000000);
  CHECK(parse_quantity("1e3")->value() == 1000);
  CHECK(parse_quantity("1.5")->value() == 2);          // Value() rounds up
  CHECK(parse_quantity("1500u")->milli_value() == 2);  // so does MilliValue()
  CHECK(parse_quantity("8")->value() == 8);
  CHECK_FALSE(parse_quantity("abc"));
  CHECK_FALSE(parse_quantity("1Zi"));
  CHECK_FALSE(parse_quantity(""));
  CHECK_FALSE(parse_quantity("1.2.3"));
  CHECK_FALSE(parse_quantity("99999999999999999999999E")->value());  // overflows int64
}

TEST_CASE("milli quantities print as Kubernetes prints them", "[io][quantity]") {
  CHECK(format_milli_quantity(330) == "330m");
  CHECK(format_milli_quantity(1000) == "1");
  CHECK(format_milli_quantity(1500) == "1500m");
  CHECK(format_milli_quantity(0) == "0");
}
