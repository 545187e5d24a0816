// Nodes come out best score first and, among equal scores, by name, however the state numbers
// them and however many the caller asks for (they are sorted a few at a time).
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "sim/io/snapshot.hpp"
#include "sim/sched/cycle.hpp"
#include "sim/sched/framework/node_fit.hpp"

namespace {

// `count` alike empty nodes, written (and so numbered) in reverse name order, and one pending pod.
sim::model::ClusterState cluster(int count) {
  std::string yaml;
  for (int i = count - 1; i >= 0; --i) {
    const std::string name = "node-" + std::string(i < 10 ? "0" : "") + std::to_string(i);
    yaml += "apiVersion: v1\nkind: Node\nmetadata: {name: " + name +
            ", labels: {nvidia.com/gpu.memory: \"46068\", nvidia.com/gpu.count: \"1\"}}\n"
            "status: {allocatable: {cpu: \"8\", memory: 64Gi, pods: \"110\", nvidia.com/gpu: "
            "\"1\"}}\n---\n";
  }
  yaml += R"(apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: q}
spec: {resources: {gpu: {quota: 1, limit: -1, overQuotaWeight: 1}, cpu: {quota: -1, limit: -1}, memory: {quota: -1, limit: -1}}}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ns, labels: {kai.scheduler/queue: q}}
spec: {schedulerName: kai-scheduler, containers: [{name: c, resources: {limits: {nvidia.com/gpu: "1"}}}]}
)";
  sim::Diagnostics d;
  return sim::io::load_snapshot({{yaml, "nodes.yaml"}}, {}, d);
}

std::vector<std::string> order(int count, std::size_t first_n = 0) {
  sim::model::ClusterState state = cluster(count);
  REQUIRE(state.nodes[sim::NodeId(0)].name >
          state.nodes[sim::NodeId(1)].name);  // not in name order
  sim::sched::Session ssn = sim::sched::open_session(state);
  std::vector<sim::NodeId> all;
  for (std::size_t i = 0; i < state.nodes.size(); ++i)
    all.emplace_back(static_cast<sim::NodeId::value_type>(i));
  sim::sched::NodeOrder nodes = sim::sched::ordered_nodes(ssn, sim::TaskId(0), all);
  std::vector<std::string> out;
  if (first_n > 0) {
    for (sim::NodeId n; out.size() < first_n && nodes.next(n);) out.push_back(state.nodes[n].name);
    return out;
  }
  for (sim::NodeId n : nodes.rest()) out.push_back(state.nodes[n].name);
  return out;
}

}  // namespace

TEST_CASE("equally scored nodes come out by name, a few or all of them", "[sched][node_order]") {
  const std::vector<std::string> all = order(30);
  REQUIRE(all.size() == 30);
  CHECK(std::is_sorted(all.begin(), all.end()));
  CHECK(all.front() == "node-00");
  const std::vector<std::string> first = order(30, 3);
  CHECK(first == std::vector<std::string>(all.begin(), all.begin() + 3));
}

namespace {

// Six 8-GPU nodes holding 0, 2, 5, 7, 8 and 8 GPUs (node-5's pod is terminating, so its GPUs are
// releasing), and a pending 2-GPU pod.
sim::model::ClusterState busy_cluster() {
  std::string yaml = R"(apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: q}
spec: {resources: {gpu: {quota: 8, limit: -1, overQuotaWeight: 1}, cpu: {quota: -1, limit: -1}, memory: {quota: -1, limit: -1}}}
---
apiVersion: v1
kind: Pod
metadata: {name: pending, namespace: ns, labels: {kai.scheduler/queue: q}}
spec: {schedulerName: kai-scheduler, containers: [{name: c, resources: {limits: {nvidia.com/gpu: "2"}}}]}
)";
  const int held[] = {0, 2, 5, 7, 8, 8};
  for (int i = 0; i < 6; ++i) {
    const std::string node = "node-" + std::to_string(i);
    yaml += "---\napiVersion: v1\nkind: Node\nmetadata: {name: " + node +
            ", labels: {nvidia.com/gpu.memory: \"46068\", nvidia.com/gpu.count: \"8\"}}\n"
            "status: {allocatable: {cpu: \"64\", memory: 512Gi, pods: \"110\", nvidia.com/gpu: "
            "\"8\"}}\n";
    if (held[i] == 0) continue;
    yaml += "---\napiVersion: v1\nkind: Pod\nmetadata: {name: run-" + std::to_string(i) +
            ", namespace: ns, labels: {kai.scheduler/queue: q}" +
            (i == 5 ? ", deletionTimestamp: \"2026-01-01T00:00:00Z\"" : "") +
            "}\nspec: {schedulerName: kai-scheduler, nodeName: " + node +
            ", containers: [{name: c, resources: {limits: {nvidia.com/gpu: \"" +
            std::to_string(held[i]) + "\"}}}]}\nstatus: {phase: Running}\n";
  }
  sim::Diagnostics d;
  return sim::io::load_snapshot({{yaml, "busy.yaml"}}, {}, d);
}

}  // namespace

TEST_CASE("ordering only the nodes a task fits keeps their order among all nodes",
          "[sched][node_order]") {
  sim::model::ClusterState state = busy_cluster();
  sim::sched::Session ssn = sim::sched::open_session(state);
  sim::TaskId pending;
  for (std::size_t i = 0; i < state.tasks.size(); ++i) {
    if (state.tasks[sim::TaskId(static_cast<sim::TaskId::value_type>(i))].name == "pending")
      pending = sim::TaskId(static_cast<sim::TaskId::value_type>(i));
  }
  REQUIRE(pending.valid());
  std::vector<sim::NodeId> all;
  for (std::size_t i = 0; i < state.nodes.size(); ++i)
    all.emplace_back(static_cast<sim::NodeId::value_type>(i));
  std::vector<std::string> fitting_of_all;
  for (sim::NodeId n : sim::sched::ordered_nodes(ssn, pending, all).rest()) {
    if (sim::sched::fitting_node(ssn, pending, n)) fitting_of_all.push_back(state.nodes[n].name);
  }
  std::vector<std::string> only_fitting;
  for (sim::NodeId n : sim::sched::ordered_nodes(ssn, pending, all, true).rest())
    only_fitting.push_back(state.nodes[n].name);
  // Binpack: the least free node the pod fits first; node-5's releasing GPUs count as free, but
  // a node that fits the pod now (node-0) goes before one that waits for them.
  CHECK(only_fitting == std::vector<std::string>{"node-2", "node-1", "node-0", "node-5"});
  CHECK(only_fitting == fitting_of_all);
}
