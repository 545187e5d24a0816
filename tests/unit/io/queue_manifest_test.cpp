// Queue v2 manifests: the runbook's create-queues.yaml loads as it is, with KAI's defaults.
#include "sim/io/queue_manifest.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

namespace {
std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
std::string error_of(const std::string& text) {
  sim::Diagnostics d;
  try {
    (void)sim::io::load_queue_manifests(text, "q.yaml", d);
  } catch (const sim::InputError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("the runbook's create-queues.yaml loads with CRD semantics", "[io][manifest][seed]") {
  sim::Diagnostics d;
  const std::string path = std::string(KAISIM_SOURCE_DIR) + "/scenarios/seed/create-queues.yaml";
  auto queues = sim::io::load_queue_manifests(read_file(path), path, d);
  CHECK(d.warnings.empty());
  REQUIRE(queues.size() == 4);
  CHECK(queues[0].name == "ml-org");
  CHECK(queues[0].parent.empty());
  CHECK(queues[0].priority == 100);  // omitted -> 100
  CHECK(queues[0].gpu.quota == 1);
  CHECK(queues[0].gpu.limit == 1);
  CHECK(queues[0].cpu.limit == 0);  // omitted block -> 0, not unlimited
  CHECK(queues[0].memory.quota == 0);
  for (std::size_t i = 1; i < 4; ++i) {
    CHECK(queues[i].parent == "ml-org");
    CHECK(queues[i].gpu.quota == 0.33);
    CHECK(queues[i].gpu.limit == 1);
    CHECK(queues[i].gpu.over_quota_weight == 1);
  }
  CHECK(queues[1].name == "team-nlp");
  CHECK(queues[3].name == "team-recommender");
  CHECK(queues[1].created < queues[2].created);  // no timestamps: list order
}

TEST_CASE("queue manifest fields: min runtimes, memory, display name", "[io][manifest]") {
  sim::Diagnostics d;
  auto q = sim::io::load_queue_manifests(R"(apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: research, creationTimestamp: "2026-01-01T00:00:00Z"}
spec:
  displayName: Research
  priority: 50
  preemptMinRuntime: 10m
  reclaimMinRuntime: 1h30m
  resources:
    memory: {quota: 4096, limit: -1}
    cpu: {quota: 2000}
)",
                                         "q.yaml", d);
  REQUIRE(q.size() == 1);
  CHECK(q[0].display_name == "Research");
  CHECK(q[0].priority == 50);
  CHECK(q[0].preempt_min_runtime_ms == 600000);
  CHECK(q[0].reclaim_min_runtime_ms == 5400000);
  CHECK(q[0].memory.quota == 4096);
  CHECK(q[0].memory.limit == -1);
  CHECK(q[0].memory.over_quota_weight == 0);
  CHECK(q[0].cpu.limit == 0);
  CHECK(q[0].created.unix_ns == 1767225600LL * 1000000000LL);
}

TEST_CASE("non-Queue documents are skipped with a warning", "[io][manifest]") {
  sim::Diagnostics d;
  auto q = sim::io::load_queue_manifests("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n",
                                         "m.yaml", d);
  CHECK(q.empty());
  REQUIRE(d.warnings.size() == 1);
  CHECK_THAT(d.warnings[0], Catch::Contains("kind \"Pod\" is not a Queue"));
}

TEST_CASE("bad queue manifests name the document and field", "[io][manifest][errors]") {
  const std::string head = "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: a}\n";
  CHECK(error_of(head + "spec:\n  resources:\n    gpu: {quota: -0.5}\n") ==
        "q.yaml:6:18: documents[0].spec.resources.gpu.quota: must be >= 0 or -1 (unlimited), got "
        "-0.5");
  CHECK(error_of(head + "spec:\n  parentQueue: org\n") ==
        "q.yaml:5:3: documents[0].spec: missing required field \"resources\" (KAI's queue webhook "
        "rejects it)");
  CHECK(error_of(head + "spec:\n  resources:\n    gpu: {limit: lots}\n") ==
        "q.yaml:6:18: documents[0].spec.resources.gpu.limit: expected a number, got \"lots\"");
  CHECK(error_of(head + "spec:\n  priority: high\n  resources: {}\n") ==
        "q.yaml:5:13: documents[0].spec.priority: expected a number, got \"high\"");
  CHECK(error_of(head + "spec:\n  reclaimMinRuntime: 5 minutes\n  resources: {}\n") ==
        "q.yaml:5:22: documents[0].spec.reclaimMinRuntime: not a duration such as \"10m\" or "
        "\"1h30m\": \"5 minutes\"");
  CHECK(
      error_of("apiVersion: scheduling.run.ai/v1\nkind: Queue\nmetadata: {name: a}\nspec: {}\n") ==
      "q.yaml:1:13: documents[0].apiVersion: expected \"scheduling.run.ai/v2\", got "
      "\"scheduling.run.ai/v1\"");
  CHECK(error_of("apiVersion: scheduling.run.ai/v2\nkind: Queue\nspec: {}\n") ==
        "q.yaml:1:1: documents[0]: missing required field \"metadata\"");
}
