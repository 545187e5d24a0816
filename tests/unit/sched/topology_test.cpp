// The topology plugin's node sets and scores, and the solver's topology-aware idle-GPU filter, on
// two racks of two 2-GPU nodes (a Topology with levels zone, rack).
#include "sim/sched/plugins/topology.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "sched/actions/topology_gpus_filter.hpp"
#include "sim/io/snapshot.hpp"
#include "sim/sched/cycle.hpp"
#include "sim/sched/framework/gang.hpp"

namespace {

std::string node(const std::string& name, const std::string& rack) {
  return "---\napiVersion: v1\nkind: Node\nmetadata: {name: " + name +
         ", labels: {zone: z1, rack: " + rack +
         "}}\nstatus: {allocatable: {cpu: '8', memory: 64Gi, pods: '110', nvidia.com/gpu: '2'}}\n";
}

std::string pod(const std::string& name, const std::string& group, const std::string& node_name) {
  return "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
         ", namespace: a, uid: " + name + ", annotations: {pod-group-name: " + group +
         "}}\nspec: {schedulerName: kai-scheduler, " +
         (node_name.empty() ? "" : "nodeName: " + node_name + ", ") +
         "containers: [{name: c, resources: {limits: {nvidia.com/gpu: '1'}}}]}\nstatus: {phase: " +
         (node_name.empty() ? "Pending" : "Running") + "}\n";
}

// `used` one-GPU pods of group "busy" run, the first two on a0, the next two on b0; the job "job"
// has `pods` pending one-GPU pods and the given topologyConstraint.
sim::model::ClusterState cluster(int used, int pods, const std::string& constraint) {
  std::string text = R"(
apiVersion: kai.scheduler/v1alpha1
kind: Topology
metadata: {name: dc}
spec: {levels: [{nodeLabel: zone}, {nodeLabel: rack}]}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: q}
spec: {resources: {gpu: {quota: 8, limit: -1, overQuotaWeight: 1}}}
---
apiVersion: scheduling.run.ai/v2alpha2
kind: PodGroup
metadata: {name: busy, namespace: a}
spec: {queue: q}
---
apiVersion: scheduling.run.ai/v2alpha2
kind: PodGroup
metadata: {name: job, namespace: a}
spec: {queue: q, minMember: )" +
                     std::to_string(pods) + ", topologyConstraint: " + constraint + "}\n";
  text += node("a0", "ra") + node("a1", "ra") + node("b0", "rb") + node("b1", "rb");
  for (int i = 0; i < used; ++i)
    text += pod("busy-" + std::to_string(i), "busy", i < 2 ? "a0" : "b0");
  for (int i = 0; i < pods; ++i) text += pod("job-" + std::to_string(i), "job", "");
  sim::Diagnostics d;
  return sim::io::load_snapshot({{text, "topology.yaml"}}, {}, d);
}

sim::JobId job_named(const sim::sched::Session& ssn, const std::string& name) {
  for (sim::JobId j : ssn.jobs_by_name()) {
    if (ssn.state.jobs[j].name == name) return j;
  }
  FAIL("no job " << name);
  return sim::JobId::invalid();
}

// The node sets subset_nodes offers the job's root set, as node-name lists.
std::vector<std::vector<std::string>> node_sets(sim::sched::Session& ssn, std::string& why) {
  const sim::JobId j = job_named(ssn, "job");
  const sim::sched::JobView view = sim::sched::full_view(ssn, j);
  const std::vector<sim::TaskId> tasks = sim::sched::tasks_to_allocate(ssn, view, true);
  std::vector<sim::NodeId> nodes;
  for (std::size_t i = 0; i < ssn.state.nodes.size(); ++i)
    nodes.emplace_back(static_cast<sim::NodeId::value_type>(i));
  const sim::model::SubGroupSet& root = view.groups->sets[0];
  const std::vector<int> pod_sets{0};
  const auto sets = ssn.plugin<sim::sched::TopologyPlugin>()->subset_nodes(
      ssn, j, {root.name, root.topology, pod_sets}, tasks, nodes, why);
  REQUIRE(sets.has_value());
  std::vector<std::vector<std::string>> out;
  for (const auto& s : *sets) {
    out.emplace_back();
    for (sim::NodeId n : s) out.back().push_back(ssn.state.nodes[n].name);
    std::sort(out.back().begin(), out.back().end());
  }
  return out;
}

using Sets = std::vector<std::vector<std::string>>;

}  // namespace

TEST_CASE("a required rack offers the racks that hold the whole gang, fullest first",
          "[sched][topology]") {
  std::string why;
  sim::model::ClusterState two = cluster(2, 2, "{topology: dc, requiredTopologyLevel: rack}");
  sim::sched::Session ssn = sim::sched::open_session(two);
  REQUIRE(ssn.plugin<sim::sched::TopologyPlugin>() != nullptr);
  // Rack ra has 2 free GPUs left and rb 4: both hold 2 pods, ra is packed first.
  CHECK(node_sets(ssn, why) == Sets{{"a0", "a1"}, {"b0", "b1"}});

  sim::model::ClusterState three = cluster(2, 3, "{topology: dc, requiredTopologyLevel: rack}");
  sim::sched::Session ssn3 = sim::sched::open_session(three);
  CHECK(node_sets(ssn3, why) == Sets{{"b0", "b1"}});

  sim::model::ClusterState five = cluster(0, 5, "{topology: dc, requiredTopologyLevel: rack}");
  sim::sched::Session ssn5 = sim::sched::open_session(five);
  CHECK(node_sets(ssn5, why).empty());
  CHECK(why == "topology dc, requirement rack couldn't be satisfied for job <a/job>");
}

TEST_CASE("a preferred rack falls back to wider domains and scores nodes by rack order",
          "[sched][topology]") {
  std::string why;
  sim::model::ClusterState state = cluster(2, 3, "{topology: dc, preferredTopologyLevel: rack}");
  sim::sched::Session ssn = sim::sched::open_session(state);
  // Only rb holds the 3 pods, then zone z1. Not the root: KAI counts free resources from the
  // lowest domain holding every offered node (z1) down, so domains above it look empty.
  CHECK(node_sets(ssn, why) == Sets{{"b0", "b1"}, {"a0", "a1", "b0", "b1"}});
  // Racks in packing order: ra (3 pods on 2 free) before rb (3 on 4); the later rack scores
  // highest.
  const sim::model::Task& task = ssn.state.tasks[ssn.state.jobs[job_named(ssn, "job")].tasks[0]];
  CHECK(ssn.plugin<sim::sched::TopologyPlugin>()->node_score(ssn, task,
                                                             ssn.state.find_node("a0")) == 50'000);
  CHECK(ssn.plugin<sim::sched::TopologyPlugin>()->node_score(ssn, task,
                                                             ssn.state.find_node("b1")) == 100'000);
  ssn.plugin<sim::sched::TopologyPlugin>()->clear_scores();
  CHECK(ssn.plugin<sim::sched::TopologyPlugin>()->node_score(ssn, task,
                                                             ssn.state.find_node("b1")) == 0);
}

TEST_CASE("a required level with an unknown label fails the allocation with KAI's reason",
          "[sched][topology]") {
  std::string why;
  sim::model::ClusterState state = cluster(0, 2, "{topology: dc, requiredTopologyLevel: row}");
  sim::sched::Session ssn = sim::sched::open_session(state);
  const sim::JobId j = job_named(ssn, "job");
  const sim::sched::JobView view = sim::sched::full_view(ssn, j);
  std::vector<sim::NodeId> nodes{ssn.state.find_node("a0")};
  const std::vector<int> pod_sets{0};
  const auto sets = ssn.plugin<sim::sched::TopologyPlugin>()->subset_nodes(
      ssn, j, {"", view.groups->sets[0].topology, pod_sets},
      sim::sched::tasks_to_allocate(ssn, view, true), nodes, why);
  CHECK_FALSE(sets.has_value());
  CHECK(why.find("specified 'row' as the required topology constraint level") != std::string::npos);
}

TEST_CASE("the solver's topology filter needs one domain to hold a required set's GPUs",
          "[sched][topology]") {
  // Racks ra and rb have 2 free GPUs each; the job wants 3 in one rack.
  sim::model::ClusterState state = cluster(4, 3, "{topology: dc, requiredTopologyLevel: rack}");
  sim::sched::Session ssn = sim::sched::open_session(state);
  sim::sched::TopologyGpusFilter filter(ssn, sim::sched::full_view(ssn, job_named(ssn, "job")));
  REQUIRE(filter.active());
  CHECK_FALSE(filter.passes());
  const std::vector<sim::TaskId>& busy = ssn.state.jobs[job_named(ssn, "busy")].tasks;
  filter.add_victim(busy[2]);  // frees a GPU on b0: rb has 3
  CHECK(filter.passes());

  // The solver probes part of a job: only that part's GPUs count.
  const sim::JobId job = job_named(ssn, "job");
  const std::vector<sim::TaskId>& pending = ssn.state.jobs[job].tasks;
  sim::sched::TopologyGpusFilter two(ssn,
                                     sim::sched::partial_view(ssn, job, {pending[0], pending[1]}));
  CHECK(two.passes());  // 2 GPUs fit in either rack

  // 5 GPUs never fit a rack of 4, whatever the victims free.
  sim::model::ClusterState big = cluster(2, 5, "{topology: dc, requiredTopologyLevel: rack}");
  sim::sched::Session ssn_big = sim::sched::open_session(big);
  sim::sched::TopologyGpusFilter too_big(ssn_big,
                                         sim::sched::full_view(ssn_big, job_named(ssn_big, "job")));
  for (sim::TaskId t : ssn_big.state.jobs[job_named(ssn_big, "busy")].tasks) too_big.add_victim(t);
  CHECK_FALSE(too_big.passes());

  // Only required levels count.
  sim::model::ClusterState preferred =
      cluster(2, 3, "{topology: dc, preferredTopologyLevel: rack}");
  sim::sched::Session ssn_p = sim::sched::open_session(preferred);
  CHECK_FALSE(
      sim::sched::TopologyGpusFilter(ssn_p, sim::sched::full_view(ssn_p, job_named(ssn_p, "job")))
          .active());
}
