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
