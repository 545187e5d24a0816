// Google Benchmark: `kaisim plan` end to end, as the user waits for it (scenario texts, replays
// on two threads, statistics, report). Counters split the time: `replay_s` is the wall time the
// search waited for replays, `search_s` everything else; `replays` how many ran.
//   build/bin/plan_bench --benchmark_filter=Runbook
//   build/bin/plan_bench --benchmark_filter=Trace      (minutes)

#include <benchmark/benchmark.h>

#include "sim/plan/plan_spec.hpp"
#include "sim/plan/planner.hpp"

namespace {

void run(benchmark::State& state, const char* plan_file) {
  sim::Diagnostics diagnostics;
  const sim::plan::PlanSpec spec =
      sim::plan::load_plan(std::string(KAISIM_SOURCE_DIR) + "/" + plan_file, diagnostics);
  sim::plan::PlanOptions options;
  options.jobs = 2;  // this project's machine has two cores
  sim::plan::PlanResult result;
  for (auto _ : state) {
    result = sim::plan::run_plan(spec, options, diagnostics);
    benchmark::DoNotOptimize(result.files);
  }
  state.counters["replays"] = static_cast<double>(result.replays);
  state.counters["replay_s"] = result.replay_seconds;
  state.counters["search_s"] = result.search_seconds;
  state.counters["met"] = result.targets_met ? 1 : 0;
}

void BM_PlanRunbookGpus(benchmark::State& state) {
  run(state, "scenarios/plans/runbook-gpus.yaml");
}
void BM_PlanRunbookQuotas(benchmark::State& state) {
  run(state, "scenarios/plans/runbook-quotas.yaml");
}
void BM_PlanRunbookHardware(benchmark::State& state) {
  run(state, "scenarios/plans/runbook-hardware.yaml");
}
void BM_PlanTraceGpus(benchmark::State& state) { run(state, "scenarios/plans/trace-gpus.yaml"); }

}  // namespace

BENCHMARK(BM_PlanRunbookGpus)->Unit(benchmark::kSecond)->Iterations(3)->UseRealTime();
BENCHMARK(BM_PlanRunbookQuotas)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();
BENCHMARK(BM_PlanRunbookHardware)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();
BENCHMARK(BM_PlanTraceGpus)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

BENCHMARK_MAIN();
