// The session's dense table of free resources and its index of nodes by free GPUs
// (sched/framework/free_capacity.hpp) agree with the nodes' own books after every kind of change
// a statement makes: placements, evictions, pipelining, and undoing them.
#include "sim/sched/framework/free_capacity.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "gpu_node_manifest.hpp"
#include "sim/io/snapshot.hpp"
#include "sim/sched/actions/actions.hpp"
#include "sim/sched/cycle.hpp"
#include "sim/sched/framework/node_fit.hpp"
#include "sim/sched/framework/statement.hpp"
#include "task_named.hpp"

namespace {

std::string node(const std::string& name) { return sim::test::gpu_node_manifest(name); }

std::string pod(const std::string& name, const std::string& on, int gpus) {
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
         ", namespace: ns, labels: {kai.scheduler/queue: q}}\nspec: {schedulerName: "
         "kai-scheduler, " +
         (on.empty() ? "" : "nodeName: " + on + ", ") +
         "containers: [{name: c, resources: {limits: {nvidia.com/gpu: \"" + std::to_string(gpus) +
         "\"}}}]}\nstatus: {phase: " + (on.empty() ? "Pending" : "Running") + "}\n---\n";
}

// Nodes n0..n3 with 8, 5, 2 and 0 GPUs taken by running pods, a CPU-only node c0, and a
// pending 3-GPU pod.
std::string cluster() {
  std::string text = node("n0") + node("n1") + node("n2") + node("n3");
  text +=
      "apiVersion: v1\nkind: Node\nmetadata: {name: c0}\nstatus: {allocatable: {cpu: \"32\", "
      "memory: 128Gi, pods: \"110\"}}\n---\n";
  text +=
      "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: q}\nspec: {resources: "
      "{gpu: {quota: 32, limit: -1, overQuotaWeight: 1}}}\n---\n";
  text += pod("r0", "n0", 8) + pod("r1", "n1", 5) + pod("r2", "n2", 2);
  return text + pod("wait", "", 3);
}

using sim::test::task_named;

// Every answer of the table and the index against the nodes' books as they are now.
void check_against_books(sim::sched::Session& ssn) {
  sim::sched::FreeCapacity& free = ssn.free_capacity;
  constexpr int kGpu = sim::index_of(sim::Resource::GPU);
  for (double at_least : {0.0, 1.0, 2.0, 3.0, 3.5, 6.0, 8.0, 9.0}) {
    std::set<std::string> walked;
    free.for_each_with_gpus(at_least, [&](sim::NodeId id) {
      walked.insert(ssn.state.nodes[id].name);
      return false;
    });
    for (std::size_t i = 0; i < ssn.state.nodes.size(); ++i) {
      const sim::NodeId id(static_cast<sim::NodeId::value_type>(i));
      const sim::model::Node& n = ssn.state.nodes[id];
      const double gpus = n.non_allocated()[kGpu];
      INFO("node " << n.name << " with " << gpus << " free GPUs, asked " << at_least);
      // Every node with enough is walked; none with fewer whole GPUs than asked.
      if (gpus >= at_least) CHECK(walked.count(n.name) == 1);
      if (std::floor(gpus) < std::floor(at_least)) CHECK(walked.count(n.name) == 0);
      CHECK((free.of(id) == n.non_allocated()).all());
      CHECK(free.gpus_with_shared(id) ==
            n.idle_gpus_with_shared() + n.releasing_gpus_with_shared());
    }
  }
  // Binpack's range reads the free amounts of the nodes that have the resource at all (the
  // CPU-only node has no GPUs to give and is skipped for GPUs, not for CPU).
  for (const sim::Resource resource : {sim::Resource::GPU, sim::Resource::CPU}) {
    const int r = sim::index_of(resource);
    std::vector<double> from_table, from_books;
    free.for_each_free(sim::sched::all_nodes(ssn), r,
                       [&](double amount) { from_table.push_back(amount); });
    for (const sim::model::Node& n : ssn.state.nodes) {
      if (n.allocatable[r] != 0) from_books.push_back(n.non_allocated()[r]);
    }
    CHECK(from_table == from_books);
    CHECK(from_table.size() == (resource == sim::Resource::GPU ? 4u : 5u));
  }
}

// The node order of a whole-GPU pod found through the index equals the one found by walking the
// offered nodes, for every node and for a part of them.
void check_orders(sim::sched::Session& ssn, sim::TaskId task) {
  const std::vector<sim::NodeId> every = sim::sched::all_nodes(ssn);
  const std::vector<sim::NodeId> some(every.begin() + 1, every.begin() + 3);
  for (const std::vector<sim::NodeId>* offered : {&every, &some}) {
    std::vector<char> in_offered(ssn.state.nodes.size(), 0);
    for (sim::NodeId n : *offered) in_offered[n.index()] = 1;
    const std::vector<sim::NodeId> walked =
        sim::sched::ordered_nodes(ssn, task, *offered, true).rest();
    const std::vector<sim::NodeId> indexed =
        sim::sched::ordered_nodes(ssn, task, *offered, true, &in_offered).rest();
    CHECK(indexed == walked);
  }
}

}  // namespace

TEST_CASE("the free-capacity table and index follow every change a statement makes",
          "[sched][free_capacity]") {
  sim::Diagnostics d;
  sim::model::ClusterState state = sim::io::load_snapshot({{cluster(), "free.yaml"}}, {}, d);
  sim::sched::Session ssn = sim::sched::open_session(state);
  check_against_books(ssn);
  const auto& nodes = ssn.state.nodes;
  auto free_gpus = [&](const std::string& name) {
    for (const auto& n : nodes) {
      if (n.name == name) return n.non_allocated()[sim::index_of(sim::Resource::GPU)];
    }
    return -1.0;
  };
  REQUIRE(free_gpus("n1") == 3);
  const sim::TaskId wait = task_named(state, "wait");
  check_orders(ssn, wait);
  {
    std::vector<char> in_offered(ssn.state.nodes.size(), 1);
    // n1 (3 free GPUs), n2 (6) and n3 (8) take the 3-GPU pod; n0 (none) does not.
    CHECK(sim::sched::ordered_nodes(ssn, wait, sim::sched::all_nodes(ssn), true, &in_offered)
              .rest()
              .size() == 3);
  }

  sim::sched::Statement stmt(ssn);
  // The pending pod placed: a node loses 3 GPUs.
  const sim::JobId waiting = ssn.state.tasks[task_named(state, "wait")].job;
  REQUIRE(sim::sched::allocate_job(ssn, stmt, sim::sched::all_nodes(ssn),
                                   sim::sched::full_view(ssn, waiting), false));
  check_against_books(ssn);
  check_orders(ssn, wait);
  // An eviction: n0's pod releases its 8 GPUs.
  stmt.evict(task_named(state, "r0"), "reclaim", waiting);
  CHECK(free_gpus("n0") == 8);
  check_against_books(ssn);
  check_orders(ssn, wait);
  // Undone: every node as it was, and the index with it.
  stmt.discard();
  CHECK(free_gpus("n0") == 0);
  CHECK(free_gpus("n1") == 3);
  check_against_books(ssn);
}
