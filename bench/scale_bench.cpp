// Production scale: clusters from `kaisim gen cluster` (docs/cluster-gen.md) at 100, 1,000, 4,000
// and 10,000 nodes with 35 pods per node (5% of them pending, a twentieth: 7,000 at 4,000 nodes):
//   BM_Ingest/N          KAI's snapshot.json of that cluster, from a file to the cluster state
//                        (read_input_file, load_snapshot) as `kaisim cycle` reads it; counters MB/s
//                        of JSON, bytes_per_pod. It reads a large snapshot on two threads, so its
//                        time is wall time and its CPU time the whole process's (both threads)
//   BM_Cycle/N           one full cycle (allocate, consolidation, reclaim, preempt, stale gangs) on
//                        a copy of that state
//   BM_CyclePending/N    the same cluster with 10 pending pods per node (40,000 at 4,000 nodes)
//   BM_CycleFewPending/N the same cluster with a two-hundredth of its pods pending (700 at 4,000
//                        nodes): a quieter cluster, with more free GPUs for the victim search to
//                        offer
//   BM_CycleNonePending/N the same cluster with every pod running: what a cycle costs when no
//                        job waits (snapshot, fair share, the actions finding nothing to do)
//   BM_ReplayDay/N       `kaisim replay` of the generated scenario: that state, then a day of
//                        arrivals at one cycle a second (86,400 cycles)
// Counters: pods, decisions (binds, pipelines, evictions of the cycle), bytes_per_pod (heap of
// one copy of the state over its pods, bench/state_memory.hpp). The clusters are generated once per
// size and kept for the process.
//   build/bin/scale_bench --benchmark_filter='BM_Ingest|BM_Cycle'

#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>

#include "sim/api/cluster_gen.hpp"
#include "sim/api/replay.hpp"
#include "sim/io/input_limits.hpp"
#include "sim/io/snapshot.hpp"
#include "sim/sched/cycle.hpp"
#include "state_memory.hpp"

namespace {

struct Cluster {
  sim::api::GeneratedCluster files;
  sim::model::ClusterState state;
};

// Generated and read once per (nodes, pending pods; -1: the generator's twentieth of the pods).
const Cluster& cluster(int nodes, int pending_pods = -1) {
  static std::map<std::pair<int, int>, std::unique_ptr<Cluster>> cache;
  auto& slot = cache[{nodes, pending_pods}];
  if (!slot) {
    sim::api::ClusterGenOptions options;
    options.nodes = nodes;
    options.pending_pods = pending_pods;
    slot = std::make_unique<Cluster>();
    slot->files = sim::api::generate_cluster(options);
    sim::Diagnostics d;
    slot->state =
        sim::io::load_snapshot({{slot->files.files.at("snapshot.json"), "snapshot.json"}}, {}, d);
  }
  return *slot;
}

void BM_Ingest(benchmark::State& state) {
  const Cluster& c = cluster(static_cast<int>(state.range(0)));
  const std::string& json = c.files.files.at("snapshot.json");
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() /
      ("kaisim-bench-snapshot-" + std::to_string(state.range(0)) + ".json");
  std::ofstream(file, std::ios::binary) << json;
  // The 4,000-node snapshot is past the default 64 MiB limit: `kaisim --max-input-mb 1024 cycle`.
  sim::io::InputLimits limits = sim::io::input_limits();
  limits.max_input_bytes = std::size_t{1} << 30;
  sim::io::set_input_limits(limits);
  for (auto _ : state) {
    // As `kaisim cycle` reads it: the file's text (its buffer padded for simdjson), then the state.
    std::vector<sim::io::SnapshotSource> sources;
    sources.push_back({sim::io::read_input_file(file.string()), "snapshot.json"});
    sim::Diagnostics d;
    sim::model::ClusterState s = sim::io::load_snapshot(sources, {}, d);
    benchmark::DoNotOptimize(s.tasks.size());
  }
  std::filesystem::remove(file);
  state.counters["pods"] = static_cast<double>(c.state.tasks.size());
  state.counters["bytes_per_pod"] = bench::bytes_per_pod(c.state);
  state.counters["MB/s"] = benchmark::Counter(
      static_cast<double>(json.size()) * static_cast<double>(state.iterations()) / 1e6,
      benchmark::Counter::kIsRate);
}

void run_cycle(benchmark::State& state, const Cluster& c) {
  std::size_t decisions = 0;
  for (auto _ : state) {
    state.PauseTiming();
    sim::model::ClusterState copy = c.state;
    state.ResumeTiming();
    sim::sched::Session ssn = sim::sched::run_cycle(copy);
    decisions = ssn.binds.size() + ssn.pipelines.size() + ssn.evictions.size();
    benchmark::DoNotOptimize(decisions);
  }
  state.counters["pods"] = static_cast<double>(c.state.tasks.size());
  state.counters["decisions"] = static_cast<double>(decisions);
  state.counters["bytes_per_pod"] = bench::bytes_per_pod(c.state);
}

void BM_Cycle(benchmark::State& state) {
  run_cycle(state, cluster(static_cast<int>(state.range(0))));
}
void BM_CyclePending(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  run_cycle(state, cluster(nodes, nodes * 10));
}
void BM_CycleFewPending(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  run_cycle(state, cluster(nodes, nodes * sim::api::kDefaultPodsPerNode / 200));
}

void BM_CycleNonePending(benchmark::State& state) {
  run_cycle(state, cluster(static_cast<int>(state.range(0)), 0));
}

void BM_ReplayDay(benchmark::State& state) {
  const Cluster& c = cluster(static_cast<int>(state.range(0)));
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("kaisim-bench-cluster-" + std::to_string(state.range(0)));
  std::filesystem::create_directories(dir);
  for (const auto& [name, text] : c.files.files)
    std::ofstream(dir / name, std::ios::binary) << text;
  sim::api::ReplayOptions options;
  options.scenario_path = (dir / "scenario.yaml").string();
  std::size_t cycles = 0, reused = 0;
  for (auto _ : state) {
    sim::Diagnostics diagnostics;
    const sim::api::ReplayResult result = sim::api::run_replay(options, diagnostics);
    cycles = result.cycles;
    reused = result.cycles_reused;
    benchmark::DoNotOptimize(result.outputs);
  }
  std::filesystem::remove_all(dir);
  state.counters["pods"] = static_cast<double>(c.state.tasks.size());
  state.counters["cycles"] = static_cast<double>(cycles);
  state.counters["computed"] = static_cast<double>(cycles - reused);
}

// The sizes of every ingest and cycle benchmark: nodes, at 35 pods per node.
void sizes(benchmark::internal::Benchmark* b, int largest) {
  for (int nodes : {100, 1000, 4000, 10000}) {
    if (nodes <= largest) b->Arg(nodes);
  }
  b->Unit(benchmark::kMillisecond)->MinTime(1);
}
void up_to_10000(benchmark::internal::Benchmark* b) { sizes(b, 10000); }
// The quieter cluster is not run at 10,000 nodes: its cycle at 4,000 already takes minutes.
void up_to_4000(benchmark::internal::Benchmark* b) { sizes(b, 4000); }

}  // namespace

BENCHMARK(BM_Ingest)->Apply(up_to_10000)->UseRealTime()->MeasureProcessCPUTime();
BENCHMARK(BM_Cycle)->Apply(up_to_10000);
BENCHMARK(BM_CyclePending)->Apply(up_to_10000);
BENCHMARK(BM_CycleFewPending)->Apply(up_to_4000);
BENCHMARK(BM_CycleNonePending)->Apply(up_to_10000);
BENCHMARK(BM_ReplayDay)->Arg(100)->Arg(1000)->Unit(benchmark::kSecond)->Iterations(1);

BENCHMARK_MAIN();
