// The invariant checker finds what breaks consistency, and nothing on a sound cycle.
#include "sim/sched/framework/invariants.hpp"

#include <catch2/catch.hpp>

#include "sim/io/snapshot.hpp"
#include "sim/sched/actions/actions.hpp"
#include "sim/sched/cycle.hpp"
#include "sim/sched/plugins/proportion.hpp"

namespace {

sim::model::ClusterState two_pods() {
  const char* text = R"(
apiVersion: v1
kind: Node
metadata: {name: n0}
status: {allocatable: {cpu: "8", memory: 64Gi, pods: "110", nvidia.com/gpu: "2"}}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: q}
spec: {resources: {gpu: {quota: 2, limit: -1}, cpu: {quota: -1, limit: -1}, memory: {quota: -1, limit: -1}}}
---
apiVersion: v1
kind: Pod
metadata: {name: a, namespace: x, uid: a, labels: {kai.scheduler/queue: q}}
spec: {schedulerName: kai-scheduler, containers: [{name: c, resources: {limits: {nvidia.com/gpu: "1"}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: b, namespace: x, uid: b, labels: {kai.scheduler/queue: q}}
spec: {schedulerName: kai-scheduler, containers: [{name: c, resources: {limits: {nvidia.com/gpu: "1"}}}]}
)";
  sim::Diagnostics d;
  return sim::io::load_snapshot({{text, "inv.yaml"}}, {}, d);
}

}  // namespace

TEST_CASE("a sound allocation keeps every invariant: broken books are named",
          "[sched][invariants]") {
  sim::model::ClusterState state = two_pods();
  sim::sched::Session ssn = sim::sched::open_session(state);
  const sim::sched::InvariantChecker checker(ssn);
  sim::sched::run_allocate(ssn);
  REQUIRE(ssn.binds.size() == 2);
  CHECK(checker.violations(ssn).empty());

  // A queue that forgot a pod.
  ssn.plugin<sim::sched::ProportionPlugin>()
      ->queues[ssn.state.jobs[ssn.state.tasks[sim::TaskId(0)].job].queue][sim::Resource::GPU]
      .allocated -= 1;
  const auto queue = checker.violations(ssn);
  REQUIRE(queue.size() == 1);
  CHECK(queue[0].find("queue q: allocated gpu") == 0);
  ssn.plugin<sim::sched::ProportionPlugin>()
      ->queues[ssn.state.jobs[ssn.state.tasks[sim::TaskId(0)].job].queue][sim::Resource::GPU]
      .allocated += 1;

  // A node holding a third GPU pod, and a portion above one.
  sim::model::Task extra = ssn.state.tasks[sim::TaskId(0)];
  extra.id = sim::TaskId(7);
  ssn.state.nodes[sim::NodeId(0)].add_task(extra);
  ssn.state.tasks[sim::TaskId(1)].accepted_gpu.portion = 1.5;
  const auto node = checker.violations(ssn);
  REQUIRE(node.size() == 2);
  CHECK(node[0].find("node n0: gpu held 3") == 0);
  CHECK(node[1].find("pod x/b: GPU portion 1.5") == 0);
}
