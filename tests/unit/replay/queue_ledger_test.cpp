// A replay's ledger kept up to date pod by pod equals one rebuilt from the state, bit for bit,
// whatever the order of the changes; and it counts what the timeline and a session count.
#include "replay/queue_ledger.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "sim/io/snapshot.hpp"
#include "sim/sched/framework/pod_sums.hpp"

namespace {

const char* kCluster = R"(
apiVersion: v1
kind: Node
metadata: {name: n0, labels: {nvidia.com/gpu.memory: "46068", nvidia.com/gpu.count: "2"}}
status: {allocatable: {cpu: "8", memory: 64Gi, pods: "110", nvidia.com/gpu: "2"}}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: org}
spec: {resources: {gpu: {quota: 2, limit: -1, overQuotaWeight: 1}, cpu: {quota: -1, limit: -1}, memory: {quota: -1, limit: -1}}}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: a}
spec: {parentQueue: org, resources: {gpu: {quota: 1, limit: -1, overQuotaWeight: 1}, cpu: {quota: -1, limit: -1}, memory: {quota: -1, limit: -1}}}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: b}
spec: {parentQueue: org, resources: {gpu: {quota: 1, limit: -1, overQuotaWeight: 1}, cpu: {quota: -1, limit: -1}, memory: {quota: -1, limit: -1}}}
---
apiVersion: v1
kind: Pod
metadata: {name: p1, namespace: ns, labels: {kai.scheduler/queue: a, runai-gpu-group: g1}, annotations: {gpu-fraction: "0.33", received-resource-type: Fraction}}
spec: {schedulerName: kai-scheduler, nodeName: n0, containers: [{name: c, resources: {requests: {cpu: 500m}}}]}
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: p2, namespace: ns, labels: {kai.scheduler/queue: a, runai-gpu-group: g1}, annotations: {gpu-fraction: "0.5", received-resource-type: Fraction}}
spec: {schedulerName: kai-scheduler, nodeName: n0, containers: [{name: c}]}
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: p3, namespace: ns, labels: {kai.scheduler/queue: b}}
spec: {schedulerName: kai-scheduler, nodeName: n0, containers: [{name: c, resources: {limits: {nvidia.com/gpu: "1"}}}]}
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: p4, namespace: ns, labels: {kai.scheduler/queue: b}, annotations: {gpu-fraction: "0.1"}}
spec: {schedulerName: kai-scheduler, containers: [{name: c}]}
)";

sim::model::ClusterState load() {
  sim::Diagnostics d;
  return sim::io::load_snapshot({{kCluster, "state.yaml"}}, {}, d);
}

sim::QueueId queue(const sim::model::ClusterState& state, const std::string& name) {
  for (std::size_t i = 0; i < state.queue_tree.size(); ++i) {
    const sim::QueueId q(static_cast<sim::QueueId::value_type>(i));
    if (state.queue_tree.uid(q) == name) return q;
  }
  FAIL("no queue " << name);
  return sim::QueueId::invalid();
}

// Everything a cycle reads from the ledger, as plain numbers.
std::vector<double> reading(const sim::replay::QueueLedger& ledger,
                            const sim::model::ClusterState& state) {
  std::vector<double> out;
  const sim::model::OpenSums open = ledger.open_sums(state);
  for (const auto& q : open.queues) {
    for (int r = 0; r < 3; ++r)
      out.insert(out.end(), {q.request[r], q.allocated[r], q.allocated_not_preemptible[r]});
  }
  for (const auto& q : ledger.timeline()) {
    for (int r = 0; r < 3; ++r)
      out.insert(out.end(), {q.allocated[r], q.allocated_np[r], q.requested[r]});
  }
  out.insert(out.end(),
             {static_cast<double>(ledger.stranded_mib()), ledger.cluster_gpus(),
              ledger.any_pending() ? 1.0 : 0.0, static_cast<double>(open.may_pend.size())});
  for (int r = 0; r < 3; ++r) out.push_back(ledger.capacity()[r]);
  return out;
}

}  // namespace

TEST_CASE("a ledger counts pods as a session and the timeline do", "[replay][ledger]") {
  const sim::model::ClusterState state = load();
  sim::replay::QueueLedger ledger;
  ledger.rebuild(state);
  const auto timeline = ledger.timeline();
  const sim::QueueId a = queue(state, "a"), b = queue(state, "b"), org = queue(state, "org");
  CHECK(timeline[a].allocated[2] == Approx(0.83));
  CHECK(timeline[b].allocated[2] == 1.0);
  CHECK(timeline[b].requested[2] == Approx(1.1));  // the pending pod's request counts
  CHECK(timeline[org].allocated[2] == Approx(1.83));
  CHECK(timeline[a].allocated[0] == 500);  // millicores
  CHECK(ledger.any_pending());
  CHECK(ledger.cluster_gpus() == 2);
  // One device shared by the two fractions: what they leave of its 46068 MiB is stranded.
  CHECK(ledger.stranded_mib() > 0);
  CHECK(ledger.stranded_mib() < 46068 / 5);

  // The session's own exact pass (what a replay's states ask for) gives the same sums, bit for bit.
  sim::model::ClusterState exact = state;
  exact.sum_order = sim::model::SumOrder::EXACT;
  const sim::model::OpenSums counted = sim::sched::count_open_sums(exact);
  const sim::model::OpenSums kept = ledger.open_sums(state);
  for (std::size_t i = 0; i < counted.queues.size(); ++i) {
    const sim::QueueId q(static_cast<sim::QueueId::value_type>(i));
    CHECK((counted.queues[q].request == kept.queues[q].request).all());
    CHECK((counted.queues[q].allocated == kept.queues[q].allocated).all());
  }
  CHECK((counted.capacity == kept.capacity).all());
  CHECK(counted.may_pend == kept.may_pend);
  CHECK(counted.may_be_stale == kept.may_be_stale);
}

TEST_CASE("a ledger kept up to date in any order equals one rebuilt", "[replay][ledger]") {
  const sim::model::ClusterState state = load();
  sim::replay::QueueLedger rebuilt;
  rebuilt.rebuild(state);
  const std::vector<double> want = reading(rebuilt, state);

  std::vector<std::string> pods;
  for (const auto& t : state.tasks) pods.push_back(t.ns + "/" + t.name);
  std::mt19937 rng(3);
  for (int round = 0; round < 20; ++round) {
    sim::replay::QueueLedger ledger = rebuilt;
    std::shuffle(pods.begin(), pods.end(), rng);
    for (const std::string& pod : pods) ledger.forget(pod);
    CHECK(ledger.stranded_mib() == 0);
    CHECK_FALSE(ledger.any_pending());
    CHECK(ledger.timeline()[queue(state, "org")].allocated[2] == 0.0);
    std::vector<const sim::model::Task*> tasks;
    for (const auto& t : state.tasks) tasks.push_back(&t);
    std::shuffle(tasks.begin(), tasks.end(), rng);
    for (const sim::model::Task* t : tasks) {
      REQUIRE(ledger.record(state, *t));
      REQUIRE(ledger.record(state, *t));  // recording again changes nothing
    }
    CHECK(reading(ledger, state) == want);
  }
}
