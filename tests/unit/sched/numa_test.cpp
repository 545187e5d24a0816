// The numa plugin's evaluators on a node of two 4-CPU zones: pod scope aligns the whole pod,
// container scope each container; restricted splits a pod over the narrowest set of zones.
#include "sched/plugins/numa.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "sim/io/snapshot.hpp"
#include "sim/sched/cycle.hpp"
#include "sim/sched/framework/statement.hpp"

namespace {

// Node n0 with two zones of 4 CPUs under `policy`/`scope`, then `pods` (manifests).
sim::model::ClusterState cluster_with(const std::string& policy, const std::string& scope,
                                      const std::string& pods) {
  const std::string text = R"(
apiVersion: v1
kind: Node
metadata: {name: n0}
status: {allocatable: {cpu: "16", memory: 64Gi, pods: "110"}}
---
apiVersion: topology.node.k8s.io/v1alpha2
kind: NodeResourceTopology
metadata: {name: n0}
attributes: [{name: topologyManagerPolicy, value: )" +
                           policy + R"(}, {name: topologyManagerScope, value: )" + scope + R"(}]
zones:
  - {name: node-0, type: Node, resources: [{name: cpu, allocatable: "4", available: "4"}]}
  - {name: node-1, type: Node, resources: [{name: cpu, allocatable: "4", available: "4"}]}
)" + pods;
  sim::Diagnostics d;
  sim::model::ClusterState state = sim::io::load_snapshot({{text, "numa.yaml"}}, {}, d);
  state.config.plugins.numa = true;
  return state;
}

// The same node and a Guaranteed pod with two containers of 3 CPUs each.
sim::model::ClusterState cluster(const std::string& policy, const std::string& scope) {
  return cluster_with(policy, scope, R"(---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: a, uid: p}
spec:
  schedulerName: kai-scheduler
  containers:
    - {name: a, resources: {limits: {cpu: "3", memory: 1Gi}}}
    - {name: b, resources: {limits: {cpu: "3", memory: 1Gi}}}
)");
}

std::vector<int> zones(const std::vector<sim::model::ZoneAmounts>& placement) {
  std::vector<int> out;
  for (const auto& z : placement) out.push_back(z.zone);
  return out;
}

}  // namespace

TEST_CASE(
    "single-numa-node: each container in its own zone under container scope, none under pod scope",
    "[sched][numa]") {
  sim::model::ClusterState per_container = cluster("single-numa-node", "container");
  sim::sched::Session ssn = sim::sched::open_session(per_container);
  std::vector<sim::model::ZoneAmounts> placement;
  REQUIRE(sim::sched::numa_admits(ssn, ssn.state.tasks[sim::TaskId(0)],
                                  ssn.state.nodes[sim::NodeId(0)], &placement));
  CHECK(zones(placement) == std::vector<int>{0, 1});

  sim::model::ClusterState whole = cluster("single-numa-node", "pod");
  sim::sched::Session ssn_pod = sim::sched::open_session(whole);
  CHECK_FALSE(sim::sched::numa_admits(ssn_pod, ssn_pod.state.tasks[sim::TaskId(0)],
                                      ssn_pod.state.nodes[sim::NodeId(0)], nullptr));
}

TEST_CASE("restricted: a pod wider than a zone spans the lowest two, and the ledger follows",
          "[sched][numa]") {
  sim::model::ClusterState state = cluster("restricted", "pod");
  sim::sched::Session ssn = sim::sched::open_session(state);
  std::vector<sim::model::ZoneAmounts> placement;
  sim::model::Node& node = ssn.state.nodes[sim::NodeId(0)];
  REQUIRE(sim::sched::numa_admits(ssn, ssn.state.tasks[sim::TaskId(0)], node, &placement));
  REQUIRE(zones(placement) == std::vector<int>{0, 1});
  CHECK(placement[0].amount.at("cpu") == 4000);  // greedily from the lowest zone
  CHECK(placement[1].amount.at("cpu") == 2000);
  sim::sched::numa_charge(node, placement, -1);
  CHECK(node.numa->zones[1].available.at("cpu") == 2000);
  // Two zones' worth is no longer free: the same pod is refused now.
  CHECK_FALSE(sim::sched::numa_admits(ssn, ssn.state.tasks[sim::TaskId(0)], node, nullptr));
  sim::sched::numa_charge(node, placement, +1);
  CHECK(node.numa->zones[0].available.at("cpu") == 4000);
}

TEST_CASE("the zone ledger follows evictions and pipelines through a statement and its rollback",
          "[sched][numa]") {
  // zone-0 holds a running 3-CPU pod (by its observed record); a 3-CPU pod waits.
  sim::model::ClusterState state = cluster_with("single-numa-node", "pod", R"(---
apiVersion: v1
kind: Pod
metadata:
  name: old
  namespace: a
  uid: old
  annotations: {kai.scheduler/numa-placement-observed: '[{"zone":"node-0","amount":{"cpu":"3"}}]'}
spec: {schedulerName: kai-scheduler, nodeName: n0, containers: [{name: c, resources: {limits: {cpu: "3", memory: 1Gi}}}]}
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: new, namespace: a, uid: new}
spec: {schedulerName: kai-scheduler, containers: [{name: c, resources: {limits: {cpu: "3", memory: 1Gi}}}]}
)");
  sim::sched::Session ssn = sim::sched::open_session(state);
  sim::model::Node& node = ssn.state.nodes[sim::NodeId(0)];
  auto cpu = [&](std::size_t zone) { return node.numa->zones[zone].available.at("cpu"); };
  const sim::TaskId old_pod =
      ssn.state.tasks[sim::TaskId(0)].name == "old" ? sim::TaskId(0) : sim::TaskId(1);
  const sim::TaskId new_pod = old_pod == sim::TaskId(0) ? sim::TaskId(1) : sim::TaskId(0);
  REQUIRE(cpu(0) == 1000);  // rebuilt from the record at session open
  REQUIRE(ssn.state.tasks[old_pod].devices->numa_placement.size() == 1);

  sim::sched::Statement stmt(ssn);
  stmt.evict(old_pod, "preempt", sim::JobId::invalid());
  CHECK(cpu(0) == 4000);  // credited
  sim::model::Task& task = ssn.state.tasks[new_pod];
  REQUIRE(sim::sched::numa_admits(ssn, task, node, &task.devices.edit().numa_placement));
  REQUIRE(task.devices->numa_placement.size() == 1);
  CHECK(task.devices->numa_placement[0].zone == 0);  // the freed zone is the lowest that fits
  stmt.pipeline(new_pod, sim::NodeId(0), true);
  CHECK(cpu(0) == 1000);
  stmt.discard();
  // Everything undone: the old pod charged again with its own placement, the new one gone.
  CHECK(cpu(0) == 1000);
  CHECK(cpu(1) == 4000);
  CHECK(ssn.state.tasks[old_pod].devices->numa_placement[0].zone == 0);
}
