// The simulator request: fields, case-insensitive keys, and errors that name file, line and field.
#include "sim/io/simulate_request.hpp"

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>

#include "io/simulate_request_readers.hpp"

using sim::io::parse_simulate_request;

namespace {
sim::io::SimulateRequest parse(const std::string& text, sim::Diagnostics& d) {
  return parse_simulate_request(text, "req.json", d);
}

std::string error_of(const std::string& text) {
  sim::Diagnostics d;
  try {
    (void)parse(text, d);
  } catch (const sim::InputError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("simulate request reads every field", "[io][request]") {
  sim::Diagnostics d;
  auto r = parse(R"({"totalResource": {"GPU": 8, "CPU": 16000, "Memory": 64e9}, "kValue": 0.5,
    "queues": [{"uid": "q1", "name": "Q one", "parentQueue": "org", "priority": 3,
                "creationTimestamp": "2026-01-01T00:00:00Z",
                "resourceShare": {"gpu": {"deserved": 2, "maxAllowed": -1, "overQuotaWeight": 3,
                  "request": 5, "allocated": 1, "allocatedNotPreemptible": 0.5, "fairShare": 0,
                  "absoluteUsage": 0.25, "vacantAdjustedUsage": 0.1}}}]})",
                 d);
  CHECK(r.total[2] == 8);
  CHECK(r.total[0] == 16000);
  CHECK(r.total[1] == 64e9);
  CHECK(r.k_value == 0.5);
  REQUIRE(r.queues.size() == 1);
  const auto& q = r.queues[0];
  CHECK(q.uid == "q1");
  CHECK(q.parent == "org");
  CHECK(q.priority == 3);
  CHECK(q.created_ns.has_value());
  REQUIRE(q.shares[2].has_value());
  CHECK(q.shares[2]->deserved == 2);
  CHECK(q.shares[2]->max_allowed == -1);
  CHECK(q.shares[2]->absolute_usage == 0.25);
  CHECK_FALSE(q.shares[0].has_value());
  CHECK(d.warnings.empty());
}

TEST_CASE("struct keys match ignoring case, as Go's decoder does: totalResource keys do not",
          "[io][request]") {
  sim::Diagnostics d;
  auto r = parse(
      R"({"TotalResource": {"gpu": 4}, "Queues": [{"UID": "a", "ResourceShare": {"GPU": {"Deserved": 1}}}]})",
      d);
  CHECK(r.total[2] == 0);  // "gpu" is not "GPU" in a Go map
  REQUIRE(d.warnings.size() == 1);
  CHECK_THAT(d.warnings[0], Catch::Contains("TotalResource.gpu: unknown resource"));
  CHECK(r.queues[0].uid == "a");
  CHECK(r.queues[0].shares[2]->deserved == 1);
}

TEST_CASE("YAML is accepted too", "[io][request]") {
  sim::Diagnostics d;
  auto r = parse("totalResource: {GPU: 2}\nqueues:\n  - uid: a\n    priority: 7\n", d);
  CHECK(r.total[2] == 2);
  CHECK(r.queues[0].priority == 7);
}

TEST_CASE("unknown fields are warnings with their position", "[io][request]") {
  sim::Diagnostics d;
  (void)parse("queues:\n  - uid: a\n    colour: blue\n", d);
  REQUIRE(d.warnings.size() == 1);
  CHECK(d.warnings[0] == "req.json:3:5: queues[0].colour: unknown field, ignored");
}

TEST_CASE("bad input names file, line, column and field", "[io][request][errors]") {
  CHECK(error_of(R"({"queues": [{"uid": "a", "resourceShare": {"gpu": {"deserved": "2"}}}]})") ==
        "req.json:1:64: queues[0].resourceShare.gpu.deserved: expected a number, got string \"2\"");
  CHECK(error_of("queues:\n  - uid: a\n    resourceShare:\n      cpu:\n        maxAllowed: -2\n") ==
        "req.json:5:21: queues[0].resourceShare.cpu.maxAllowed: must be >= 0 or -1 (unlimited), "
        "got -2");
  CHECK(error_of("queues:\n  - uid: a\n    resourceShare: {memory: {request: -5}}\n") ==
        "req.json:3:39: queues[0].resourceShare.memory.request: must be >= 0, got -5");
  CHECK(error_of("queues:\n  - uid: a\n    priority: 1.5\n") ==
        "req.json:3:15: queues[0].priority: expected a whole number, got 1.5");
  CHECK(error_of("queues:\n  - name: nameless\n") ==
        "req.json:2:5: queues[0]: missing required field \"uid\"");
  CHECK(error_of("queues:\n  - uid: a\n    creationTimestamp: soon\n") ==
        "req.json:3:24: queues[0].creationTimestamp: not an RFC 3339 time such as "
        "2025-01-31T12:00:00Z: \"soon\"");
  CHECK(error_of("{\"totalResource\": {\"GPU\": 1e999}}") ==
        "req.json:1:27: totalResource.GPU: number 1e999 is out of range for a 64-bit float");
  CHECK(error_of("{\"totalResource\": {\"GPU\": .inf}}") ==
        "req.json:1:27: totalResource.GPU: not valid JSON: syntax error while parsing value - "
        "invalid literal; last read: "
        "'\"GPU\": .'");
  CHECK(error_of("{\"queues\": {}}") == "req.json:1:12: queues: expected a list, got an object");
  CHECK(error_of("[1, 2]") == "req.json:1:1: expected an object, got a list");
  CHECK(error_of("{\"queues\": [") ==
        "req.json:1:13: queues[0]: not valid JSON: syntax error while parsing value - unexpected "
        "end of input; expected "
        "'[', '{', or a literal");
  CHECK(error_of("") == "req.json: the document is empty");
  CHECK(error_of("a: 1\n---\nb: 2\n") == "req.json:3: expected a single document, found 2");
}

namespace {

// A double's bits (so -0 and 0 differ), or none.
std::optional<std::uint64_t> bits(const std::optional<double>& d) {
  if (!d) return std::nullopt;
  std::uint64_t b = 0;
  std::memcpy(&b, &*d, sizeof b);
  return b;
}

// Every field of two readings, compared; the position too, as later errors quote it.
void require_same(const sim::io::SimulateRequest& a, const sim::io::SimulateRequest& b) {
  CHECK(a.total == b.total);
  CHECK(a.k_value == b.k_value);
  REQUIRE(a.queues.size() == b.queues.size());
  for (std::size_t i = 0; i < a.queues.size(); ++i) {
    const auto& x = a.queues[i];
    const auto& y = b.queues[i];
    CHECK(x.uid == y.uid);
    CHECK(x.name == y.name);
    CHECK(x.parent == y.parent);
    CHECK(x.priority == y.priority);
    CHECK(x.created_ns == y.created_ns);
    CHECK(x.path == y.path);
    CHECK(x.where.file == y.where.file);
    CHECK(x.where.line == y.where.line);
    CHECK(x.where.column == y.where.column);
    for (std::size_t r = 0; r < 3; ++r) {
      REQUIRE(x.shares[r].has_value() == y.shares[r].has_value());
      if (!x.shares[r]) continue;
      const auto& s = *x.shares[r];
      const auto& t = *y.shares[r];
      CHECK(bits(s.deserved) == bits(t.deserved));
      CHECK(bits(s.fair_share) == bits(t.fair_share));
      CHECK(bits(s.max_allowed) == bits(t.max_allowed));
      CHECK(bits(s.over_quota_weight) == bits(t.over_quota_weight));
      CHECK(bits(s.allocated) == bits(t.allocated));
      CHECK(bits(s.allocated_not_preemptible) == bits(t.allocated_not_preemptible));
      CHECK(bits(s.request) == bits(t.request));
      CHECK(bits(s.absolute_usage) == bits(t.absolute_usage));
    }
  }
}

}  // namespace

TEST_CASE("the plain reader reads a well-formed request exactly as the field reader does",
          "[io][request]") {
  // Compact and indented, escapes and multi-byte names, every field, nulls, -1 and -0.
  const std::string request = GENERATE(
      std::string(
          R"({"totalResource":{"GPU":8,"CPU":16000,"Memory":64e9},"kValue":0.5,"queues":[)"
          R"({"uid":"q1","name":"Q \"one\" \u00e9","parentQueue":"org","priority":-3,"childQueues":["x"],)"
          R"("creationTimestamp":"2026-01-01T00:00:00.5+02:00","resourceShare":{"gpu":{"deserved":2,)"
          R"("maxAllowed":-1,"overQuotaWeight":3,"request":5,"allocated":1,"allocatedNotPreemptible":0.5,)"
          R"("fairShare":0,"absoluteUsage":0.25,"vacantAdjustedUsage":0.1},"cpu":null}},)"
          R"({"uid":"org","name":null,"parentQueue":null,"priority":null,"resourceShare":null}]})"),
      std::string("{\n  \"queues\": [\n    {\"uid\": \"t\u00e9am\", \"name\": \"\u00e9\u00e9\", "
                  "\"resourceShare\": {\n"
                  "      \"memory\": {\"deserved\": -0, \"request\": 1.5E+3}}},\n\t{\"uid\": "
                  "\"b\",\r\n \"parentQueue\": \"t\u00e9am\"}\n  ]\n}\n"),
      std::string(R"({"queues": []})"), std::string(R"({})"),
      std::string(R"({"totalResource": null, "queues": null, "kValue": null})"));
  sim::Diagnostics plain_notes, field_notes;
  const std::optional<sim::io::SimulateRequest> plain =
      sim::io::read_plain_simulate_request(request, "req.json");
  REQUIRE(plain.has_value());
  require_same(*plain, sim::io::read_simulate_request_fields(request, "req.json", field_notes));
  CHECK(field_notes.warnings.empty());
  std::string in_place = request;  // read where it is, as read_input_file's texts are
  in_place.reserve(request.size() + sim::io::kReadPadding);
  const std::optional<sim::io::SimulateRequest> read_in_place =
      sim::io::read_plain_simulate_request(in_place, "req.json", true);
  REQUIRE(read_in_place.has_value());
  require_same(*read_in_place, *plain);
}

TEST_CASE("the plain reader leaves to the field reader whatever that one warns about or refuses",
          "[io][request]") {
  const std::string request = GENERATE(
      std::string(R"({"queues": [{"uid": "a", "colour": "blue"}]})"),  // unknown field: a warning
      std::string(R"({"queues": [{"uid": "a", "uid": "b"}]})"),        // a key twice: a warning
      std::string(R"({"totalResource": {"gpu": 1}})"),                 // an unknown resource
      std::string(R"({"kValue": 01})"), std::string(R"({"kValue": 1.})"),
      std::string(R"({"kValue": -})"), std::string(R"({"kValue": 1x})"),
      std::string(R"({"kValue": 1e999})"), std::string(R"({"kValue": 1e-999})"),
      std::string(R"({"kValue": "1"})"),
      std::string(R"({"queues": [{"uid": "a", "priority": 1.0}]})"),
      std::string(R"({"queues": [{"uid": "a", "priority": 3000000000}]})"),
      std::string(R"({"queues": [{"uid": ""}]})"), std::string(R"({"queues": [{"uid": null}]})"),
      std::string(R"({"queues": [{"name": "a"}]})"), std::string(R"({"queues": [{"uid": 1}]})"),
      std::string(R"({"queues": [{"uid": "a", "creationTimestamp": "2026-02-30T00:00:00Z"}]})"),
      std::string(R"({"queues": [{"uid": "a", "resourceShare": {"gpu": {"deserved": -2}}}]})"),
      std::string(R"({"queues": [{"uid": "a", "resourceShare": {"gpu": {"request": -1}}}]})"),
      std::string(R"({"queues": [{"uid": "a", "childQueues": [1]}]})"),
      std::string(R"({"queues": {}})"), std::string(R"({"queues": [1]})"), std::string(R"([])"),
      std::string(R"({"queues": [],})"), std::string(R"({"queues": []} {})"),
      std::string("{\"queues\": [{\"uid\": \"a\x01\"}]}"),
      std::string("{\"queues\": [{\"uid\": \"\xC3\"}]}"),
      // A null's first byte is not enough: each of these is invalid JSON.
      std::string(R"({"kValue": nope})"), std::string(R"({"queues": nah})"),
      std::string(R"({"kValue": n})"), std::string(R"({"kValue": nullx})"),
      std::string(R"({"queues": [{"uid": "a", "name": nil}]})"),
      std::string(R"({"queues": [{"uid": "a", "resourceShare": {"gpu": {"request": nul}}}]})"));
  CAPTURE(request);
  CHECK_FALSE(sim::io::read_plain_simulate_request(request, "req.json").has_value());
  // And each is one the field reader warns about or refuses.
  sim::Diagnostics notes;
  bool refused = false;
  try {
    (void)sim::io::read_simulate_request_fields(request, "req.json", notes);
  } catch (const sim::InputError&) {
    refused = true;
  }
  CHECK((refused || !notes.warnings.empty()));
}

TEST_CASE("the plain reader leaves to the field reader what Go reads but it does not",
          "[io][request]") {
  // Keys in another case and escaped keys (Go's decoder matches both), a byte order mark: the
  // field reader reads these without a word, the plain reader gives up.
  const std::string request =
      GENERATE(std::string(R"({"Queues": [{"UID": "a"}]})"),
               std::string(R"({"queues": [{"uid": "a", "resourceShare": {"GPU": {}}}]})"),
               std::string(R"({"queues": [{"u\u0069d": "a"}]})"), std::string("\xEF\xBB\xBF{}"));
  CAPTURE(request);
  CHECK_FALSE(sim::io::read_plain_simulate_request(request, "req.json").has_value());
  sim::Diagnostics notes;
  CHECK_NOTHROW(sim::io::read_simulate_request_fields(request, "req.json", notes));
  CHECK(notes.warnings.empty());
}
