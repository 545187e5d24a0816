// The node orders the victim search keeps through a probe hand out what ordering the offered
// nodes afresh hands out, as a scenario evicts pods, places pods, offers nodes of its own and is
// discarded, and as binpack's range of free CPU moves.
#include "sim/sched/framework/search_orders.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "sim/io/snapshot.hpp"
#include "sim/sched/cycle.hpp"
#include "sim/sched/framework/node_fit.hpp"
#include "sim/sched/framework/statement.hpp"
#include "task_named.hpp"

namespace {

using sim::NodeId;
using sim::TaskId;

// Six 64-CPU nodes, node-i with a running pod `run-i` holding held[i] CPUs (none for 0), pending
// 8-CPU pods c-0 to c-5 and a pending one-GPU pod, all in queue q.
sim::model::ClusterState cluster(const std::vector<int>& held) {
  std::string yaml = R"(apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: q}
spec: {resources: {gpu: {quota: 16, limit: -1, overQuotaWeight: 1}, cpu: {quota: -1, limit: -1}, memory: {quota: -1, limit: -1}}}
)";
  auto pod = [&](const std::string& name, const std::string& node, const std::string& limits) {
    yaml += "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
            ", namespace: ns, labels: {kai.scheduler/queue: q}}\nspec: {schedulerName: "
            "kai-scheduler, " +
            (node.empty() ? "" : "nodeName: " + node + ", ") +
            "containers: [{name: c, resources: {limits: {" + limits + "}}}]}\n" +
            (node.empty() ? "" : "status: {phase: Running}\n");
  };
  for (std::size_t i = 0; i < held.size(); ++i) {
    const std::string node = "node-" + std::to_string(i);
    yaml += "---\napiVersion: v1\nkind: Node\nmetadata: {name: " + node +
            ", labels: {nvidia.com/gpu.memory: \"46068\", nvidia.com/gpu.count: \"4\"}}\n"
            "status: {allocatable: {cpu: \"64\", memory: 512Gi, pods: \"110\", nvidia.com/gpu: "
            "\"4\"}}\n";
    if (held[i] != 0)
      pod("run-" + std::to_string(i), node, "cpu: \"" + std::to_string(held[i]) + "\"");
  }
  for (int i = 0; i < 6; ++i) pod("c-" + std::to_string(i), "", "cpu: \"8\"");
  pod("gpu", "", "nvidia.com/gpu: \"1\"");
  sim::Diagnostics d;
  return sim::io::load_snapshot({{yaml, "search.yaml"}}, {}, d);
}

using sim::test::task_named;

std::vector<std::string> names(const sim::model::ClusterState& state,
                               const std::vector<NodeId>& nodes) {
  std::vector<std::string> out;
  for (NodeId n : nodes) out.push_back(state.nodes[n].name);
  return out;
}

// Asks the kept orders for `task` over `offered`; when they keep one, checks its walk against a
// fresh ordering. Returns the walk's nodes by name, or {"none kept"}.
std::vector<std::string> walk(sim::sched::SearchNodeOrders& orders, sim::sched::Session& ssn,
                              TaskId task, const std::vector<NodeId>& offered) {
  sim::sched::SearchNodeOrders::Walk* w = orders.walk(task, offered);
  if (w == nullptr) return {"none kept"};
  std::vector<NodeId> walked;
  for (NodeId n; w->next(n);) walked.push_back(n);
  const std::vector<NodeId> fresh = sim::sched::ordered_nodes(ssn, task, offered, true).rest();
  CHECK(names(ssn.state, walked) == names(ssn.state, fresh));
  return names(ssn.state, walked);
}

}  // namespace

TEST_CASE("a probe's kept order hands out the fresh order through its scenarios",
          "[sched][search_orders]") {
  // Free CPU: node-0 4, node-1 24, node-2 44, node-3 64, node-4 14, node-5 54.
  sim::model::ClusterState state = cluster({60, 40, 20, 0, 50, 10});
  sim::sched::Session ssn = sim::sched::open_session(state);
  const std::vector<NodeId> probe = {state.find_node("node-0"), state.find_node("node-1"),
                                     state.find_node("node-2"), state.find_node("node-3"),
                                     state.find_node("node-4")};
  // Five probe nodes: orders kept for probes of any size.
  sim::sched::SearchNodeOrders orders(ssn, 1);
  orders.at_base(probe);
  const TaskId c0 = task_named(state, "c-0");
  // Kept from the kSightingsToKeep-th placement with the same requests, nodes and ranges.
  constexpr int kSightings = sim::sched::SearchNodeOrders::kSightingsToKeep;
  for (int i = 1; i < kSightings; ++i)
    CHECK(walk(orders, ssn, c0, probe) == std::vector<std::string>{"none kept"});
  // Binpack: the least free node that fits first (node-0's 4 CPUs do not fit 8).
  CHECK(walk(orders, ssn, c0, probe) ==
        std::vector<std::string>{"node-4", "node-1", "node-2", "node-3"});
  // An alike pod reads the same order.
  CHECK(walk(orders, ssn, task_named(state, "c-1"), probe).front() == "node-4");
  // Whole-GPU pods find their nodes in the index of nodes by free GPUs: no order kept.
  CHECK(walk(orders, ssn, task_named(state, "gpu"), probe) ==
        std::vector<std::string>{"none kept"});

  // A scenario: node-5 offered as its own, run-4 evicted (its CPUs releasing, so free), pods
  // placed; the range of free CPU stays 4 to 64, so the kept order serves it.
  std::vector<NodeId> offered = probe;
  offered.push_back(state.find_node("node-5"));
  {
    sim::sched::Statement stmt(ssn);
    stmt.evict(task_named(state, "run-4"), "reclaim", sim::JobId::invalid());
    // node-3 and node-4 both have 64 free CPUs and fit the pod idle: ties go by name.
    CHECK(walk(orders, ssn, c0, offered) ==
          std::vector<std::string>{"node-1", "node-2", "node-5", "node-3", "node-4"});
    stmt.pipeline(task_named(state, "c-2"), state.find_node("node-1"), false);
    stmt.pipeline(task_named(state, "c-3"), state.find_node("node-1"), false);
    CHECK(walk(orders, ssn, c0, offered).front() == "node-1");  // 8 CPUs left there
    stmt.pipeline(task_named(state, "c-4"), state.find_node("node-1"), false);
    // node-1 full: the least free node has 0 CPUs, a range no order was kept for yet.
    CHECK(walk(orders, ssn, c0, offered) == std::vector<std::string>{"none kept"});
    stmt.discard();
  }
  // The next scenario starts where the probe started.
  orders.at_base(probe);
  CHECK(walk(orders, ssn, c0, probe) ==
        std::vector<std::string>{"node-4", "node-1", "node-2", "node-3"});

  // A scenario that moves the range: run-0 evicted, so the least free node has 14 CPUs. Another
  // order, kept from its kSightingsToKeep-th placement; the first order still serves the probe
  // afterwards.
  {
    sim::sched::Statement stmt(ssn);
    stmt.evict(task_named(state, "run-0"), "reclaim", sim::JobId::invalid());
    for (int i = 1; i < kSightings; ++i)
      CHECK(walk(orders, ssn, c0, probe) == std::vector<std::string>{"none kept"});
    const std::vector<std::string> last = walk(orders, ssn, c0, probe);
    // node-0's 64 free CPUs are mostly releasing: the pod does not fit it idle, so node-3 first.
    CHECK(last == std::vector<std::string>{"node-4", "node-1", "node-2", "node-3", "node-0"});
    stmt.discard();
  }
  orders.at_base(probe);
  CHECK(walk(orders, ssn, c0, probe) ==
        std::vector<std::string>{"node-4", "node-1", "node-2", "node-3"});
}

TEST_CASE("a probe of few nodes is ordered afresh", "[sched][search_orders]") {
  sim::model::ClusterState state = cluster({60, 40, 20, 0, 50, 10});
  sim::sched::Session ssn = sim::sched::open_session(state);
  std::vector<NodeId> probe;
  for (std::size_t i = 0; i < state.nodes.size(); ++i)
    probe.emplace_back(static_cast<NodeId::value_type>(i));
  sim::sched::SearchNodeOrders orders(ssn);
  REQUIRE(probe.size() < sim::sched::SearchNodeOrders::kFewestProbeNodes);
  orders.at_base(probe);
  for (int i = 0; i < 6; ++i) CHECK(orders.walk(task_named(state, "c-0"), probe) == nullptr);
}
