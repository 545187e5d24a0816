// Snapshot loading: the runbook's literal manifests, KAI's snapshot.json shape, pod-grouper
// defaults, and errors that name file, line and field.
#include "sim/io/snapshot.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "io/snapshot_error.hpp"

namespace {

std::string seed(const std::string& name) {
  std::ifstream in(std::string(KAISIM_SOURCE_DIR) + "/scenarios/seed/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string error_of(const std::string& text) { return snapshot_error(text, "snap.yaml"); }

}  // namespace

TEST_CASE("the runbook's manifests load: node, queues, bare pods grouped", "[io][snapshot][seed]") {
  sim::Diagnostics d;
  const auto state = sim::io::load_snapshot({{seed("l40s-node.yaml"), "l40s-node.yaml"},
                                             {seed("create-queues.yaml"), "create-queues.yaml"},
                                             {seed("nlp-pod.yaml"), "nlp-pod.yaml"},
                                             {seed("nlp-burst.yaml"), "nlp-burst.yaml"}},
                                            {}, d);
  CHECK(d.warnings.empty());
  REQUIRE(state.nodes.size() == 1);
  const auto& node = state.nodes[sim::NodeId(0)];
  CHECK(node.gpu_memory_mib == 46000);
  CHECK(node.gpu_memory_synced);
  CHECK(node.gpu_count() == 1);
  CHECK(state.queue_tree.size() == 4);
  REQUIRE(state.jobs.size() == 2);
  const auto& job = state.jobs[sim::JobId(0)];
  CHECK(job.name == "pg-nlp-batch-test-default-nlp-batch-test");  // pod-grouper name pg-<pod>-<uid>
  CHECK(job.queue_name == "team-nlp");
  CHECK(job.priority == 50);  // train
  CHECK(job.preemptible);
  const auto& task = state.tasks[sim::TaskId(1)];
  CHECK(task.name == "nlp-burst");
  CHECK(task.gpu.portion == 0.66);
  CHECK(task.status == sim::model::TaskStatus::PENDING);
  CHECK(task.placement->tolerations.size() == 1);
  CHECK(task.placement->node_selector.at("nvidia.com/gpu.present") == "true");
}

TEST_CASE("KAI's snapshot.json shape is read through rawObjects", "[io][snapshot]") {
  sim::Diagnostics d;
  const auto state =
      sim::io::load_snapshot({{R"({"config": {}, "schedulerParams": {}, "rawObjects": {
      "nodes": [{"metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "nvidia.com/gpu": "2"}}}],
      "queues": [{"metadata": {"name": "q"}, "spec": {"resources": {"gpu": {"quota": 1, "limit": -1}}}}],
      "podGroups": [{"metadata": {"name": "pg", "namespace": "a"}, "spec": {"queue": "q", "minMember": 2, "priorityClassName": "inference"}}],
      "pods": [{"metadata": {"name": "p0", "namespace": "a", "annotations": {"pod-group-name": "pg"}},
                "spec": {"schedulerName": "kai-scheduler", "containers": [{"name": "c", "resources": {"requests": {"cpu": "500m"}}}]}}]}})",
                               "snapshot.json"}},
                             {}, d);
  REQUIRE(state.jobs.size() == 1);
  CHECK(state.jobs[sim::JobId(0)].groups->pod_sets.at(0).min_available == 2);
  CHECK(state.jobs[sim::JobId(0)].priority == 125);
  CHECK_FALSE(state.jobs[sim::JobId(0)].preemptible);
  CHECK(sim::at(state.tasks[sim::TaskId(0)].request, sim::Resource::CPU) == 500);
}

TEST_CASE("bad snapshots name the file, line and field", "[io][snapshot][errors]") {
  CHECK(error_of("apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus:\n  allocatable: {cpu: "
                 "lots}\n") ==
        "snap.yaml:5:22: status.allocatable.cpu: not a valid quantity such as \"500m\", \"2\" or "
        "\"1Gi\": \"lots\"");
  CHECK(error_of("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {}\n") ==
        "snap.yaml:4:7: spec: missing required field \"containers\"");
  CHECK(error_of("apiVersion: v1\nkind: Node\nmetadata: {name: n}\n") ==
        "snap.yaml:1:1: node has neither status.allocatable nor status.capacity");
  // Found by the fuzzer: names that are not UTF-8 broke the JSON report.
  CHECK(error_of("apiVersion: v1\nkind: Node\nmetadata: {name: \"a\xd9"
                 "b\"}\n") == "snap.yaml:3:20: not valid UTF-8 text");
  CHECK(error_of("kind: PodGroup\nmetadata: {name: g}\nspec: {preemptibility: maybe}\n") ==
        "snap.yaml:3:24: spec.preemptibility: must be \"preemptible\" or \"non-preemptible\"");
}

TEST_CASE("pods naming a missing queue wait with a reason: unknown kinds warn", "[io][snapshot]") {
  sim::Diagnostics d;
  const auto state =
      sim::io::load_snapshot({{"kind: ConfigMap\nmetadata: {name: x}\n---\napiVersion: v1\nkind: "
                               "Pod\nmetadata: {name: p, labels: {kai.scheduler/queue: ghost}}\n"
                               "spec: {schedulerName: kai-scheduler, containers: [{name: c}]}\n",
                               "m.yaml"}},
                             {}, d);
  REQUIRE(state.jobs.size() == 1);
  CHECK(state.jobs[sim::JobId(0)].problem == "queue \"ghost\" does not exist");
  REQUIRE(d.warnings.size() == 1);
  CHECK_THAT(d.warnings[0], Catch::Contains("kind \"ConfigMap\" is not used by the scheduler"));
}

TEST_CASE("a PodGroup's subGroups become PodSets under their sets: pods join by label",
          "[io][snapshot][subgroups]") {
  sim::Diagnostics d;
  const auto state = sim::io::load_snapshot({{R"(
kind: PodGroup
metadata: {name: g, namespace: a}
spec:
  queue: q
  minMember: 5            # ignored once subGroups are given
  minSubGroup: 1
  subGroups:
    - {name: workers, minSubGroup: 1}
    - {name: leader, minMember: 1}
    - {name: gpu-workers, parent: workers, minMember: 2}
    - {name: cpu-workers, parent: workers}
---
kind: Pod
metadata: {name: p0, namespace: a, annotations: {pod-group-name: g}, labels: {kai.scheduler/subgroup-name: gpu-workers}}
spec: {schedulerName: kai-scheduler, containers: [{name: c}]}
---
kind: Pod
metadata: {name: p1, namespace: a, annotations: {pod-group-name: g}, labels: {kai.scheduler/subgroup-name: nosuch}}
spec: {schedulerName: kai-scheduler, containers: [{name: c}]}
)",
                                              "pg.yaml"}},
                                            {}, d);
  REQUIRE(state.jobs.size() == 1);
  const sim::model::SubGroupTree& tree = *state.jobs[sim::JobId(0)].groups;
  REQUIRE(tree.sets.size() == 2);
  CHECK(tree.sets[0].min_subgroup == 1);
  CHECK(tree.sets[1].name == "workers");
  CHECK(tree.sets[0].child_sets == std::vector<int>{1});
  REQUIRE(tree.pod_sets.size() == 3);
  CHECK(tree.pod_sets[static_cast<std::size_t>(tree.sets[0].pod_sets.at(0))].name == "leader");
  const int gpu_workers = tree.find_pod_set("gpu-workers");
  CHECK(tree.pod_sets[static_cast<std::size_t>(gpu_workers)].min_available == 2);
  CHECK(tree.pod_sets[static_cast<std::size_t>(tree.find_pod_set("cpu-workers"))].min_available ==
        0);
  CHECK(state.tasks[sim::TaskId(0)].pod_set == gpu_workers);
  CHECK(state.tasks[sim::TaskId(1)].pod_set == -1);  // unknown subgroup: never scheduled
}

TEST_CASE("bad subGroups name the field", "[io][snapshot][subgroups][errors]") {
  const std::string head = "kind: PodGroup\nmetadata: {name: g}\nspec:\n  queue: q\n  subGroups:\n";
  CHECK(error_of(head + "    - {name: a, parent: b}\n") ==
        "snap.yaml:6:25: spec.subGroups[0].parent: no subgroup is named \"b\"");
  CHECK(error_of(head + "    - {name: a}\n    - {name: a}\n") ==
        "snap.yaml:7:14: spec.subGroups[1].name: subgroup \"a\" is listed twice");
  CHECK(error_of(head + "    - {name: a, parent: b}\n    - {name: b, parent: a}\n") ==
        "snap.yaml:6:25: spec.subGroups[0].parent: subgroup parents form a cycle");
  CHECK(error_of(head + "    - {name: a, minMember: -1}\n") ==
        "snap.yaml:6:28: spec.subGroups[0].minMember: must be >= 0");
  CHECK(error_of("kind: PodGroup\nmetadata: {name: g}\nspec: {queue: q, subGroups: x}\n") ==
        "snap.yaml:3:29: spec.subGroups: expected a list, got \"x\"");
  CHECK(error_of("kind: PodGroup\nmetadata: {name: g}\nspec: {queue: q, minSubGroup: 3, subGroups: "
                 "[{name: a}]}\n") ==
        "snap.yaml:3:31: spec.minSubGroup: minSubGroup 3 is more than the 1 subgroups under it");
}

TEST_CASE("bad pod affinity terms name the field", "[io][snapshot][errors]") {
  const std::string head =
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c}]\n  "
      "affinity:\n"
      "    podAntiAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n";
  CHECK(error_of(head + "        - {topologyKey: h, labelSelector: {matchExpressions: [{key: a, "
                        "operator: Gt, values: ['1']}]}}\n") ==
        "snap.yaml:9:82: "
        "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]."
        "labelSelector"
        ".matchExpressions[0].operator: unknown operator \"Gt\" (In, NotIn, Exists, DoesNotExist)");
  CHECK(error_of(head +
                 "        - {topologyKey: h, namespaceSelector: {matchLabels: {team: a}}}\n") ==
        "snap.yaml:9:47: "
        "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]."
        "namespaceSelector: "
        "only an empty namespaceSelector ({}: every namespace) is supported");
  const std::string preferred =
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c}]\n  "
      "affinity:\n"
      "    podAffinity:\n      preferredDuringSchedulingIgnoredDuringExecution:\n";
  CHECK(error_of(preferred + "        - {weight: 0, podAffinityTerm: {topologyKey: h}}\n") ==
        "snap.yaml:9:20: "
        "spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: "
        "must be in the range 1-100, got 0");
  CHECK(error_of(preferred + "        - {weight: 5}\n") ==
        "snap.yaml:9:11: "
        "spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]: "
        "missing required field \"podAffinityTerm\"");
}
