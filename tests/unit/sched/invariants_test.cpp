// The invariant checker finds what breaks consistency, and nothing on a sound cycle.
#include "sim/sched/framework/invariants.hpp"

#include <catch2/catch.hpp>

#include "sim/io/snapshot.hpp"
#include "sim/sched/actions/actions.hpp"
#include "sim/sched/cycle.hpp"
#include "sim/sched/plugins/proportion.hpp"
#include "task_named.hpp"

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

namespace {

// Two nodes of 8 CPUs; v (6 CPUs) runs on n0, p (6 CPUs) waits.
sim::model::ClusterState moved_pod_cluster() {
  const char* text = R"(
apiVersion: v1
kind: Node
metadata: {name: n0}
status: {allocatable: {cpu: "8", memory: 64Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "8", memory: 64Gi, pods: "110"}}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: q}
spec: {resources: {gpu: {quota: -1, limit: -1}, cpu: {quota: -1, limit: -1}, memory: {quota: -1, limit: -1}}}
---
apiVersion: v1
kind: Pod
metadata: {name: v, namespace: x, uid: v, labels: {kai.scheduler/queue: q}}
spec: {schedulerName: kai-scheduler, nodeName: n0, containers: [{name: c, resources: {requests: {cpu: "6"}}}]}
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: x, uid: p, labels: {kai.scheduler/queue: q}}
spec: {schedulerName: kai-scheduler, containers: [{name: c, resources: {requests: {cpu: "6"}}}]}
)";
  sim::Diagnostics d;
  return sim::io::load_snapshot({{text, "moved.yaml"}}, {}, d);
}

using sim::test::task_named;

}  // namespace

TEST_CASE("a moved pod placed again on its old node returns over its reclaimer, as in KAI",
          "[sched][invariants]") {
  sim::model::ClusterState state = moved_pod_cluster();
  sim::sched::Session ssn = sim::sched::open_session(state);
  const sim::sched::InvariantChecker checker(ssn);
  const sim::TaskId v = task_named(ssn.state, "v");
  const sim::TaskId p = task_named(ssn.state, "p");
  const sim::NodeId n0(0), n1(1);
  REQUIRE(ssn.state.nodes[n0].name == "n0");

  // An earlier reclaim moves v to n1: n0 keeps its Releasing record of v.
  sim::sched::Statement first(ssn);
  first.evict(v, "reclaim", ssn.state.tasks[p].job);
  first.pipeline(v, n1, false);
  first.commit();
  REQUIRE(ssn.state.tasks[v].node == n1);
  REQUIRE(ssn.state.nodes[n0].tasks.contains(v));
  CHECK(checker.violations(ssn).empty());

  // A later scenario evicts v from n1 and pipelines p into its room; v's job is then placed
  // on n0, where Pipeline finds v's old record and unevicts it: v is back on n1, beside p.
  sim::sched::Statement second(ssn);
  second.evict(v, "reclaim", ssn.state.tasks[p].job);
  REQUIRE(
      ssn.state.nodes[n1].task_fits(ssn.state.tasks[p], ssn.state.nodes[n1].non_allocated(), true));
  second.pipeline(p, n1, false);
  second.pipeline(v, n0, false);
  CHECK(ssn.state.tasks[v].node == n1);
  CHECK(ssn.state.tasks[v].status == sim::model::TaskStatus::PIPELINED);
  CHECK(ssn.state.nodes[n1].non_allocated()[0] < 0);  // 12 CPUs committed of 8
  CHECK(checker.violations(ssn).empty());

  // A pipelined pod that no other node holds is still held to the node's capacity.
  second.discard();
  sim::model::Task extra = ssn.state.tasks[p];
  extra.id = sim::TaskId(static_cast<sim::TaskId::value_type>(ssn.state.tasks.size()));
  extra.status = sim::model::TaskStatus::PIPELINED;
  extra.accepted = extra.request;
  sim::model::Task more = extra;
  more.id = sim::TaskId(static_cast<sim::TaskId::value_type>(ssn.state.tasks.size() + 1));
  ssn.state.nodes[n0].add_task(extra);
  ssn.state.nodes[n0].add_task(more);
  const auto over = checker.violations(ssn);
  REQUIRE(over.size() == 1);
  CHECK(over[0] == "node n0: cpu held 12000.000000 of 8000.000000 with pipelined pods");
}
