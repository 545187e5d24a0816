// The dynamicresources plugin on node n0 with two GPU devices (driver gpu.nvidia.com) and one NIC
// (driver nic.example.com): device search with backtracking, `All` requests, and claims given
// back on a statement's undo.
#include "sched/plugins/dra.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "sim/io/snapshot.hpp"
#include "sim/sched/cycle.hpp"
#include "sim/sched/framework/invariants.hpp"
#include "sim/sched/framework/statement.hpp"
#include "sim/sched/plugins/dra_devices.hpp"
#include "task_named.hpp"

namespace {

sim::sched::DraDevices& devices(sim::sched::Session& ssn) {
  return ssn.plugin<sim::sched::DynamicResourcesPlugin>()->devices();
}

// Node n0, without device-plugin GPUs: its GPUs come from ResourceSlices.
const std::string kNode = R"(
apiVersion: v1
kind: Node
metadata: {name: n0}
status: {allocatable: {cpu: "16", memory: 64Gi, pods: "110"}}
)";

std::string cluster(const std::string& claims, const std::string& pods) {
  return kNode + R"(---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: any}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.nvidia.com}
spec: {selectors: [{cel: {expression: "device.driver == 'gpu.nvidia.com'"}}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: gpus}
spec: {driver: gpu.nvidia.com, pool: {name: n0}, nodeName: n0, devices: [{name: gpu-0}, {name: gpu-1}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: nics}
spec: {driver: nic.example.com, pool: {name: n0}, nodeName: n0, devices: [{name: nic-0}]}
)" + claims +
         pods;
}

std::string claim(const std::string& name, const std::string& cls, const std::string& mode,
                  const std::string& status = "") {
  return "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: " + name +
         ", namespace: a, labels: {kai.scheduler/queue: q}}\nspec: {devices: {requests: [{name: r, "
         "exactly: {deviceClassName: " +
         cls + ", " + mode + "}}]}}\n" + status;
}

std::string pod(const std::string& name, const std::vector<std::string>& claims,
                const std::string& node = "") {
  std::string refs;
  for (const std::string& c : claims)
    refs +=
        std::string(refs.empty() ? "" : ", ") + "{name: " + c + ", resourceClaimName: " + c + "}";
  return "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
         ", namespace: a, uid: " + name +
         ", labels: {kai.scheduler/queue: q}}\nspec: {schedulerName: kai-scheduler, " +
         (node.empty() ? "" : "nodeName: " + node + ", ") +
         "containers: [{name: c}], resourceClaims: [" + refs +
         "]}\nstatus: {phase: " + (node.empty() ? "Pending" : "Running") + "}\n";
}

sim::model::ClusterState load(const std::string& text) {
  sim::Diagnostics d;
  return sim::io::load_snapshot({{text, "dra.yaml"}}, {}, d);
}

using sim::test::task_named;

}  // namespace

TEST_CASE("the filter searches all claims together, the allocation claim by claim",
          "[sched][dra]") {
  // "a" takes any one device, "b" both GPUs: taking gpu-0 for "a" first would strand "b".
  sim::model::ClusterState state =
      load(cluster(claim("a", "any", "count: 1") + claim("b", "gpu.nvidia.com", "count: 2"),
                   pod("p", {"a", "b"})));
  sim::sched::Session ssn = sim::sched::open_session(state);
  const sim::TaskId p = task_named(state, "p");
  // filter: one search over both claims backtracks and finds nic-0 for "a".
  CHECK(
      sim::sched::dra_filter(ssn, devices(ssn), ssn.state.tasks[p], ssn.state.nodes[sim::NodeId(0)])
          .empty());
  // The allocate handler, like KAI's allocateResourceClaim, allocates each claim on its own: "a"
  // gets the first free device and "b" is left unallocated (and unreserved).
  ssn.state.tasks[p].node = sim::NodeId(0);
  sim::sched::dra_allocate(ssn, devices(ssn), p);
  const auto& claims = ssn.state.claims;
  REQUIRE(claims[0].allocation.has_value());
  CHECK(claims[0].allocation->devices.front().name == "gpu-0");
  CHECK(claims[0].allocation->node == "n0");
  CHECK(claims[0].reserved_for == std::vector<std::string>{"p"});
  CHECK_FALSE(claims[1].allocation.has_value());
  CHECK(claims[1].reserved_for.empty());
}

TEST_CASE("an All request needs every matching device free", "[sched][dra]") {
  const std::string held =
      "status: {allocation: {devices: {results: [{driver: gpu.nvidia.com, pool: n0, device: "
      "gpu-0}]}}, "
      "reservedFor: [{resource: pods, name: r, uid: r}]}\n";
  sim::model::ClusterState state =
      load(cluster(claim("h", "gpu.nvidia.com", "count: 1", held) +
                       claim("all", "gpu.nvidia.com", "allocationMode: All"),
                   pod("r", {"h"}, "n0") + pod("p", {"all"})));
  sim::sched::Session ssn = sim::sched::open_session(state);
  CHECK(sim::sched::dra_filter(ssn, devices(ssn), ssn.state.tasks[task_named(state, "p")],
                               ssn.state.nodes[sim::NodeId(0)]) ==
        "cannot allocate DRA claims on node n0");
  // Once gpu-0 is released (through the session's device index, as the plugin releases claims),
  // All takes both GPUs.
  ssn.plugin<sim::sched::DynamicResourcesPlugin>()->devices().set_allocation(ssn.state.claims[0],
                                                                             std::nullopt);
  CHECK(sim::sched::dra_filter(ssn, devices(ssn), ssn.state.tasks[task_named(state, "p")],
                               ssn.state.nodes[sim::NodeId(0)])
            .empty());
}

TEST_CASE("an evicted pod's claim is released, and the undo gives it the same devices back",
          "[sched][dra]") {
  const std::string held =
      "status: {allocation: {devices: {results: [{driver: gpu.nvidia.com, pool: n0, device: "
      "gpu-1}]}}, "
      "reservedFor: [{resource: pods, name: r, uid: r}]}\n";
  sim::model::ClusterState state =
      load(cluster(claim("m", "gpu.nvidia.com", "count: 1", held), pod("r", {"m"}, "n0")));
  sim::sched::Session ssn = sim::sched::open_session(state);
  const sim::TaskId r = task_named(state, "r");
  sim::sched::Statement stmt(ssn);
  stmt.evict(r, "preempt", sim::JobId::invalid());
  CHECK_FALSE(ssn.state.claims[0].allocation.has_value());  // nobody holds it any more
  CHECK(ssn.state.claims[0].reserved_for.empty());
  stmt.discard();
  REQUIRE(ssn.state.claims[0].allocation.has_value());
  CHECK(ssn.state.claims[0].allocation->devices.front().name ==
        "gpu-1");  // not gpu-0, the first free one
  CHECK(ssn.state.claims[0].reserved_for == std::vector<std::string>{"r"});
}

TEST_CASE("the session's device index follows claims and keeps shared devices held",
          "[sched][dra]") {
  // Two claims hold gpu-0 (odd input): it stays held until both let it go.
  const std::string held =
      "status: {allocation: {devices: {results: [{driver: gpu.nvidia.com, pool: n0, device: "
      "gpu-0}]}}, "
      "reservedFor: [{resource: pods, name: r, uid: r}]}\n";
  sim::model::ClusterState state = load(cluster(claim("h1", "gpu.nvidia.com", "count: 1", held) +
                                                    claim("h2", "gpu.nvidia.com", "count: 1", held),
                                                pod("r", {"h1", "h2"}, "n0")));
  sim::sched::Session ssn = sim::sched::open_session(state);
  REQUIRE(ssn.plugin<sim::sched::DynamicResourcesPlugin>() != nullptr);
  const sim::sched::DraDevices::Key gpu0{"gpu.nvidia.com", "n0", "gpu-0"};
  const sim::sched::DraDevices::Key gpu1{"gpu.nvidia.com", "n0", "gpu-1"};
  CHECK(ssn.plugin<sim::sched::DynamicResourcesPlugin>()->devices().held(gpu0));
  CHECK_FALSE(ssn.plugin<sim::sched::DynamicResourcesPlugin>()->devices().held(gpu1));
  ssn.plugin<sim::sched::DynamicResourcesPlugin>()->devices().set_allocation(ssn.state.claims[0],
                                                                             std::nullopt);
  CHECK(ssn.plugin<sim::sched::DynamicResourcesPlugin>()->devices().held(gpu0));
  ssn.plugin<sim::sched::DynamicResourcesPlugin>()->devices().set_allocation(
      ssn.state.claims[1], sim::model::DraAllocation{{{"gpu.nvidia.com", "n0", "gpu-1"}}, "n0"});
  CHECK_FALSE(ssn.plugin<sim::sched::DynamicResourcesPlugin>()->devices().held(gpu0));
  CHECK(ssn.plugin<sim::sched::DynamicResourcesPlugin>()->devices().held(gpu1));
  REQUIRE(ssn.state.claims[1].allocation.has_value());
  CHECK(ssn.state.claims[1].allocation->devices.front().name == "gpu-1");
  // The node reaches its GPUs and its NIC, in slice order, all node-local.
  const auto& reachable = ssn.plugin<sim::sched::DynamicResourcesPlugin>()->devices().on(
      ssn.state.nodes[sim::NodeId(0)]);
  REQUIRE(reachable.size() == 3);
  CHECK(reachable[0].device.name == "gpu-0");
  CHECK(reachable[2].device.name == "nic-0");
  CHECK(reachable[2].local);
}

TEST_CASE("selectors pick devices by attribute and capacity: a runtime error fails the node",
          "[sched][dra]") {
  // One slice with a full GPU and a MIG device, as NVIDIA's DRA driver publishes them; the
  // driver's own classes tell them apart by the type attribute.
  const std::string text = kNode + R"(---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.nvidia.com}
spec: {selectors: [{cel: {expression: "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"}}]}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: mig.nvidia.com}
spec: {selectors: [{cel: {expression: "device.attributes['gpu.nvidia.com'].type == 'mig'"}}]}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: brand.nvidia.com}
spec: {selectors: [{cel: {expression: "device.attributes['gpu.nvidia.com'].brand == 'Nvidia'"}}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: gpus}
spec:
  driver: gpu.nvidia.com
  pool: {name: n0}
  nodeName: n0
  devices:
    - {name: mig-0, attributes: {type: {string: mig}}, capacity: {memory: {value: 10Gi}}}
    - {name: gpu-0, attributes: {type: {string: gpu}, brand: {string: Nvidia}}, capacity: {memory: {value: 40Gi}}}
)";
  auto claim_with = [](const std::string& name, const std::string& cls, const std::string& extra) {
    return "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: " + name +
           ", namespace: a, labels: {kai.scheduler/queue: q}}\nspec: {devices: {requests: [{name: "
           "r, exactly: {deviceClassName: " +
           cls + ", count: 1" + extra + "}}]}}\n";
  };
  const std::string big =
      ", selectors: [{cel: {expression: "
      "\"device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('20Gi')) >= 0\"}}]";
  sim::model::ClusterState state = load(
      text + claim_with("whole", "gpu.nvidia.com", "") + claim_with("slice", "mig.nvidia.com", "") +
      claim_with("large-mig", "mig.nvidia.com", big) +
      claim_with("branded", "brand.nvidia.com", "") + pod("p-whole", {"whole"}) +
      pod("p-slice", {"slice"}) + pod("p-large-mig", {"large-mig"}) +
      pod("p-branded", {"branded"}));
  sim::sched::Session ssn = sim::sched::open_session(state);
  const sim::model::Node& n0 = ssn.state.nodes[sim::NodeId(0)];
  auto claim_named = [&](const std::string& name) -> const sim::model::ResourceClaim& {
    for (const auto& c : ssn.state.claims) {
      if (c.name == name) return c;
    }
    FAIL("no claim " << name);
    return ssn.state.claims.front();
  };
  auto place = [&](const std::string& pod_name) {
    const sim::TaskId t = task_named(state, pod_name);
    ssn.state.tasks[t].node = sim::NodeId(0);
    sim::sched::dra_allocate(ssn, devices(ssn), t);
  };
  // The GPU class skips the MIG device listed first.
  CHECK(sim::sched::dra_filter(ssn, devices(ssn), ssn.state.tasks[task_named(state, "p-whole")], n0)
            .empty());
  place("p-whole");
  REQUIRE(claim_named("whole").allocation.has_value());
  CHECK(claim_named("whole").allocation->devices.front().name == "gpu-0");
  // The MIG class takes the MIG device; a request for a MIG of 20 GiB or more finds none.
  CHECK(sim::sched::dra_filter(ssn, devices(ssn), ssn.state.tasks[task_named(state, "p-large-mig")],
                               n0) == "cannot allocate DRA claims on node n0");
  place("p-slice");
  REQUIRE(claim_named("slice").allocation.has_value());
  CHECK(claim_named("slice").allocation->devices.front().name == "mig-0");
  // The MIG device has no brand attribute: a CEL runtime error, which fails the node.
  CHECK(sim::sched::dra_filter(ssn, devices(ssn), ssn.state.tasks[task_named(state, "p-branded")],
                               n0) ==
        "cannot allocate DRA claims on node n0: class brand.nvidia.com: selector #0: CEL runtime "
        "error: no such key: brand");
}

TEST_CASE("requests KAI's allocator refuses (its optional DRA features are off) fail every node",
          "[sched][dra]") {
  // firstAvailable needs DRAPrioritizedList and adminAccess its own feature; KAI v0.16.4 builds
  // the structured allocator with neither. The pre-filter still passes: it only checks the
  // classes of `exactly` requests.
  const std::string prioritized =
      "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: either, "
      "namespace: a}\n"
      "spec: {devices: {requests: [{name: r, firstAvailable: [{name: big, deviceClassName: "
      "gpu.nvidia.com, count: 2}, "
      "{name: small, deviceClassName: gpu.nvidia.com, count: 1}]}]}}\n";
  sim::model::ClusterState state =
      load(cluster(prioritized + claim("admin", "gpu.nvidia.com", "count: 1, adminAccess: true"),
                   pod("p", {"either"}) + pod("q", {"admin"})));
  sim::sched::Session ssn = sim::sched::open_session(state);
  const sim::model::Node& n0 = ssn.state.nodes[sim::NodeId(0)];
  const sim::model::Task& p = ssn.state.tasks[task_named(state, "p")];
  const sim::model::Task& q = ssn.state.tasks[task_named(state, "q")];
  CHECK(sim::sched::dra_pre_filter(ssn, p).empty());
  CHECK(sim::sched::dra_filter(ssn, devices(ssn), p, n0) ==
        "cannot allocate DRA claims on node n0: claim a/either, request r: has subrequests, but "
        "the DRAPrioritizedList feature is disabled");
  CHECK(sim::sched::dra_filter(ssn, devices(ssn), q, n0) ==
        "cannot allocate DRA claims on node n0: claim a/admin, request r: admin access is "
        "requested, but the feature is disabled");
  // countGPUDevicesFromClaim counts only `exactly` requests.
  CHECK(p.gpu.dra == 0);
  CHECK(q.gpu.dra == 1);
}

TEST_CASE("the invariant checker notices a claim changed behind the session's device index",
          "[sched][dra][invariants]") {
  sim::model::ClusterState state =
      load(cluster(claim("a", "gpu.nvidia.com", "count: 1"), pod("p", {"a"})));
  sim::sched::Session ssn = sim::sched::open_session(state);
  const sim::sched::InvariantChecker checker(ssn);
  const sim::TaskId p = task_named(state, "p");
  ssn.state.tasks[p].node = sim::NodeId(0);
  sim::sched::dra_allocate(ssn, devices(ssn), p);
  REQUIRE(ssn.state.claims[0].allocation.has_value());
  CHECK(checker.violations(ssn).empty());
  ssn.state.claims[0].allocation.reset();  // not through DraDevices::set_allocation
  CHECK(checker.violations(ssn) ==
        std::vector<std::string>{
            "DRA: the session's held devices differ from those its claims' allocations name"});
}
