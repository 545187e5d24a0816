// The podaffinity plugin's node scores (Kubernetes InterPodAffinity PreScore and Score as KAI
// calls them): preferred terms of the pod and of the pods already placed, summed per domain.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "sched/plugins/pod_affinity.hpp"
#include "sim/io/snapshot.hpp"
#include "sim/sched/cycle.hpp"
#include "sim/sched/framework/node_fit.hpp"
#include "sim/sched/framework/statement.hpp"
#include "task_named.hpp"

namespace {

using sim::NodeId;
using sim::TaskId;

// Pod `name` in namespace test with `labels` and `affinity` (spec.affinity YAML, flow style),
// pending or running on `node`.
std::string pod(const std::string& name, const std::string& labels, const std::string& affinity,
                const std::string& node = "", const std::string& cpu = "100m") {
  return "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
         ", namespace: test, uid: " + name + ", labels: {" + labels +
         "}}\nspec:\n  schedulerName: kai-scheduler\n" +
         (node.empty() ? "" : "  nodeName: " + node + "\n") +
         (affinity.empty() ? "" : "  affinity: " + affinity + "\n") +
         "  containers: [{name: c, resources: {requests: {cpu: " + cpu + "}}}]\n" +
         (node.empty() ? "" : "status: {phase: Running}\n");
}

// Nodes n1 and n2 in zone a, n3 in zone b, each labelled with its own name under `host`.
std::string nodes() {
  std::string out;
  for (const auto& [name, zone] :
       std::vector<std::pair<std::string, std::string>>{{"n1", "a"}, {"n2", "a"}, {"n3", "b"}}) {
    out += "---\napiVersion: v1\nkind: Node\nmetadata: {name: " + name +
           ", labels: {host: " + name + ", zone: " + zone +
           "}}\nstatus: {allocatable: {cpu: \"8\", memory: 16Gi, pods: \"110\"}}\n";
  }
  return out;
}

sim::model::ClusterState cluster(const std::string& pods) {
  sim::Diagnostics d;
  sim::model::ClusterState state =
      sim::io::load_snapshot({{nodes() + pods, "affinity.yaml"}}, {}, d);
  state.config.plugins.pod_affinity = true;
  return state;
}

using sim::test::task_named;

std::vector<std::string> names(const sim::model::ClusterState& state,
                               const std::vector<NodeId>& ids) {
  std::vector<std::string> out;
  for (NodeId id : ids) out.push_back(state.nodes[id].name);
  return out;
}

std::vector<NodeId> all_nodes(const sim::model::ClusterState& state) {
  std::vector<NodeId> out;
  for (std::size_t i = 0; i < state.nodes.size(); ++i)
    out.push_back(NodeId(static_cast<NodeId::value_type>(i)));
  return out;
}

const std::string kPreferMyLabel =
    "{podAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 10, "
    "podAffinityTerm: "
    "{labelSelector: {matchLabels: {my-label: a}}, topologyKey: host}}]}}";

}  // namespace

// The three cases of KAI's plugins/podaffinity/podaffinity_test.go, on n1.
TEST_CASE("podaffinity: KAI's plugin cases score 0, 0 and twice the weight",
          "[sched][podaffinity]") {
  SECTION("no affinity anywhere: PreScore skips") {
    sim::model::ClusterState state =
        cluster(pod("existing", "", "", "n1") + pod("incoming", "", ""));
    sim::sched::Session ssn = sim::sched::open_session(state);
    const auto scores = sim::sched::PreferredAffinityScores::prescore(
        ssn, state.tasks[task_named(state, "incoming")], true);
    CHECK(scores.skip());
    CHECK(scores.score(state.nodes[state.find_node("n1")]) == 0);
  }
  SECTION("the placed pod prefers a label the incoming pod lacks") {
    sim::model::ClusterState state =
        cluster(pod("existing", "my-label: a", kPreferMyLabel, "n1") + pod("incoming", "", ""));
    sim::sched::Session ssn = sim::sched::open_session(state);
    CHECK(sim::sched::PreferredAffinityScores::prescore(
              ssn, state.tasks[task_named(state, "incoming")], true)
              .skip());
  }
  SECTION("both prefer each other's label: each term adds its weight") {
    sim::model::ClusterState state = cluster(pod("existing", "my-label: a", kPreferMyLabel, "n1") +
                                             pod("incoming", "my-label: a", kPreferMyLabel));
    sim::sched::Session ssn = sim::sched::open_session(state);
    const auto scores = sim::sched::PreferredAffinityScores::prescore(
        ssn, state.tasks[task_named(state, "incoming")], true);
    CHECK_FALSE(scores.skip());
    CHECK(scores.score(state.nodes[state.find_node("n1")]) == 20);
    CHECK(scores.score(state.nodes[state.find_node("n2")]) == 0);
  }
}

TEST_CASE("podaffinity: preferred anti-affinity subtracts in the whole zone and outweighs binpack",
          "[sched][podaffinity]") {
  const std::string avoid_web =
      "{podAntiAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 50, "
      "podAffinityTerm: "
      "{labelSelector: {matchLabels: {app: web}}, topologyKey: zone}}]}}";
  sim::model::ClusterState state =
      cluster(pod("web-0", "app: web", "", "n1") + pod("web-1", "app: web", avoid_web));
  sim::sched::Session ssn = sim::sched::open_session(state);
  const TaskId incoming = task_named(state, "web-1");
  const auto scores =
      sim::sched::PreferredAffinityScores::prescore(ssn, state.tasks[incoming], true);
  CHECK(scores.score(state.nodes[state.find_node("n1")]) == -50);
  CHECK(scores.score(state.nodes[state.find_node("n2")]) == -50);
  CHECK(scores.score(state.nodes[state.find_node("n3")]) == 0);
  // Binpack alone would put the pod next to web-0 on n1.
  CHECK(names(state, sim::sched::ordered_nodes(ssn, incoming, all_nodes(state)).rest()).front() ==
        "n3");
  state.config.plugins.pod_affinity = false;
  sim::sched::Session without = sim::sched::open_session(state);
  CHECK(
      names(state, sim::sched::ordered_nodes(without, incoming, all_nodes(state)).rest()).front() ==
      "n1");
}

TEST_CASE("podaffinity: required terms of placed pods add nothing (hard pod affinity weight 0)",
          "[sched][podaffinity]") {
  const std::string require_web =
      "{podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: "
      "{matchLabels: {app: web}}, "
      "topologyKey: host}]}}";
  sim::model::ClusterState state =
      cluster(pod("sidecar", "app: side", require_web, "n2") + pod("web", "app: web", ""));
  sim::sched::Session ssn = sim::sched::open_session(state);
  CHECK(sim::sched::PreferredAffinityScores::prescore(ssn, state.tasks[task_named(state, "web")],
                                                      true)
            .skip());
}

TEST_CASE("podaffinity: a task skipped once in a session scores 0 for the rest of it",
          "[sched][podaffinity]") {
  const std::string prefer_web =
      "{podAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 100, "
      "podAffinityTerm: "
      "{labelSelector: {matchLabels: {app: web}}, topologyKey: host}}]}}";
  sim::model::ClusterState state = cluster(
      pod("filler", "", "", "n1", "4") + pod("web", "app: web", "") + pod("cache", "", prefer_web));
  sim::sched::Session ssn = sim::sched::open_session(state);
  const TaskId cache = task_named(state, "cache");
  // No web pod is placed yet: PreScore skips, and binpack prefers the fullest node.
  CHECK(names(state, sim::sched::ordered_nodes(ssn, cache, all_nodes(state)).rest()).front() ==
        "n1");
  // web is placed on n3 within the session; PreScore would now find it, but the plugin keeps 0.
  sim::sched::Statement stmt(ssn);
  stmt.allocate(task_named(state, "web"), state.find_node("n3"));
  CHECK_FALSE(sim::sched::PreferredAffinityScores::prescore(ssn, state.tasks[cache], true).skip());
  CHECK(names(state, sim::sched::ordered_nodes(ssn, cache, all_nodes(state)).rest()).front() ==
        "n1");
  // A new session has no memory of the skip.
  stmt.commit();
  sim::sched::Session fresh = sim::sched::open_session(state);
  CHECK(names(state, sim::sched::ordered_nodes(fresh, cache, all_nodes(state)).rest()).front() ==
        "n3");
}
