// The victim search's bound (sched/actions/fit_alone): which preemptors it judges, and that it
// refuses only what AllocateJob itself refuses on the same state.
#include "sched/actions/fit_alone.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "gpu_node_manifest.hpp"
#include "sim/io/snapshot.hpp"
#include "sim/sched/actions/actions.hpp"
#include "sim/sched/cycle.hpp"
#include "sim/sched/framework/gang.hpp"

namespace {

std::string node(const std::string& name) { return sim::test::gpu_node_manifest(name); }

std::string running(const std::string& name, const std::string& on) {
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
         ", namespace: ns, labels: {kai.scheduler/queue: other}}\nspec: {schedulerName: "
         "kai-scheduler, nodeName: " +
         on +
         ", containers: [{name: c, resources: {limits: {nvidia.com/gpu: \"1\"}}}]}\n"
         "status: {phase: Running}\n---\n";
}

// Two 8-GPU nodes: n0 full, n1 with `busy_on_n1` GPUs taken; a pending gang `big` of two pods,
// each with the container `container` and the pod spec extra `spec` (the second pod's extra is
// `second_spec` when given, to make the two differ).
std::string cluster(int busy_on_n1, const std::string& container, const std::string& spec = "",
                    const std::string& second_spec = "") {
  std::string text = node("n0") + node("n1");
  text +=
      "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: other}\nspec: {resources: "
      "{gpu: {quota: 0, limit: -1, overQuotaWeight: 1}}}\n---\n"
      "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: mine}\nspec: {resources: "
      "{gpu: {quota: 16, limit: -1, overQuotaWeight: 1}}}\n---\n"
      "apiVersion: scheduling.run.ai/v2alpha2\nkind: PodGroup\nmetadata: {name: big, namespace: "
      "ns}\nspec: {queue: mine, minMember: 2}\n---\n";
  for (int i = 0; i < 8; ++i) text += running("a" + std::to_string(i), "n0");
  for (int i = 0; i < busy_on_n1; ++i) text += running("b" + std::to_string(i), "n1");
  for (int i = 0; i < 2; ++i) {
    text += "apiVersion: v1\nkind: Pod\nmetadata: {name: big-" + std::to_string(i) +
            ", namespace: ns, labels: {kai.scheduler/queue: mine, app: big}, annotations: "
            "{pod-group-name: big}}\nspec: {schedulerName: kai-scheduler, " +
            (i == 1 && !second_spec.empty() ? second_spec : spec) + "containers: [" + container +
            "]}\n---\n";
  }
  return text;
}

const std::string kTwoGpus = R"({name: c, resources: {limits: {nvidia.com/gpu: "2"}}})";

struct Judged {
  std::size_t alike = 0;   // pods alike_pending_tasks returned
  bool may_fit = false;    // may_fit_alone on every node
  bool allocated = false;  // AllocateJob (pipeline only, as the search places) on every node
};

Judged judge(const std::string& yaml) {
  sim::Diagnostics d;
  sim::model::ClusterState state = sim::io::load_snapshot({{yaml, "fit.yaml"}}, {}, d);
  sim::sched::Session ssn = sim::sched::open_session(state);
  sim::JobId big;
  for (std::size_t j = 0; j < state.jobs.size(); ++j) {
    const sim::JobId id(static_cast<sim::JobId::value_type>(j));
    if (state.jobs[id].name == "big") big = id;
  }
  REQUIRE(big.valid());
  const sim::sched::JobView view = sim::sched::full_view(ssn, big);
  const std::vector<sim::NodeId> nodes = sim::sched::all_nodes(ssn);
  Judged out;
  const std::vector<sim::TaskId> tasks = sim::sched::alike_pending_tasks(ssn, view);
  out.alike = tasks.size();
  if (!tasks.empty()) {
    out.may_fit = sim::sched::may_fit_alone(ssn, big, tasks, nodes);
    // The walk over the free-capacity index comes to the same answer as the walk over the list.
    std::vector<char> in_nodes(state.nodes.size(), 0);
    for (sim::NodeId n : nodes) in_nodes[n.index()] = 1;
    CHECK(sim::sched::may_fit_alone(ssn, big, tasks, nodes, &in_nodes) == out.may_fit);
  }
  sim::sched::Statement stmt(ssn);
  out.allocated = sim::sched::allocate_job(ssn, stmt, nodes, view, true);
  stmt.discard();
  return out;
}

}  // namespace

TEST_CASE("the bound refuses a gang only when AllocateJob cannot place it", "[sched][fit_alone]") {
  // n1 has 2 free GPUs: one 2-GPU pod fits, the gang of two does not.
  const Judged short_of_room = judge(cluster(6, kTwoGpus));
  CHECK(short_of_room.alike == 2);
  CHECK_FALSE(short_of_room.may_fit);
  CHECK_FALSE(short_of_room.allocated);
  // 4 free GPUs: both pods fit on n1.
  const Judged room = judge(cluster(4, kTwoGpus));
  CHECK(room.alike == 2);
  CHECK(room.may_fit);
  CHECK(room.allocated);
  // 3 free GPUs: still one pod only; the division of free GPUs by the request bounds the count.
  const Judged odd = judge(cluster(5, kTwoGpus));
  CHECK_FALSE(odd.may_fit);
  CHECK_FALSE(odd.allocated);
}

TEST_CASE("the bound judges only pods whose fit other pods can only make harder",
          "[sched][fit_alone]") {
  // A required pod affinity may be met by a pod placed first: not judged.
  const std::string affinity =
      "affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
      "[{labelSelector: {matchLabels: {app: big}}, topologyKey: kubernetes.io/hostname}]}}, ";
  CHECK(judge(cluster(4, kTwoGpus, affinity)).alike == 0);
  // An anti-affinity only gets harder as pods are placed: judged.
  const std::string anti =
      "affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
      "[{labelSelector: {matchLabels: {app: big}}, topologyKey: kubernetes.io/hostname}]}}, ";
  CHECK(judge(cluster(4, kTwoGpus, anti)).alike == 2);
  // Pods that differ in what a node filter reads are not alike.
  CHECK(judge(cluster(4, kTwoGpus, "", "nodeSelector: {zone: a}, ")).alike == 0);
  // Two fraction pods: placing one keeps its GPU groups even when the search undoes it.
  const std::string half = R"({name: c})";
  std::string fractions = cluster(4, half);
  const std::string marker = "annotations: {pod-group-name: big}";
  for (std::size_t at = fractions.find(marker); at != std::string::npos;
       at = fractions.find(marker, at + 1)) {
    fractions.replace(at, marker.size(),
                      "annotations: {pod-group-name: big, gpu-fraction: \"0.5\"}");
  }
  CHECK(judge(fractions).alike == 0);
}
