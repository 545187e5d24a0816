// The replay loop end to end through the api: reusing an unchanged cycle's outcome, recomputing
// only the fair share when nothing is pending, or bringing the last cycle's state up to date
// instead of a new snapshot changes no output byte; and endWhenDrained stops the clock once the
// workload is gone.

#include "sim/api/replay.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>

#include "sim/api/trace_gen.hpp"

namespace {

sim::api::ReplayResult replay(const std::string& relative, bool reuse) {
  sim::Diagnostics diagnostics;
  sim::api::ReplayOptions options;
  options.scenario_path = std::string(KAISIM_SOURCE_DIR) + "/" + relative;
  options.reuse_unchanged_cycles = reuse;
  return sim::api::run_replay(options, diagnostics);
}

}  // namespace

TEST_CASE("reusing the outcome of unchanged cycles gives the same outputs as computing them") {
  for (const char* scenario :
       {"scenarios/examples/three-teams-day.yaml", "scenarios/seed/burst-and-reclaim.yaml"}) {
    const sim::api::ReplayResult computed = replay(scenario, false);
    const sim::api::ReplayResult reused = replay(scenario, true);
    CAPTURE(scenario);
    CHECK(computed.cycles_reused == 0);
    CHECK(reused.cycles_reused > computed.cycles / 2);  // most cycles see no change
    CHECK(reused.cycles_fair_share_only > 0);  // after the binds of a step, nothing is pending
    CHECK(reused.cycles == computed.cycles);
    CHECK(reused.outputs == computed.outputs);
  }
}

TEST_CASE("fair-share-only cycles and cycles on an updated state change no output byte") {
  // A small generated trace: pods arrive, bind at once, run and complete as bare pods.
  sim::api::TraceOptions trace;
  trace.pods = 300;
  trace.node_scale = 0.03;
  trace.arrival_hours = 0.5;
  const sim::api::GeneratedTrace generated = sim::api::generate_trace(trace);
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / "kaisim-replay-test-trace";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "pods.csv", std::ios::binary) << generated.files.at("pods.csv");
  // A cycle every 30 s for 8 h: computing every cycle stays quick in sanitizer builds.
  std::string scenario = generated.files.at("scenario.yaml");
  scenario =
      std::regex_replace(scenario, std::regex("\nschedulePeriod: 1s\n"), "\nschedulePeriod: 30s\n");
  scenario = std::regex_replace(scenario, std::regex("\nduration: [0-9]+h\n"), "\nduration: 8h\n");
  REQUIRE(scenario.find("schedulePeriod: 30s") != std::string::npos);
  REQUIRE(scenario.find("duration: 8h") != std::string::npos);
  auto run = [&](bool reuse) {
    sim::Diagnostics diagnostics;
    sim::api::ReplayOptions options;
    options.scenario_text = scenario;
    options.scenario_path = "scenario.yaml";
    options.base_dir = dir.string();
    options.reuse_unchanged_cycles = reuse;
    return sim::api::run_replay(options, diagnostics);
  };
  const sim::api::ReplayResult computed = run(false);
  const sim::api::ReplayResult shortcut = run(true);
  std::filesystem::remove_all(dir);
  CHECK(computed.cycles_fair_share_only == 0);
  CHECK(computed.cycles_updated == 0);
  CHECK(shortcut.cycles_fair_share_only > (computed.cycles - shortcut.cycles_reused) / 10);
  CHECK(shortcut.cycles_updated > 0);  // pods arrived while nothing was pending
  CHECK(shortcut.cycles == computed.cycles);
  CHECK(shortcut.outputs == computed.outputs);
  CHECK(computed.outputs.at("events.jsonl").find("\"type\":\"complete\"") !=
        std::string::npos);  // pods finished too
}

TEST_CASE("usage history makes every cycle count: nothing is reused") {
  const sim::api::ReplayResult r =
      replay("scenarios/kai-examples/two-queue-oscillation.yaml", true);
  CHECK(r.cycles > 1000);
  CHECK(r.cycles_reused == 0);
}

TEST_CASE("endWhenDrained ends the replay at the first cycle with no pod left") {
  sim::Diagnostics diagnostics;
  sim::api::ReplayOptions options;
  options.scenario_path = "drained.yaml";
  options.scenario_text = R"(schema_version: 1
duration: 1h
endWhenDrained: true
cluster: {nodePools: [{name: n, gpusPerNode: 1, gpuModel: L40S}]}
manifests:
  - {apiVersion: scheduling.run.ai/v2, kind: Queue, metadata: {name: q}, spec: {resources: {gpu: {quota: 1, limit: 1, overQuotaWeight: 1}}}}
generators:
  - {name: p, queue: q, arrivalsPerHour: 60, maxJobs: 3, end: 10m, sizes: [{gpus: 1}], runtime: {fixed: 2m}}
)";
  const sim::api::ReplayResult r = sim::api::run_replay(options, diagnostics);
  // Three 2-minute pods on one GPU, arriving within the first minutes: done long before 1 h.
  CHECK(r.cycles > 6 * 60);
  CHECK(r.cycles < 30 * 60);
  CHECK(r.outputs.at("summary.json").find("\"duration_s\": 3600") == std::string::npos);
}

TEST_CASE("endWhenDrained also ends when only pods that can never be placed remain") {
  sim::Diagnostics diagnostics;
  sim::api::ReplayOptions options;
  options.scenario_path = "stuck.yaml";
  options.scenario_text = R"(schema_version: 1
duration: 10h
endWhenDrained: true
cluster: {nodePools: [{name: n, gpusPerNode: 1, gpuModel: L40S}]}
manifests:
  - {apiVersion: scheduling.run.ai/v2, kind: Queue, metadata: {name: q}, spec: {resources: {gpu: {quota: 1, limit: 1, overQuotaWeight: 1}}}}
generators:
  - {name: small, queue: q, arrivalsPerHour: 60, maxJobs: 1, sizes: [{gpus: 1}], runtime: {fixed: 2m}}
  - {name: huge, queue: q, arrivalsPerHour: 60, maxJobs: 1, sizes: [{gpus: 8}], runtime: {fixed: 2m}}
)";
  const sim::api::ReplayResult r = sim::api::run_replay(options, diagnostics);
  // The 8-GPU pod never fits the 1-GPU node: the replay stops once the small pod is done.
  CHECK(r.cycles < 30 * 60);
  CHECK(r.outputs.at("summary.json").find("\"duration_s\": 36000") == std::string::npos);
  CHECK(r.outputs.at("events.jsonl").find("\"type\":\"complete\"") != std::string::npos);
  options.reuse_unchanged_cycles = false;  // the same end when every cycle is computed
  const sim::api::ReplayResult computed = sim::api::run_replay(options, diagnostics);
  CHECK(computed.cycles == r.cycles);
  CHECK(computed.outputs == r.outputs);
}

TEST_CASE(
    "a NotReady node's pending taint eviction ends with its pod: drained the same with or without "
    "reuse") {
  sim::Diagnostics diagnostics;
  sim::api::ReplayOptions options;
  options.scenario_path = "taint.yaml";
  options.scenario_text = R"(schema_version: 1
duration: 2h
endWhenDrained: true
manifests:
  - {apiVersion: scheduling.run.ai/v2, kind: Queue, metadata: {name: q}, spec: {resources: {gpu: {quota: 4, limit: -1, overQuotaWeight: 1}}}}
  - {apiVersion: v1, kind: Node, metadata: {name: a}, status: {allocatable: {cpu: "8", pods: "110", nvidia.com/gpu: "2"}}}
steps:
  - at: 0s
    apply:
      - {apiVersion: v1, kind: Pod, metadata: {name: p, labels: {kai.scheduler/queue: q}}, spec: {schedulerName: kai-scheduler, containers: [{name: c, resources: {limits: {nvidia.com/gpu: "1"}}}]}}
      - {apiVersion: v1, kind: Pod, metadata: {name: huge, labels: {kai.scheduler/queue: q}}, spec: {schedulerName: kai-scheduler, containers: [{name: c, resources: {limits: {nvidia.com/gpu: "100"}}}]}}
  - at: 100s
    apply: [{apiVersion: v1, kind: Node, metadata: {name: a}, status: {allocatable: {cpu: "8", pods: "110", nvidia.com/gpu: "2"}, conditions: [{type: Ready, status: "False"}]}}]
  - at: 110s
    delete: [{kind: Pod, namespace: default, name: p}]
)";
  const sim::api::ReplayResult reused = sim::api::run_replay(options, diagnostics);
  options.reuse_unchanged_cycles = false;
  const sim::api::ReplayResult computed = sim::api::run_replay(options, diagnostics);
  // p is deleted at 110 s and gone after its 30 s grace; its 300 s toleration timer goes with it.
  CHECK(reused.cycles == 141);
  CHECK(computed.cycles == reused.cycles);
  CHECK(computed.outputs == reused.outputs);
  CHECK(reused.outputs.at("events.jsonl").find("\"type\":\"lost\"") == std::string::npos);
}
