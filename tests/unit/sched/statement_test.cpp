// A Statement's rollback must restore the session exactly: node vectors, shared-GPU maps, task
// states and queue usage, including after an undo was itself undone.
#include "sim/sched/framework/statement.hpp"

#include <catch2/catch.hpp>
#include <stdexcept>
#include <utility>

#include "sim/io/snapshot.hpp"
#include "sim/sched/cycle.hpp"
#include "sim/sched/plugins/proportion.hpp"

namespace {

const char* kCluster = R"(
apiVersion: v1
kind: Node
metadata: {name: n0, labels: {nvidia.com/gpu.memory: "46068", nvidia.com/gpu.count: "2"}}
status: {allocatable: {cpu: "8", memory: 64Gi, pods: "110", nvidia.com/gpu: "2"}}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: q}
spec: {resources: {gpu: {quota: 2, limit: -1, overQuotaWeight: 1}, cpu: {quota: -1, limit: -1}, memory: {quota: -1, limit: -1}}}
---
apiVersion: v1
kind: Pod
metadata: {name: running, namespace: ns, labels: {kai.scheduler/queue: q, runai-gpu-group: g1}, annotations: {gpu-fraction: "0.5", received-resource-type: Fraction}}
spec: {schedulerName: kai-scheduler, nodeName: n0, containers: [{name: c}]}
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: pending, namespace: ns, labels: {kai.scheduler/queue: q}}
spec: {schedulerName: kai-scheduler, containers: [{name: c, resources: {limits: {nvidia.com/gpu: "1"}}}]}
)";

struct Fingerprint {
  std::vector<double> vectors;
  std::map<std::string, std::int64_t> used, allocated, releasing;
  std::vector<int> statuses;
  std::vector<double> queue_allocated;
  bool operator==(const Fingerprint&) const = default;
};

Fingerprint fingerprint(const sim::sched::Session& ssn) {
  Fingerprint f;
  const auto& n = ssn.state.nodes[sim::NodeId(0)];
  for (int i = 0; i < sim::kResourceCount; ++i) {
    f.vectors.push_back(n.idle[i]);
    f.vectors.push_back(n.used[i]);
    f.vectors.push_back(n.releasing[i]);
  }
  // Zero entries are left out: like Go map entries they may appear during the what-if and stay
  // at 0; only the non-zero amounts are state that decisions read.
  auto non_zero = [](const std::map<std::string, std::int64_t>& m) {
    std::map<std::string, std::int64_t> out;
    for (const auto& [k, v] : m) {
      if (v != 0) out[k] = v;
    }
    return out;
  };
  f.used = non_zero(n.used_shared_mib);
  f.allocated = non_zero(n.allocated_shared_mib);
  f.releasing = non_zero(n.releasing_shared_mib);
  for (const auto& t : ssn.state.tasks) f.statuses.push_back(static_cast<int>(t.status));
  for (const auto& q : *sim::sched::queue_shares(ssn))
    f.queue_allocated.push_back(q[sim::Resource::GPU].allocated);
  return f;
}

}  // namespace

TEST_CASE("statement rollback restores the session exactly", "[sched][statement]") {
  sim::Diagnostics d;
  sim::model::ClusterState state = sim::io::load_snapshot({{kCluster, "state.yaml"}}, {}, d);
  sim::sched::Session ssn = sim::sched::open_session(state);
  const Fingerprint before = fingerprint(ssn);
  const sim::TaskId running(0), pending(1);

  sim::sched::Statement stmt(ssn);
  const std::size_t cp = stmt.checkpoint();
  stmt.evict(running, "reclaim", sim::JobId(1));
  CHECK((*sim::sched::queue_shares(ssn))[sim::QueueId(0)][sim::Resource::GPU].allocated == 0);
  stmt.allocate(pending, sim::NodeId(0));
  CHECK(ssn.state.tasks[pending].status == sim::model::TaskStatus::ALLOCATED);
  // Pipelining the evicted pod back onto its own node and group undoes the eviction.
  stmt.pipeline(running, sim::NodeId(0), false);
  CHECK(ssn.state.tasks[running].status == sim::model::TaskStatus::RUNNING);
  stmt.rollback(cp);
  CHECK(fingerprint(ssn) == before);
  CHECK(stmt.empty());
}

TEST_CASE("statement commit turns allocations into binds", "[sched][statement]") {
  sim::Diagnostics d;
  sim::model::ClusterState state = sim::io::load_snapshot({{kCluster, "state.yaml"}}, {}, d);
  sim::sched::Session ssn = sim::sched::open_session(state);
  sim::sched::Statement stmt(ssn);
  stmt.allocate(sim::TaskId(1), sim::NodeId(0));
  stmt.commit();
  REQUIRE(ssn.binds.size() == 1);
  CHECK(ssn.state.tasks[sim::TaskId(1)].status == sim::model::TaskStatus::BINDING);
  CHECK(ssn.state.nodes[sim::NodeId(0)].idle[sim::index_of(sim::Resource::GPU)] == 0);
}

TEST_CASE("two copies of one pod evicted: each keeps its own status", "[sched][statement]") {
  // KAI's solver can be handed a pod twice in one scenario (a recorded victim's clone, then the
  // pod itself). Undoing the second eviction brings back the status that copy had, Running, while
  // the first copy is still evicted; undoing both restores the session (framework/statement.go).
  sim::Diagnostics d;
  sim::model::ClusterState state = sim::io::load_snapshot({{kCluster, "state.yaml"}}, {}, d);
  sim::sched::Session ssn = sim::sched::open_session(state);
  const Fingerprint before = fingerprint(ssn);
  const sim::TaskId running(0);
  using sim::model::TaskStatus;

  sim::sched::Statement stmt(ssn);
  stmt.declare_copy(running, 1, TaskStatus::RUNNING);
  stmt.declare_copy(running, 2, TaskStatus::RUNNING);
  stmt.evict(running, "reclaim", sim::JobId(1), 1);
  const std::size_t second = stmt.checkpoint();
  const Fingerprint evicted = fingerprint(ssn);
  stmt.evict(running, "reclaim", sim::JobId(1), 2);
  CHECK(ssn.state.tasks[running].status == TaskStatus::RELEASING);
  CHECK(stmt.copy_status(running, 1) == TaskStatus::RELEASING);
  stmt.rollback(second);
  CHECK(ssn.state.tasks[running].status == TaskStatus::RUNNING);  // the second copy's own status
  CHECK(stmt.copy_status(running, 1) == TaskStatus::RELEASING);
  CHECK_FALSE(fingerprint(ssn) == evicted);
  stmt.discard();
  CHECK(fingerprint(ssn) == before);
}

TEST_CASE("copies numbered in any order keep their own statuses", "[sched][statement]") {
  // The solver numbers copies 1, 2, ...; any other numbering is searched for instead of indexed.
  // Each copy answers with its own status whichever numbering it was declared in.
  sim::Diagnostics d;
  sim::model::ClusterState state = sim::io::load_snapshot({{kCluster, "state.yaml"}}, {}, d);
  using sim::model::TaskStatus;
  for (const auto& objects : {std::pair{1, 2}, std::pair{7, 3}}) {
    sim::sched::Session ssn = sim::sched::open_session(state);
    const Fingerprint before = fingerprint(ssn);
    const sim::TaskId running(0);
    const auto [first, second] = objects;
    sim::sched::Statement stmt(ssn);
    stmt.declare_copy(running, first, TaskStatus::RUNNING);
    stmt.declare_copy(running, second, TaskStatus::RUNNING);
    stmt.evict(running, "reclaim", sim::JobId(1), first);
    CHECK(stmt.copy_status(running, first) == TaskStatus::RELEASING);
    CHECK(stmt.copy_status(running, second) == TaskStatus::RUNNING);
    CHECK(stmt.copy_status(running, 0) == TaskStatus::RUNNING);  // the session's own copy
    const std::size_t cp = stmt.checkpoint();
    stmt.evict(running, "reclaim", sim::JobId(1), second);
    CHECK(stmt.copy_status(running, first) == TaskStatus::RELEASING);
    CHECK(stmt.copy_status(running, second) == TaskStatus::RELEASING);
    stmt.rollback(cp);
    CHECK(stmt.copy_status(running, second) == TaskStatus::RUNNING);
    CHECK_THROWS_AS(stmt.copy_status(running, 5), std::out_of_range);  // never declared
    stmt.discard();
    CHECK(fingerprint(ssn) == before);
  }
}
