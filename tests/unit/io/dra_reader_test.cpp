// The DRA objects as the dynamicresources plugin reads them.
#include "io/dra_reader.hpp"

#include <catch2/catch.hpp>

namespace {

const std::string kFile = "dra.yaml";

sim::io::Field doc(const std::string& text) {
  return {sim::io::parse_single_document(text, kFile), "", &kFile};
}

}  // namespace

TEST_CASE("device classes: selectors in kaisim's CEL are read, others reported and left out",
          "[io][dra]") {
  sim::Diagnostics d;
  const auto nvidia = sim::io::read_device_class(doc(R"(
metadata: {name: gpu.nvidia.com}
spec: {selectors: [{cel: {expression: "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"}}]}
)"),
                                                 d);
  REQUIRE(nvidia.selectors.size() == 1);
  CHECK(nvidia.selectors[0].root.kind == sim::model::CelNode::Kind::AND);
  CHECK(d.warnings.empty());
  const auto regex = sim::io::read_device_class(doc(R"y(
metadata: {name: a100}
spec: {selectors: [{cel: {expression: "device.attributes['gpu.nvidia.com'].productName.matches('A100')"}}]}
)y"),
                                                d);
  CHECK(regex.selectors.empty());
  REQUIRE(d.warnings.size() == 1);
  CHECK(d.warnings[0].find("matches() is not supported") != std::string::npos);
  CHECK(d.warnings[0].find("dra.yaml:3") != std::string::npos);
  sim::Diagnostics none;
  CHECK(sim::io::read_device_class(doc("metadata: {name: all}\n"), none).selectors.empty());
  CHECK(none.warnings.empty());
}

TEST_CASE("slices that reach no node say why", "[io][dra]") {
  sim::Diagnostics d;
  const auto per_device = sim::io::read_resource_slice(doc(R"(
metadata: {name: shared}
spec: {driver: gpu.nvidia.com, pool: {name: p}, perDeviceNodeSelection: true, devices: [{name: gpu-0, nodeName: n0}]}
)"),
                                                       d);
  CHECK(per_device.node.empty());
  CHECK_FALSE(per_device.all_nodes);
  const auto selected = sim::io::read_resource_slice(doc(R"(
metadata: {name: rack}
spec:
  driver: gpu.nvidia.com
  pool: {name: rack}
  nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: rack, operator: In, values: [a]}]}]}
  devices: [{name: gpu-0}]
)"),
                                                     d);
  CHECK(selected.node.empty());
  REQUIRE(d.warnings.size() == 2);
  CHECK(d.warnings[0].find("dra.yaml:3") != std::string::npos);
  CHECK(d.warnings[0].find("perDeviceNodeSelection needs DRA partitionable devices") !=
        std::string::npos);
  CHECK(d.warnings[1].find("a slice for a node selector is not modelled") != std::string::npos);
}

TEST_CASE("slices: device attributes and capacities, qualified by the driver's domain",
          "[io][dra]") {
  sim::Diagnostics d;
  const auto slice = sim::io::read_resource_slice(doc(R"(
metadata: {name: n0-gpus}
spec:
  driver: gpu.nvidia.com
  pool: {name: n0}
  nodeName: n0
  devices:
    - name: gpu-0
      attributes: {type: {string: gpu}, index: {int: 0}, driverVersion: {version: 550.54.15}, example.com/fast: {bool: true}}
      capacity: {memory: {value: 40Gi}}
    - name: mig-0
      basic: {attributes: {type: {string: mig}}}
)"),
                                                  d);
  REQUIRE(slice.devices.size() == 2);
  const auto& gpu = slice.devices[0];
  CHECK(gpu.attributes.at("gpu.nvidia.com/type").text == "gpu");
  CHECK(gpu.attributes.at("gpu.nvidia.com/index").kind == sim::model::DeviceAttribute::Kind::INT);
  CHECK(gpu.attributes.at("gpu.nvidia.com/driverVersion").kind ==
        sim::model::DeviceAttribute::Kind::VERSION);
  CHECK(gpu.attributes.at("example.com/fast").boolean);
  CHECK(gpu.capacity.at("gpu.nvidia.com/memory") == 40LL * 1024 * 1024 * 1024 * 1000);
  CHECK(slice.devices[1].attributes.at("gpu.nvidia.com/type").text == "mig");
  CHECK_THROWS_AS(sim::io::read_resource_slice(doc(R"(
metadata: {name: bad}
spec: {driver: d, nodeName: n0, devices: [{name: x, capacity: {memory: {value: lots}}}]}
)"),
                                               d),
                  sim::InputError);
}

TEST_CASE("claims: v1 and v1beta1 requests, allocation with its node, consumers", "[io][dra]") {
  sim::Diagnostics d;
  const auto v1 = sim::io::read_resource_claim(doc(R"(
metadata: {name: c, namespace: a, labels: {kai.scheduler/queue: q}}
spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu.nvidia.com, count: 2}}]}}
status:
  allocation:
    devices: {results: [{request: r, driver: gpu.nvidia.com, pool: n0, device: gpu-0}]}
    nodeSelector: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [n0]}]}]}
  reservedFor: [{resource: pods, name: p, uid: u1}]
)"),
                                               d);
  REQUIRE(v1.requests.size() == 1);
  CHECK(v1.requests[0].count == 2);
  CHECK(v1.is_gpu_claim());
  CHECK(v1.gpu_devices() == 2);
  REQUIRE(v1.allocation.has_value());
  CHECK(v1.allocation->node == "n0");
  CHECK(v1.allocation->devices.size() == 1);
  CHECK(v1.reserved_for == std::vector<std::string>{"u1"});

  const auto beta = sim::io::read_resource_claim(doc(R"(
metadata: {name: c2}
spec: {devices: {requests: [{name: r, deviceClassName: nic.example.com, allocationMode: All}]}}
)"),
                                                 d);
  CHECK(beta.ns == "default");
  REQUIRE(beta.requests.size() == 1);
  CHECK(beta.requests[0].all);
  CHECK_FALSE(beta.is_gpu_claim());
  CHECK_THROWS_AS(
      sim::io::read_resource_claim(doc("metadata: {name: c3}\nspec: {devices: {requests: [{name: "
                                       "r, exactly: {deviceClassName: x, count: 0}}]}}\n"),
                                   d),
      sim::InputError);
}

TEST_CASE("a pod's claims: named ones, and template ones by the name its status gives",
          "[io][dra]") {
  const auto refs = sim::io::read_pod_claims(doc(R"(
spec:
  resourceClaims:
    - {name: shared, resourceClaimName: team-gpus}
    - {name: mine, resourceClaimTemplateName: one-gpu}
    - {name: later, resourceClaimTemplateName: one-gpu}
status:
  resourceClaimStatuses: [{name: mine, resourceClaimName: p-mine-x7k2}]
)"));
  REQUIRE(refs.size() == 3);
  CHECK(refs[0].claim == "team-gpus");
  CHECK_FALSE(refs[0].from_template);
  CHECK(refs[1].claim == "p-mine-x7k2");
  CHECK(refs[1].from_template);
  CHECK(refs[2].claim.empty());  // not created yet
}

TEST_CASE("claim templates: their claim spec is checked as a claim's", "[io][dra]") {
  sim::Diagnostics d;
  sim::io::check_claim_template(doc(R"(
metadata: {name: one-gpu, namespace: a}
spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com, count: 1}}]}}}
)"),
                                d);
  CHECK(d.warnings.empty());
  try {
    sim::io::check_claim_template(doc(R"(
metadata: {name: none, namespace: a}
spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com, count: 0}}]}}}
)"),
                                  d);
    FAIL("a count of 0 was accepted");
  } catch (const sim::InputError& e) {
    CHECK(std::string(e.what()).find("spec.spec.devices.requests[0].exactly.count") !=
          std::string::npos);
  }
}
