// Updating an assembled state with changed pods and PodGroups gives the state a new assembly of
// the changed objects gives: same ids in the same order, same books on every node.
#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "io/snapshot_fields.hpp"

namespace {

using sim::io::ParsedObjects;

const std::string kFile = "objects.yaml";

std::string node(const std::string& name) {
  return "{apiVersion: v1, kind: Node, metadata: {name: " + name +
         ", labels: {nvidia.com/gpu.memory: '46068'}}, status: {allocatable: {cpu: '32', memory: "
         "64Gi, pods: '110', "
         "nvidia.com/gpu: '2'}, conditions: [{type: Ready, status: 'True'}]}}";
}

// A KAI pod in its PodGroup, pending or bound to `on` and running.
std::string pod(const std::string& ns, const std::string& name, const std::string& group,
                const std::string& on, const std::string& fraction = "") {
  const std::string annotations = "{pod-group-name: " + group +
                                  (fraction.empty() ? "" : ", gpu-fraction: '" + fraction + "'") +
                                  "}";
  const std::string gpus = fraction.empty() ? ", resources: {limits: {nvidia.com/gpu: 1}}" : "";
  return "{apiVersion: v1, kind: Pod, metadata: {name: " + name + ", namespace: " + ns +
         ", uid: uid-" + name +
         ", creationTimestamp: '2026-01-01T00:00:00Z', labels: {kai.scheduler/queue: team-a}, "
         "annotations: " +
         annotations + "}, spec: {schedulerName: kai-scheduler" +
         (on.empty() ? "" : ", nodeName: " + on) + ", containers: [{name: c" + gpus +
         ", resources: {requests: {cpu: '1'}}}]}, status: {phase: " +
         (on.empty() ? "Pending" : "Running") + "}}";
}

std::string group(const std::string& ns, const std::string& name) {
  return "{apiVersion: scheduling.run.ai/v2alpha2, kind: PodGroup, metadata: {name: " + name +
         ", namespace: " + ns +
         ", creationTimestamp: '2026-01-01T00:00:00Z'}, spec: {minMember: 1, queue: team-a}}";
}

const std::string kQueue =
    "{apiVersion: scheduling.run.ai/v2, kind: Queue, metadata: {name: team-a}, spec: {resources: "
    "{gpu: {quota: 2, limit: -1, "
    "overQuotaWeight: 1}, cpu: {quota: -1, limit: -1, overQuotaWeight: 1}, memory: {quota: -1, "
    "limit: -1, overQuotaWeight: 1}}}}";

// Objects by key, as a replay's world keeps them (the assembly reads them in key order).
class Objects {
 public:
  void put(const std::string& key, const std::string& yaml) {
    sim::Diagnostics d;
    parsed_[key] = sim::io::parse_objects(sim::io::Field(YAML::Load(yaml), "", &kFile), d);
  }
  void drop(const std::string& key) { parsed_.erase(key); }
  const ParsedObjects* at(const std::string& key) const { return parsed_.at(key).get(); }
  sim::model::ClusterState assemble() const {
    std::vector<const ParsedObjects*> parts;
    for (const auto& [key, p] : parsed_) parts.push_back(p.get());
    sim::Diagnostics d;
    sim::io::SnapshotOptions options;
    options.now_ns = 1;
    return sim::io::assemble_cluster_state(parts, options, d);
  }
  bool update(sim::model::ClusterState& state, const sim::io::PodChanges& changes) const {
    sim::Diagnostics d;
    return sim::io::update_pods(
        state, changes, [&](const std::string& name) { return at("Node//" + name); }, d);
  }

 private:
  std::map<std::string, std::shared_ptr<const ParsedObjects>> parsed_;
};

void check_same(const sim::model::ClusterState& got, const sim::model::ClusterState& want) {
  REQUIRE(got.tasks.size() == want.tasks.size());
  for (const sim::model::Task& t : want.tasks) {
    const sim::model::Task& g = got.tasks[t.id];
    CAPTURE(t.key());
    CHECK(g.key() == t.key());
    CHECK(g.id == t.id);
    CHECK(g.job == t.job);
    CHECK(g.status == t.status);
    CHECK(g.node == t.node);
    CHECK((g.accepted == t.accepted).all());
  }
  REQUIRE(got.jobs.size() == want.jobs.size());
  for (std::size_t i = 0; i < want.jobs.size(); ++i) {
    const sim::JobId id(static_cast<sim::JobId::value_type>(i));
    CHECK(got.jobs[id].name == want.jobs[id].name);
    CHECK(got.jobs[id].tasks == want.jobs[id].tasks);
  }
  for (std::size_t i = 0; i < want.nodes.size(); ++i) {
    const sim::NodeId id(static_cast<sim::NodeId::value_type>(i));
    CAPTURE(want.nodes[id].name);
    CHECK((got.nodes[id].idle == want.nodes[id].idle).all());
    CHECK((got.nodes[id].used == want.nodes[id].used).all());
    CHECK(got.nodes[id].used_shared_mib == want.nodes[id].used_shared_mib);
    REQUIRE(got.nodes[id].tasks.size() == want.nodes[id].tasks.size());
    for (const auto& [task, rec] : want.nodes[id].tasks) {
      REQUIRE(got.nodes[id].tasks.contains(task));
      CHECK(got.nodes[id].tasks.at(task).status == rec.status);
    }
  }
}

}  // namespace

TEST_CASE("an update adds, changes and removes pods as a new assembly would", "[io][snapshot]") {
  Objects objects;
  objects.put("Node//n1", node("n1"));
  objects.put("Node//n2", node("n2"));
  objects.put("Queue//team-a", kQueue);
  for (const char* name : {"p1", "p3", "p5"})
    objects.put(std::string("PodGroup/a/g-") + name, group("a", std::string("g-") + name));
  objects.put("Pod/a/p1", pod("a", "p1", "g-p1", "n1"));
  objects.put("Pod/a/p3", pod("a", "p3", "g-p3", ""));
  objects.put("Pod/a/p5", pod("a", "p5", "g-p5", "n2", "0.5"));
  sim::model::ClusterState state = objects.assemble();
  REQUIRE(sim::io::updatable(state));

  // p2 arrives (between p1 and p3), p3 is bound to n2 and runs, p5 completes with its PodGroup.
  objects.put("PodGroup/a/g-p2", group("a", "g-p2"));
  objects.put("Pod/a/p2", pod("a", "p2", "g-p2", ""));
  objects.put("Pod/a/p3", pod("a", "p3", "g-p3", "n2", "0.5"));
  objects.drop("Pod/a/p5");
  objects.drop("PodGroup/a/g-p5");
  sim::io::PodChanges changes;
  changes.pods = {objects.at("Pod/a/p3"), objects.at("Pod/a/p2")};
  changes.groups = {objects.at("PodGroup/a/g-p2")};
  changes.gone_pods = {"a/p5"};
  changes.gone_groups = {"a/g-p5"};
  REQUIRE(objects.update(state, changes));
  check_same(state, objects.assemble());
  CHECK(state.tasks[sim::TaskId(1)].name == "p2");

  // A pod in a namespace that sorts first shifts every id up, on nodes that are not rebuilt too
  // (p3 on n2); then p1 completes and they shift down again.
  objects.put("PodGroup/0/g-p0", group("0", "g-p0"));
  objects.put("Pod/0/p0", pod("0", "p0", "g-p0", "n1"));
  sim::io::PodChanges arrival;
  arrival.pods = {objects.at("Pod/0/p0")};
  arrival.groups = {objects.at("PodGroup/0/g-p0")};
  REQUIRE(objects.update(state, arrival));
  check_same(state, objects.assemble());
  CHECK(state.nodes[sim::NodeId(1)].tasks.contains(sim::TaskId(3)));  // p3, id 2 before

  objects.drop("Pod/a/p1");
  objects.drop("PodGroup/a/g-p1");
  sim::io::PodChanges departure;
  departure.gone_pods = {"a/p1"};
  departure.gone_groups = {"a/g-p1"};
  REQUIRE(objects.update(state, departure));
  check_same(state, objects.assemble());
}

TEST_CASE("random arrivals, binds and completions: every update equals a new assembly",
          "[io][snapshot]") {
  // Namespaces whose keys sort around the '/' ("a-b/..." < "a/..." < "ab/...") and names that sort
  // as text ("p10" < "p2"), so pods land before, between and after the others.
  const std::vector<std::string> namespaces = {"0", "a", "a-b", "ab", "b"};
  Objects objects;
  for (const char* n : {"n1", "n2", "n3"}) objects.put(std::string("Node//") + n, node(n));
  objects.put("Queue//team-a", kQueue);
  sim::model::ClusterState state = objects.assemble();
  std::vector<std::pair<std::string, std::string>> pending, bound;  // (namespace, name)
  std::mt19937 random(7);
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(random() % n); };
  int next = 0;
  for (int step = 0; step < 80; ++step) {
    CAPTURE(step);
    sim::io::PodChanges changes;
    std::vector<std::string> changed_pods, changed_groups;
    for (std::size_t op = 0, ops = 1 + pick(3); op < ops; ++op) {
      const std::size_t kind = pick(3);
      if (kind == 0 ||
          (pending.empty() && bound.empty())) {  // a pod arrives, pending or already running
        const std::string ns = namespaces[pick(namespaces.size())],
                          name = "p" + std::to_string(next++);
        const std::string on = pick(2) == 0 ? "" : "n" + std::to_string(1 + pick(3));
        objects.put("PodGroup/" + ns + "/g-" + name, group(ns, "g-" + name));
        objects.put("Pod/" + ns + "/" + name,
                    pod(ns, name, "g-" + name, on, pick(2) == 0 ? "0.5" : ""));
        changed_pods.push_back("Pod/" + ns + "/" + name);
        changed_groups.push_back("PodGroup/" + ns + "/g-" + name);
        (on.empty() ? pending : bound).emplace_back(ns, name);
      } else if (kind == 1 && !pending.empty()) {  // a pending pod is bound and runs
        const std::size_t i = pick(pending.size());
        const auto [ns, name] = pending[i];
        pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
        objects.put("Pod/" + ns + "/" + name,
                    pod(ns, name, "g-" + name, "n" + std::to_string(1 + pick(3)), "0.5"));
        changed_pods.push_back("Pod/" + ns + "/" + name);
        bound.emplace_back(ns, name);
      } else if (!bound.empty()) {  // a running pod completes with its PodGroup
        const std::size_t i = pick(bound.size());
        const auto [ns, name] = bound[i];
        bound.erase(bound.begin() + static_cast<std::ptrdiff_t>(i));
        objects.drop("Pod/" + ns + "/" + name);
        objects.drop("PodGroup/" + ns + "/g-" + name);
        std::erase(changed_pods, "Pod/" + ns + "/" + name);
        std::erase(changed_groups, "PodGroup/" + ns + "/g-" + name);
        changes.gone_pods.push_back(ns + "/" + name);
        changes.gone_groups.push_back(ns + "/g-" + name);
      }
    }
    std::sort(changed_pods.begin(), changed_pods.end());
    changed_pods.erase(std::unique(changed_pods.begin(), changed_pods.end()), changed_pods.end());
    for (const std::string& key : changed_pods) changes.pods.push_back(objects.at(key));
    for (const std::string& key : changed_groups) changes.groups.push_back(objects.at(key));
    REQUIRE(objects.update(state, changes));
    check_same(state, objects.assemble());
  }
  CHECK(state.tasks.size() == pending.size() + bound.size());
}

TEST_CASE("an update refuses what it does not follow and leaves the state as it was",
          "[io][snapshot]") {
  Objects objects;
  objects.put("Node//n1", node("n1"));
  objects.put("Queue//team-a", kQueue);
  objects.put("PodGroup/a/g-p1", group("a", "g-p1"));
  objects.put("Pod/a/p1", pod("a", "p1", "g-p1", ""));
  sim::model::ClusterState state = objects.assemble();
  const sim::model::ClusterState before = objects.assemble();

  SECTION("a PodGroup whose name another namespace uses") {
    objects.put("PodGroup/b/g-p1", group("b", "g-p1"));
    sim::io::PodChanges changes;
    changes.groups = {objects.at("PodGroup/b/g-p1")};
    CHECK_FALSE(objects.update(state, changes));
  }
  SECTION("a pod without a PodGroup annotation, which the pod-grouper would group") {
    objects.put("Pod/a/bare",
                "{apiVersion: v1, kind: Pod, metadata: {name: bare, namespace: a}, spec: "
                "{schedulerName: kai-scheduler, "
                "containers: [{name: c}]}, status: {phase: Pending}}");
    sim::io::PodChanges changes;
    changes.pods = {objects.at("Pod/a/bare")};
    CHECK_FALSE(objects.update(state, changes));
  }
  check_same(state, before);
}

TEST_CASE("a state with PodGroup names shared across namespaces is not updatable",
          "[io][snapshot]") {
  Objects objects;
  objects.put("Queue//team-a", kQueue);
  objects.put("PodGroup/a/g", group("a", "g"));
  objects.put("PodGroup/b/g", group("b", "g"));
  CHECK_FALSE(sim::io::updatable(objects.assemble()));
}
