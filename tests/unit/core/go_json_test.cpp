// Number and string formatting must match Go's encoding/json byte for byte.
#include "sim/core/go_json.hpp"

#include <catch2/catch.hpp>

using sim::go_json_number;
using sim::json_string;

TEST_CASE("numbers print as Go's encoding/json prints float64", "[io][json]") {
  CHECK(go_json_number(70) == "70");
  CHECK(go_json_number(0) == "0");
  CHECK(go_json_number(-1) == "-1");
  CHECK(go_json_number(0.33) == "0.33");
  CHECK(go_json_number(0.1 + 0.2) == "0.30000000000000004");
  CHECK(go_json_number(32.54999999999996) == "32.54999999999996");
  CHECK(go_json_number(100000) == "100000");
  CHECK(go_json_number(1e20) == "100000000000000000000");
  CHECK(go_json_number(1e21) == "1e+21");
  CHECK(go_json_number(123456789e20) == "1.23456789e+28");
  CHECK(go_json_number(0.000001) == "0.000001");
  CHECK(go_json_number(1e-7) == "1e-7");
  CHECK(go_json_number(2.5e-10) == "2.5e-10");
  CHECK(go_json_number(-3e-7) == "-3e-7");
}

TEST_CASE("strings are escaped as Go escapes them", "[io][json]") {
  CHECK(json_string("team-nlp") == "\"team-nlp\"");
  CHECK(json_string("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(json_string("<&>") == "\"\\u003c\\u0026\\u003e\"");
  CHECK(json_string("tab\there") == "\"tab\\there\"");
  CHECK(json_string(std::string("\x01", 1)) == "\"\\u0001\"");
  CHECK(json_string("\xe2\x80\xa8") == "\"\\u2028\"");
  CHECK(json_string("caf\xc3\xa9") == "\"caf\xc3\xa9\"");
}
