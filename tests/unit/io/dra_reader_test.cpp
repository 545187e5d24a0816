// The DRA objects as the dynamicresources plugin reads them.
#include <catch2/catch.hpp>

#include "io/dra_reader.hpp"

namespace {

const std::string kFile = "dra.yaml";

sim::io::Field doc(const std::string& text) { return {sim::io::parse_single_document(text, kFile), "", &kFile}; }

}  // namespace

TEST_CASE("device classes: the driver clause of a selector is evaluated, the rest is reported", "[io][dra]") {
  sim::Diagnostics d;
  const auto nvidia = sim::io::read_device_class(doc(R"(
metadata: {name: gpu.nvidia.com}
spec: {selectors: [{cel: {expression: "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"}}]}
)"), d);
  REQUIRE(nvidia.driver.has_value());
  CHECK(*nvidia.driver == "gpu.nvidia.com");
  CHECK(d.warnings.size() == 1);
  CHECK(nvidia.matches({"gpu.nvidia.com", "n0", "gpu-0"}));
  CHECK_FALSE(nvidia.matches({"example.com", "n0", "x"}));
  sim::Diagnostics none;
  const auto any = sim::io::read_device_class(doc("metadata: {name: all}\n"), none);
  CHECK_FALSE(any.driver.has_value());
  CHECK(any.matches({"example.com", "n0", "x"}));
  CHECK(none.warnings.empty());
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
)"), d);
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
)"), d);
  CHECK(beta.ns == "default");
  REQUIRE(beta.requests.size() == 1);
  CHECK(beta.requests[0].all);
  CHECK_FALSE(beta.is_gpu_claim());
  CHECK_THROWS_AS(sim::io::read_resource_claim(
                      doc("metadata: {name: c3}\nspec: {devices: {requests: [{name: r, exactly: {deviceClassName: x, count: 0}}]}}\n"), d),
                  sim::InputError);
}

TEST_CASE("a pod's claims: named ones, and template ones by the name its status gives", "[io][dra]") {
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
