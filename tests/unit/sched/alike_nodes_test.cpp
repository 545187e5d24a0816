// The node orders kept for alike pods answer what ordering every node afresh answers, as pods
// land, nodes fill, binpack's range of free GPUs moves and a pod is evicted; a refusal is kept
// only while no node changes.
#include "sim/sched/framework/alike_nodes.hpp"

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
using Outcome = sim::sched::AlikeNodeOrders::Outcome;

// Four 4-GPU nodes holding `held` GPUs each; `pending` one-GPU pods (p-00, p-01, ...), a
// two-GPU pod `wide` and a one-GPU pod `picky` with a node selector, all in queue q.
sim::model::ClusterState cluster(int pending, const std::vector<int>& held) {
  std::string yaml = R"(apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: q}
spec: {resources: {gpu: {quota: 16, limit: -1, overQuotaWeight: 1}, cpu: {quota: -1, limit: -1}, memory: {quota: -1, limit: -1}}}
)";
  for (int i = 0; i < 4; ++i) {
    const std::string node = "node-" + std::to_string(i);
    yaml += "---\napiVersion: v1\nkind: Node\nmetadata: {name: " + node +
            ", labels: {nvidia.com/gpu.memory: \"46068\", nvidia.com/gpu.count: \"4\"}}\n"
            "status: {allocatable: {cpu: \"64\", memory: 512Gi, pods: \"110\", nvidia.com/gpu: "
            "\"4\"}}\n";
    if (held[static_cast<std::size_t>(i)] == 0) continue;
    yaml += "---\napiVersion: v1\nkind: Pod\nmetadata: {name: run-" + std::to_string(i) +
            ", namespace: ns, labels: {kai.scheduler/queue: q}}\nspec: {schedulerName: "
            "kai-scheduler, nodeName: " +
            node + ", containers: [{name: c, resources: {limits: {nvidia.com/gpu: \"" +
            std::to_string(held[static_cast<std::size_t>(i)]) +
            "\"}}}]}\nstatus: {phase: Running}\n";
  }
  auto pod = [&](const std::string& name, int gpus) {
    yaml += "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
            ", namespace: ns, labels: {kai.scheduler/queue: q}}\nspec: {schedulerName: "
            "kai-scheduler, containers: [{name: c, resources: {limits: {nvidia.com/gpu: \"" +
            std::to_string(gpus) + "\"}}}]}\n";
  };
  for (int i = 0; i < pending; ++i)
    pod("p-" + std::string(i < 10 ? "0" : "") + std::to_string(i), 1);
  pod("wide", 2);
  yaml +=
      "---\napiVersion: v1\nkind: Pod\nmetadata: {name: picky, namespace: ns, labels: "
      "{kai.scheduler/queue: q}}\nspec: {schedulerName: kai-scheduler, nodeSelector: {pool: "
      "a}, containers: [{name: c, resources: {limits: {nvidia.com/gpu: \"1\"}}}]}\n";
  sim::Diagnostics d;
  return sim::io::load_snapshot({{yaml, "alike.yaml"}}, {}, d);
}

using sim::test::task_named;

std::vector<NodeId> all_nodes(const sim::model::ClusterState& state) {
  std::vector<NodeId> all;
  for (std::size_t i = 0; i < state.nodes.size(); ++i)
    all.emplace_back(static_cast<NodeId::value_type>(i));
  return all;
}

// The first node of the full order that passes FittingNode: what the allocate action takes.
std::string walked(sim::sched::Session& ssn, TaskId task, const std::vector<NodeId>& all) {
  for (NodeId n : sim::sched::ordered_nodes(ssn, task, all).rest()) {
    if (sim::sched::fitting_node(ssn, task, n)) return ssn.state.nodes[n].name;
  }
  return "";
}

}  // namespace

TEST_CASE("a kept order gives each alike pod the node the full walk gives it",
          "[sched][alike_nodes]") {
  // node-2 holds 3 GPUs and node-3 one.
  sim::model::ClusterState state = cluster(13, {0, 0, 3, 1});
  sim::sched::Session ssn = sim::sched::open_session(state);
  const std::vector<NodeId> all = all_nodes(state);
  sim::sched::AlikeNodeOrders orders(ssn);
  std::vector<std::string> taken;
  for (int i = 0; i < 13; ++i) {
    const TaskId pod = task_named(state, "p-" + std::string(i < 10 ? "0" : "") + std::to_string(i));
    if (i == 6) {
      // Another shape in between (the first of its kind: no order kept for it), and an
      // eviction: node-3's pod frees its GPU (releasing).
      const TaskId wide = task_named(state, "wide");
      NodeId node;
      REQUIRE(orders.first_fitting(wide, all, node) == Outcome::kNotKept);
      const std::string where = walked(ssn, wide, all);
      REQUIRE(!where.empty());
      node = state.find_node(where);
      sim::sched::Statement stmt(ssn);
      stmt.allocate(wide, node);
      stmt.evict(task_named(state, "run-3"), "reclaim", sim::JobId::invalid());
      stmt.commit();
    }
    const std::string expected = walked(ssn, pod, all);
    NodeId node;
    const Outcome outcome = orders.first_fitting(pod, all, node);
    if (i == 0) {
      // The first pod of its kind is ordered by the caller; the order is kept from the second.
      REQUIRE(outcome == Outcome::kNotKept);
      node = state.find_node(expected);
      taken.push_back(expected);
      sim::sched::Statement stmt(ssn);
      stmt.allocate(pod, node);
      stmt.commit();
      continue;
    }
    if (expected.empty()) {
      CHECK(outcome == Outcome::kNoneFits);
      taken.push_back("");
      continue;
    }
    REQUIRE(outcome == Outcome::kFound);
    CHECK(state.nodes[node].name == expected);
    taken.push_back(state.nodes[node].name);
    sim::sched::Statement stmt(ssn);
    stmt.allocate(pod, node);
    stmt.commit();
  }
  // Binpack fills the fullest node first: node-2's last GPU, then node-3's three, then node-0.
  CHECK(taken[0] == "node-2");
  CHECK(taken[1] == "node-3");
  CHECK(taken[4] == "node-0");
  // 16 GPUs: 4 held, the wide pod's 2 and 10 one-GPU pods; node-3's freed GPU is releasing and
  // counts as free, so the eleventh and later pods find none.
  CHECK(taken[10] == "node-3");
  CHECK(taken[11].empty());
  CHECK(taken[12].empty());
}

TEST_CASE("a refusal is kept for alike pods only while no node changes", "[sched][alike_nodes]") {
  sim::model::ClusterState state = cluster(2, {4, 4, 4, 4});  // every GPU held
  sim::sched::Session ssn = sim::sched::open_session(state);
  const std::vector<NodeId> all = all_nodes(state);
  sim::sched::AlikeNodeOrders orders(ssn);
  const TaskId first = task_named(state, "p-00");
  const TaskId second = task_named(state, "p-01");
  const TaskId picky = task_named(state, "picky");
  NodeId node;
  REQUIRE(orders.first_fitting(first, all, node) == Outcome::kNotKept);  // first of its kind
  REQUIRE(orders.first_fitting(first, all, node) == Outcome::kNoneFits);
  CHECK(orders.kept_refusal(second, all) == nullptr);  // nothing refused yet
  sim::sched::AlikeNodeOrders::Refusal refusal;
  refusal.reasons = {"node node-0: not enough free resources: gpu"};
  orders.keep_refusal(first, all, refusal);
  const sim::sched::AlikeNodeOrders::Refusal* kept = orders.kept_refusal(second, all);
  REQUIRE(kept != nullptr);
  CHECK(kept->reasons == refusal.reasons);
  // Same requests, but node rules of its own: judged on its own.
  CHECK(orders.kept_refusal(picky, all) == nullptr);
  // A node changes (a pod is evicted): the refusal no longer holds, and the pod now fits there
  // once the evicted pod's GPUs are released.
  sim::sched::Statement stmt(ssn);
  stmt.evict(task_named(state, "run-2"), "reclaim", sim::JobId::invalid());
  stmt.commit();
  CHECK(orders.kept_refusal(second, all) == nullptr);
  REQUIRE(orders.first_fitting(second, all, node) == Outcome::kFound);
  CHECK(state.nodes[node].name == "node-2");
}
