// Whole replays of the committed scenarios, end to end (parse, every cycle, metrics, outputs in
// memory; no files written):
//   BM_Replay/burst-and-reclaim      the runbook: 1 L40S, 7 min virtual, 421 cycles
//   BM_Replay/two-queue-oscillation  KAI's time-based example: 16 GPUs, 1024 cycles with usage
//   BM_Replay/three-teams-day        4 L40S, 2 h virtual, 7201 cycles, ~75 generated pods
//   build/bin/replay_bench --benchmark_repetitions=3

#include <benchmark/benchmark.h>

#include <string>

#include "sim/api/replay.hpp"

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
      benchmark::Counter(static_cast<double>(cycles) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK_CAPTURE(BM_Replay, burst-and-reclaim, std::string("seed/burst-and-reclaim.yaml"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Replay, two-queue-oscillation, std::string("kai-examples/two-queue-oscillation.yaml"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Replay, three-teams-day, std::string("examples/three-teams-day.yaml"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

BENCHMARK_MAIN();
