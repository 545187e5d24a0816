// One KAI scheduling cycle at scale, in the shapes of KAI's own Go benchmarks
// (pkg/scheduler/actions/benchmark_test.go, integration_tests/reclaim/reclaim_benchmark_test.go):
//   BM_Allocate/N/J      N nodes x 8 GPUs, J pending one-GPU jobs over 4 queues in 2 departments
//   BM_FullCycle/N/J     the same cluster through all five actions
//   BM_FullCycleMixed/N/J  all five actions on KAI's mixed shape: every other job Running on node
//                          j % N (createBenchmarkTopologyWithMixedJobs), the others pending
//   BM_ReclaimLargeJobs/N  N nodes full of one-GPU jobs of a queue without quota; a job of N/10
//                          eight-GPU pods in a queue that deserves everything reclaims
//   BM_ReclaimLargeJobsDense/N  the same with 27 one-CPU pods of that queue beside the GPU pods
//                          on every node: 35 pods per node, as on a production cluster
//   BM_AllocateDra/N/J   N nodes publishing 8 GPUs each in a ResourceSlice, half of them held by
//                        running pods' claims; J pending pods, each with a claim for one GPU
// The snapshot is parsed once; each iteration copies the state and runs the cycle on the copy.
// Counter decisions: binds, pipelines and evictions of the cycle, to show it did the work.
// Counter bytes_per_pod: heap taken by one copy of the cluster state (nodes, pods, jobs, queues)
// divided by its pods, measured with the allocator's statistics (bench/state_memory.hpp).
//   build/bin/cycle_bench --benchmark_repetitions=3

#include <benchmark/benchmark.h>

#include <algorithm>
#include <sstream>

#include "sim/io/snapshot.hpp"
#include "sim/sched/actions/actions.hpp"
#include "sim/sched/cycle.hpp"
#include "state_memory.hpp"

namespace {

std::string node_yaml(const std::string& name) {
  return "apiVersion: v1\nkind: Node\nmetadata: {name: " + name +
         ", labels: {nvidia.com/gpu.count: \"8\"}}\nstatus: {allocatable: {cpu: \"64\", memory: "
         "512Gi, pods: \"110\", "
         "nvidia.com/gpu: \"8\"}}\n---\n";
}

std::string queue_yaml(const std::string& name, const std::string& parent, double gpus,
                       double weight) {
  std::ostringstream s;
  s << "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: " << name << "}\nspec: {"
    << (parent.empty() ? "" : "parentQueue: " + parent + ", ")
    << "resources: {gpu: {quota: " << gpus << ", limit: -1, overQuotaWeight: " << weight
    << "}, cpu: {quota: -1, limit: -1, overQuotaWeight: 1}, memory: {quota: -1, limit: -1, "
       "overQuotaWeight: 1}}}\n---\n";
  return s.str();
}

std::string pod_yaml(const std::string& name, const std::string& queue, int gpus,
                     const std::string& node, const std::string& group = "") {
  std::ostringstream s;
  s << "apiVersion: v1\nkind: Pod\nmetadata: {name: " << name
    << ", namespace: bench, labels: {kai.scheduler/queue: " << queue << "}";
  if (!group.empty()) s << ", annotations: {pod-group-name: " << group << "}";
  s << "}\nspec: {schedulerName: kai-scheduler, priorityClassName: train, "
    << (node.empty() ? "" : "nodeName: " + node + ", ")
    << "containers: [{name: c, resources: {requests: {cpu: \"1\", "
    << "memory: 1G, nvidia.com/gpu: \"" << gpus
    << "\"}}}]}\nstatus: {phase: " << (node.empty() ? "Pending" : "Running") << "}\n---\n";
  return s.str();
}

sim::model::ClusterState load(const std::string& text) {
  sim::Diagnostics d;
  return sim::io::load_snapshot({{text, "bench.yaml"}}, {}, d);
}

sim::model::ClusterState pending_cluster(int nodes, int jobs) {
  std::string text;
  for (int i = 0; i < nodes; ++i) text += node_yaml("node-" + std::to_string(i));
  const double total = nodes * 8.0;
  text += queue_yaml("dept-a", "", total / 2, total / 2) +
          queue_yaml("dept-b", "", total / 2, total / 2);
  for (int q = 0; q < 4; ++q)
    text += queue_yaml("queue-" + std::to_string(q), q < 2 ? "dept-a" : "dept-b", total / 4, 1);
  for (int j = 0; j < jobs; ++j)
    text += pod_yaml("job-" + std::to_string(j), "queue-" + std::to_string(j % 4), 1, "");
  return load(text);
}

sim::model::ClusterState mixed_cluster(int nodes, int jobs) {
  std::string text;
  for (int i = 0; i < nodes; ++i) text += node_yaml("node-" + std::to_string(i));
  const double total = nodes * 8.0;
  text += queue_yaml("dept-a", "", total / 2, total / 2) +
          queue_yaml("dept-b", "", total / 2, total / 2);
  for (int q = 0; q < 4; ++q)
    text += queue_yaml("queue-" + std::to_string(q), q < 2 ? "dept-a" : "dept-b", total / 4, 1);
  for (int j = 0; j < jobs; ++j) {
    const std::string node = j % 2 == 0 ? "node-" + std::to_string(j % nodes) : "";
    text += pod_yaml("job-" + std::to_string(j), "queue-" + std::to_string(j % 4), 1, node);
  }
  return load(text);
}

// `cpu_pods_per_node` one-CPU pods of queue-0 run beside the GPU pods on every node (27 make the
// 35 pods per node of a production cluster); they hold no GPU, so the large job cannot use them.
sim::model::ClusterState reclaim_cluster(int nodes, int cpu_pods_per_node = 0) {
  std::string text;
  for (int i = 0; i < nodes; ++i) text += node_yaml("node" + std::to_string(i));
  text += queue_yaml("queue-0", "", 0, 0) + queue_yaml("queue-1", "", nodes * 8.0, 0);
  for (int j = 0; j < nodes * 8; ++j) {
    text += pod_yaml("running-job-" + std::to_string(j), "queue-0", 1,
                     "node" + std::to_string(j % nodes));
  }
  for (int j = 0; j < nodes * cpu_pods_per_node; ++j) {
    text +=
        pod_yaml("cpu-job-" + std::to_string(j), "queue-0", 0, "node" + std::to_string(j % nodes));
  }
  const int large = std::max(1, nodes / 10);
  text +=
      "apiVersion: scheduling.run.ai/v2alpha2\nkind: PodGroup\nmetadata: {name: very-large-job, "
      "namespace: bench}\n"
      "spec: {queue: queue-1, minMember: " +
      std::to_string(large) + ", priorityClassName: train}\n---\n";
  for (int t = 0; t < large; ++t) {
    text += pod_yaml("very-large-job-" + std::to_string(t), "queue-1", 8, "", "very-large-job");
  }
  return load(text);
}

// The same shapes with GPUs from DRA: a DeviceClass, a ResourceSlice per node, one claim per pod.
sim::model::ClusterState dra_cluster(int nodes, int jobs) {
  std::string text =
      "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu.nvidia.com}\n"
      "spec: {selectors: [{cel: {expression: \"device.driver == 'gpu.nvidia.com'\"}}]}\n---\n";
  for (int i = 0; i < nodes; ++i) {
    const std::string node = "node-" + std::to_string(i);
    text += "apiVersion: v1\nkind: Node\nmetadata: {name: " + node +
            "}\nstatus: {allocatable: {cpu: \"64\", memory: 512Gi, pods: \"110\"}}\n---\n"
            "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: " +
            node + "-gpus}\nspec: {driver: gpu.nvidia.com, pool: {name: " + node +
            ", generation: 1, resourceSliceCount: 1}, "
            "nodeName: " +
            node + ", devices: [";
    for (int d = 0; d < 8; ++d)
      text += std::string(d ? ", " : "") + "{name: gpu-" + std::to_string(d) + "}";
    text += "]}\n---\n";
  }
  const double total = nodes * 8.0;
  text += queue_yaml("dept-a", "", total / 2, total / 2) +
          queue_yaml("dept-b", "", total / 2, total / 2);
  for (int q = 0; q < 4; ++q)
    text += queue_yaml("queue-" + std::to_string(q), q < 2 ? "dept-a" : "dept-b", total / 4, 1);
  auto claim_pod = [&](const std::string& name, const std::string& queue, const std::string& node,
                       int device) {
    text += "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: " + name +
            "-gpu, namespace: bench, labels: {kai.scheduler/queue: " + queue +
            "}}\nspec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: "
            "gpu.nvidia.com, count: 1}}]}}\n";
    if (!node.empty()) {
      text += "status: {allocation: {devices: {results: [{driver: gpu.nvidia.com, pool: " + node +
              ", device: gpu-" + std::to_string(device) +
              "}]}}, reservedFor: [{resource: pods, name: " + name + ", uid: " + name + "}]}\n";
    }
    text += "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
            ", namespace: bench, uid: " + name + ", labels: {kai.scheduler/queue: " + queue +
            "}}\nspec: {schedulerName: kai-scheduler, priorityClassName: train, " +
            (node.empty() ? "" : "nodeName: " + node + ", ") +
            "resourceClaims: [{name: gpu, resourceClaimName: " + name +
            "-gpu}], containers: [{name: c, resources: {claims: [{name: gpu}], requests: {cpu: "
            "\"1\", memory: 1G}}}]}\n"
            "status: {phase: " +
            (node.empty() ? "Pending" : "Running") + "}\n---\n";
  };
  for (int i = 0; i < nodes * 4; ++i) {
    claim_pod("running-" + std::to_string(i), "queue-" + std::to_string(i % 4),
              "node-" + std::to_string(i / 4), i % 4);
  }
  for (int j = 0; j < jobs; ++j)
    claim_pod("job-" + std::to_string(j), "queue-" + std::to_string(j % 4), "", 0);
  return load(text);
}

void run(benchmark::State& state, const sim::model::ClusterState& initial,
         const std::string& only_action) {
  std::size_t decisions = 0;
  for (auto _ : state) {
    state.PauseTiming();
    sim::model::ClusterState copy = initial;
    if (!only_action.empty()) copy.config.actions = {only_action};
    state.ResumeTiming();
    sim::sched::Session ssn = sim::sched::run_cycle(copy);
    decisions = ssn.binds.size() + ssn.pipelines.size() + ssn.evictions.size();
    benchmark::DoNotOptimize(decisions);
  }
  state.counters["pods"] = static_cast<double>(initial.tasks.size());
  state.counters["decisions"] =
      static_cast<double>(decisions);  // binds, pipelines and evictions of one cycle
  state.counters["bytes_per_pod"] = bench::bytes_per_pod(initial);
}

void BM_Allocate(benchmark::State& state) {
  run(state, pending_cluster(static_cast<int>(state.range(0)), static_cast<int>(state.range(1))),
      "allocate");
}
BENCHMARK(BM_Allocate)
    ->Args({10, 50})
    ->Args({50, 200})
    ->Args({100, 500})
    ->Args({1000, 5000})
    ->Args({4000, 40000})
    ->Unit(benchmark::kMillisecond);

void BM_FullCycle(benchmark::State& state) {
  run(state, pending_cluster(static_cast<int>(state.range(0)), static_cast<int>(state.range(1))),
      "");
}
BENCHMARK(BM_FullCycle)->Args({10, 50})->Args({100, 500})->Unit(benchmark::kMillisecond);

void BM_FullCycleMixed(benchmark::State& state) {
  run(state, mixed_cluster(static_cast<int>(state.range(0)), static_cast<int>(state.range(1))), "");
}
BENCHMARK(BM_FullCycleMixed)
    ->Args({100, 500})
    ->Args({500, 2500})
    ->Args({1000, 5000})
    ->Unit(benchmark::kMillisecond);

void BM_ReclaimLargeJobs(benchmark::State& state) {
  run(state, reclaim_cluster(static_cast<int>(state.range(0))), "reclaim");
}
BENCHMARK(BM_ReclaimLargeJobs)
    ->Arg(10)
    ->Arg(100)
    ->Arg(200)
    ->Arg(500)
    ->Arg(1000)
    ->Arg(4000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond);

void BM_ReclaimLargeJobsDense(benchmark::State& state) {
  run(state, reclaim_cluster(static_cast<int>(state.range(0)), 27), "reclaim");
}
BENCHMARK(BM_ReclaimLargeJobsDense)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(4000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond);

void BM_AllocateDra(benchmark::State& state) {
  run(state, dra_cluster(static_cast<int>(state.range(0)), static_cast<int>(state.range(1))),
      "allocate");
}
BENCHMARK(BM_AllocateDra)->Args({10, 20})->Args({100, 200})->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
