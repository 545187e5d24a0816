// Whole replays of the committed scenarios, end to end (parse, every cycle, metrics, outputs in
// memory; no files written):
//   BM_Replay/burst-and-reclaim      the runbook: 1 L40S, 7 min virtual, 421 cycles
//   BM_Replay/two-queue-oscillation  KAI's time-based example: 16 GPUs, 1024 cycles with usage
//   BM_Replay/three-teams-day        4 L40S, 2 h virtual, 7201 cycles, ~75 generated pods
//   BM_ReplayTrace/<node scale>      `kaisim gen trace` at a tenth of its size and below (pods
//   scale
//                                    with the nodes), replayed until drained
//   build/bin/replay_bench --benchmark_repetitions=3
// The full-size trace (1,523 nodes, 8,000 pods) takes minutes; its figure in the README comes
// from `kaisim gen trace --out t && /usr/bin/time -v kaisim replay t/scenario.yaml`.

#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "sim/api/replay.hpp"
#include "sim/api/trace_gen.hpp"

namespace {

void BM_Replay(benchmark::State& state, const std::string& scenario) {
  sim::api::ReplayOptions options;
  options.scenario_path = std::string(KAISIM_SOURCE_DIR) + "/scenarios/" + scenario;
  std::size_t cycles = 0;
  for (auto _ : state) {
    sim::Diagnostics diagnostics;
    const sim::api::ReplayResult result = sim::api::run_replay(options, diagnostics);
    cycles = result.cycles;
    benchmark::DoNotOptimize(result.outputs);
  }
  state.counters["cycles"] = static_cast<double>(cycles);
  state.counters["cycles/s"] =
      benchmark::Counter(static_cast<double>(cycles) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
}

void BM_ReplayTrace(benchmark::State& state) {
  const double scale = static_cast<double>(state.range(0)) / 100.0;
  sim::api::TraceOptions trace;
  trace.node_scale = scale;
  trace.pods = static_cast<int>(8000 * scale);
  const sim::api::GeneratedTrace generated = sim::api::generate_trace(trace);
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("kaisim-bench-trace-" + std::to_string(state.range(0)));
  std::filesystem::create_directories(dir);
  for (const auto& [name, text] : generated.files)
    std::ofstream(dir / name, std::ios::binary) << text;
  sim::api::ReplayOptions options;
  options.scenario_path = (dir / "scenario.yaml").string();
  std::size_t cycles = 0, reused = 0, fair_share_only = 0, updated = 0;
  for (auto _ : state) {
    sim::Diagnostics diagnostics;
    const sim::api::ReplayResult result = sim::api::run_replay(options, diagnostics);
    cycles = result.cycles;
    reused = result.cycles_reused;
    fair_share_only = result.cycles_fair_share_only;
    updated = result.cycles_updated;
    benchmark::DoNotOptimize(result.outputs);
  }
  std::filesystem::remove_all(dir);
  state.counters["nodes"] = static_cast<double>(generated.nodes);
  state.counters["pods"] = static_cast<double>(generated.pods);
  state.counters["cycles"] = static_cast<double>(cycles);
  state.counters["computed"] = static_cast<double>(cycles - reused);
  state.counters["fair_share_only"] = static_cast<double>(fair_share_only);
  state.counters["updated"] = static_cast<double>(updated);
}

}  // namespace

BENCHMARK(BM_ReplayTrace)->Arg(1)->Arg(5)->Arg(10)->Unit(benchmark::kSecond)->Iterations(1);

BENCHMARK_CAPTURE(BM_Replay, burst - and-reclaim, std::string("seed/burst-and-reclaim.yaml"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Replay, two - queue - oscillation,
                  std::string("kai-examples/two-queue-oscillation.yaml"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Replay, three - teams - day, std::string("examples/three-teams-day.yaml"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

BENCHMARK_MAIN();
