// A fraction pod that opens a new GPU group needs a second pod slot on the node, for the group's
// reservation pod (KAI's checkMaxPodsWithGpuGroupReservation); one that joins a group it fits
// needs one slot, whether the group's GPU is free now or only once a releasing pod is gone. A
// shared GPU's reservation pod holds a slot too.
#include <catch2/catch.hpp>
#include <string>

#include "sim/io/snapshot.hpp"
#include "sim/sched/cycle.hpp"

namespace {

// One 2-GPU node with room for `pods` pods, holding `running` (a pod manifest body), and a
// pending half-GPU pod.
std::string cluster(const std::string& pods, const std::string& running) {
  return R"(apiVersion: v1
kind: Node
metadata: {name: n0, labels: {nvidia.com/gpu.memory: "46068", nvidia.com/gpu.count: "2"}}
status: {allocatable: {cpu: "8", memory: 64Gi, pods: ")" +
         pods + R"(", nvidia.com/gpu: "2"}}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: q}
spec: {resources: {gpu: {quota: 2, limit: -1, overQuotaWeight: 1}, cpu: {quota: -1, limit: -1}, memory: {quota: -1, limit: -1}}}
---
apiVersion: v1
kind: Pod
)" + running +
         R"(
---
apiVersion: v1
kind: Pod
metadata: {name: half, namespace: ns, labels: {kai.scheduler/queue: q}, annotations: {gpu-fraction: "0.5"}}
spec: {schedulerName: kai-scheduler, containers: [{name: c}]}
)";
}

const std::string kSharedRunning =
    R"(metadata: {name: running, namespace: ns, labels: {kai.scheduler/queue: q, runai-gpu-group: g1}, annotations: {gpu-fraction: "0.5", received-resource-type: Fraction}}
spec: {schedulerName: kai-scheduler, nodeName: n0, containers: [{name: c}]}
status: {phase: Running})";
const std::string kSharedReleasing =
    R"(metadata: {name: running, namespace: ns, deletionTimestamp: "2026-01-01T00:00:00Z", labels: {kai.scheduler/queue: q, runai-gpu-group: g1}, annotations: {gpu-fraction: "0.5", received-resource-type: Fraction}}
spec: {schedulerName: kai-scheduler, nodeName: n0, containers: [{name: c}]}
status: {phase: Running})";
const std::string kWholeRunning =
    R"(metadata: {name: running, namespace: ns, labels: {kai.scheduler/queue: q}}
spec: {schedulerName: kai-scheduler, nodeName: n0, containers: [{name: c, resources: {limits: {nvidia.com/gpu: "1"}}}]}
status: {phase: Running})";

// Whether the allocate action placed the half-GPU pod (bound or pipelined).
bool placed(const std::string& yaml) {
  sim::Diagnostics d;
  sim::model::ClusterState state = sim::io::load_snapshot({{yaml, "slots.yaml"}}, {}, d);
  const sim::sched::Session ssn = sim::sched::run_cycle(state);
  for (const auto& b : ssn.binds) {
    if (state.tasks[b.task].name == "half" && b.action == "allocate") return true;
  }
  for (const auto& p : ssn.pipelines) {
    if (state.tasks[p.task].name == "half" && p.action == "allocate") return true;
  }
  return false;
}

}  // namespace

TEST_CASE("a fraction pod joining a GPU group needs one free pod slot", "[sched][pod_slots]") {
  // Three slots: the running pod's, its group's reservation pod's and one free.
  CHECK(placed(cluster("3", kSharedRunning)));
  CHECK_FALSE(placed(cluster("2", kSharedRunning)));
  // The group's GPU is shared with a terminating pod: the pod waits for it, still one slot.
  CHECK(placed(cluster("3", kSharedReleasing)));
}

TEST_CASE("a fraction pod opening a GPU group needs two free pod slots", "[sched][pod_slots]") {
  CHECK_FALSE(placed(cluster("2", kWholeRunning)));
  CHECK(placed(cluster("3", kWholeRunning)));
}
