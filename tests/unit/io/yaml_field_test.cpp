// Private parsing helpers: RFC 3339 times and Go durations.
#include "io/yaml_field.hpp"

#include <catch2/catch.hpp>

using sim::io::format_rfc3339;
using sim::io::parse_go_duration_ms;
using sim::io::parse_rfc3339;

TEST_CASE("RFC 3339 times parse to nanoseconds since the epoch", "[io][time]") {
  CHECK(parse_rfc3339("1970-01-01T00:00:00Z") == 0);
  CHECK(parse_rfc3339("2026-08-03T10:00:00Z") == 1785751200LL * 1000000000LL);
  CHECK(parse_rfc3339("2026-08-03T12:00:00+02:00") == 1785751200LL * 1000000000LL);
  CHECK(parse_rfc3339("1970-01-01T00:00:01.5Z") == 1500000000LL);
  CHECK(parse_rfc3339("2000-02-29T00:00:00Z") == 951782400LL * 1000000000LL);
  CHECK_FALSE(parse_rfc3339("2026-08-03 10:00:00Z"));
  CHECK_FALSE(parse_rfc3339("2026-08-03T10:00:00"));
  CHECK_FALSE(parse_rfc3339("2026-13-03T10:00:00Z"));
  CHECK_FALSE(parse_rfc3339("yesterday"));
  CHECK_FALSE(parse_rfc3339("2026-08-03T10:00:00Zjunk"));
  // 64-bit nanoseconds since 1970 end in 1677 and 2262 (a fuzzer's year 1012 overflowed).
  CHECK(parse_rfc3339("2262-04-11T23:47:16Z") == 9223372036000000000LL);
  CHECK_FALSE(parse_rfc3339("2262-04-11T23:47:17Z"));
  CHECK(parse_rfc3339("1677-09-21T00:12:44Z") == -9223372036000000000LL);
  CHECK_FALSE(parse_rfc3339("1012-02-29T00:00:00Z"));
  CHECK_FALSE(parse_rfc3339("9999-12-31T23:59:59Z"));
}

TEST_CASE("seconds format as RFC 3339 in UTC and parse back, before 1970 too", "[io][time]") {
  CHECK(format_rfc3339(0) == "1970-01-01T00:00:00Z");
  CHECK(format_rfc3339(1767225600) == "2026-01-01T00:00:00Z");  // the replay's time 0
  CHECK(format_rfc3339(951782400) == "2000-02-29T00:00:00Z");
  CHECK(format_rfc3339(-1) == "1969-12-31T23:59:59Z");
  CHECK(format_rfc3339(-9223372036) == "1677-09-21T00:12:44Z");
  for (const std::int64_t s : {-86401LL, -1LL, 0LL, 86399LL, 1785751200LL, 9223372036LL})
    CHECK(parse_rfc3339(format_rfc3339(s)) == s * 1000000000LL);
}

TEST_CASE("Go durations parse to milliseconds", "[io][time]") {
  CHECK(parse_go_duration_ms("0") == 0);
  CHECK(parse_go_duration_ms("90s") == 90000);
  CHECK(parse_go_duration_ms("10m") == 600000);
  CHECK(parse_go_duration_ms("1h30m") == 5400000);
  CHECK(parse_go_duration_ms("1.5h") == 5400000);
  CHECK(parse_go_duration_ms("250ms") == 250);
  CHECK_FALSE(parse_go_duration_ms("10"));
  CHECK_FALSE(parse_go_duration_ms("ten minutes"));
  CHECK_FALSE(parse_go_duration_ms("5d"));
  CHECK_FALSE(parse_go_duration_ms(""));
}

TEST_CASE(
    "input on which yaml-cpp's LoadAll never ends is one located error (found by the fuzzer)") {
  // A mangled JSON document: yaml-cpp 0.7 reports new documents at line 10 forever.
  const std::string text = R"({
    "tot": 0,
        "resourceShare": {
          "gpu": {
            "deserved": 10,
            "request": 100,
            "overQuotaWeight": 6
          }
        }
      },
      {
        "uid": "queue2",
        "nam       "gpu": {
            "deserved": 10,
            "request": 100,
            "overQuotaWeight": 6
          }
        }
      },
      {
        "uid": "queue2",
        "name": "test-queue2",
        "priority": 0,
        "resourceShare": {
          "gpu": {
            "deserved": 10,
            "request": 100,
            "overQuotaWeight": 1
          }
        }
      }
    ]
}
)";
  try {
    (void)sim::io::parse_documents(text, "f.json");
    FAIL("expected an InputError");
  } catch (const sim::InputError& e) {
    CHECK(std::string(e.what()) ==
          "f.json:10:8: not valid YAML/JSON: the parser stops making progress here");
  }
}
