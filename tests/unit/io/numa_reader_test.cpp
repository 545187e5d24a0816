// What the numa plugin reads: NodeResourceTopology zones and policy, a pod's QoS class and its
// alignment units, persisted placements.
#include "io/numa_reader.hpp"

#include <catch2/catch.hpp>

namespace {

const std::string kFile = "numa.yaml";

sim::io::Field doc(const std::string& text) {
  return {sim::io::parse_single_document(text, kFile), "", &kFile};
}

}  // namespace

TEST_CASE("a NodeResourceTopology gives the NUMA-node zones in node-number order", "[io][numa]") {
  const auto nrt = sim::io::read_node_resource_topology(doc(R"(
metadata: {name: n0}
topologyPolicies: [RestrictedPodLevel]
zones:
  - {name: node-10, type: Node, resources: [{name: cpu, allocatable: "8", available: "6"}]}
  - {name: socket-0, type: Socket, resources: [{name: cpu, allocatable: "16", available: "16"}]}
  - {name: node-2, type: Node, resources: [{name: cpu, allocatable: 8, available: 8},
                                           {name: memory, allocatable: 1Gi, available: 1Gi}]}
)"));
  REQUIRE(nrt.has_value());
  CHECK(nrt->first == "n0");
  const sim::model::NumaTopology& t = nrt->second;
  CHECK(t.policy ==
        sim::model::NumaPolicy::RESTRICTED);  // the deprecated field, without attributes
  CHECK(t.pod_scope);
  REQUIRE(t.zones.size() == 2);  // the socket is not a NUMA node
  CHECK(t.zones[0].id == "node-2");
  CHECK(t.zones[1].id == "node-10");
  CHECK(t.zones[1].available.at("cpu") == 6000);
  CHECK(t.zones[0].allocatable.at("memory") == 1073741824000LL);
  CHECK(t.resources == std::set<std::string>{"cpu", "memory"});

  CHECK_FALSE(
      sim::io::read_node_resource_topology(doc("metadata: {name: n1}\nzones: []\n")).has_value());
  // The deprecated field's values are matched exactly; others mean no policy.
  const auto odd = sim::io::read_node_resource_topology(
      doc("metadata: {name: n2}\ntopologyPolicies: [SingleNUMANodeFoo]\nzones: [{name: node-0, "
          "type: Node}]\n"));
  REQUIRE(odd.has_value());
  CHECK(odd->second.policy == sim::model::NumaPolicy::NONE);
}

TEST_CASE("the QoS class is computed as the API server does when the status lacks it",
          "[io][numa]") {
  const char* guaranteed = R"(
spec:
  containers:
    - {name: a, resources: {limits: {cpu: "2", memory: 1Gi}}}
    - {name: b, resources: {requests: {cpu: 500m, memory: 1Gi}, limits: {cpu: 500m, memory: 1Gi, nvidia.com/gpu: "1"}}}
)";
  CHECK(sim::io::is_guaranteed(doc(guaranteed)));
  CHECK_FALSE(sim::io::is_guaranteed(doc(R"(
spec:
  containers: [{name: a, resources: {requests: {cpu: "1", memory: 1Gi}, limits: {cpu: "2", memory: 1Gi}}}]
)")));
  CHECK_FALSE(sim::io::is_guaranteed(
      doc("spec: {containers: [{name: a, resources: {limits: {cpu: '1'}}}]}\n")));
  CHECK_FALSE(sim::io::is_guaranteed(doc("spec: {containers: [{name: a}]}\n")));
  CHECK(sim::io::is_guaranteed(
      doc("spec: {containers: [{name: a}]}\nstatus: {qosClass: Guaranteed}\n")));
}

TEST_CASE("alignment units: the whole pod, and per container with init containers apart",
          "[io][numa]") {
  const sim::model::NumaUnits u = sim::io::read_numa_units(doc(R"(
spec:
  initContainers:
    - {name: setup, resources: {limits: {cpu: "6", memory: 1Gi}}}
    - {name: proxy, restartPolicy: Always, resources: {limits: {cpu: "1", memory: 1Gi}}}
  containers:
    - {name: main, resources: {limits: {cpu: "4", memory: 2Gi}}}
)")
                                                               .member("spec"));
  REQUIRE(u.concurrent.size() == 2);  // the sidecar and the app container run together
  CHECK(u.concurrent[0].at("cpu") == 1000);
  CHECK(u.concurrent[1].at("cpu") == 4000);
  REQUIRE(u.serial.size() == 1);
  CHECK(u.serial[0].at("cpu") == 6000);
  // The pod: main + sidecar (5 CPUs), raised to the init container's 6.
  CHECK(u.pod.at("cpu") == 6000);
  CHECK(u.pod.at("memory") == 3LL * 1073741824000LL);
}

TEST_CASE("placement records: zone ids and amounts: malformed ones are ignored", "[io][numa]") {
  const auto record =
      sim::io::parse_numa_annotation(R"([{"zone":"node-1","amount":{"cpu":"3","memory":"1Gi"}}])");
  REQUIRE(record.has_value());
  REQUIRE(record->size() == 1);
  CHECK((*record)[0].zone_id == "node-1");
  CHECK((*record)[0].amount.at("cpu") == 3000);
  CHECK_FALSE(sim::io::parse_numa_annotation("not json [").has_value());
  CHECK_FALSE(sim::io::parse_numa_annotation("[]").has_value());
  CHECK_FALSE(
      sim::io::parse_numa_annotation(R"([{"zone":"node-0","amount":{"cpu":"lots"}}])").has_value());
  // Without a zone it is still the record (KAI's JSON decoding takes it); it then places nothing.
  const auto no_zone = sim::io::parse_numa_annotation(R"([{"amount":{"cpu":"1"}}])");
  REQUIRE(no_zone.has_value());
  CHECK((*no_zone)[0].zone_id.empty());
}
