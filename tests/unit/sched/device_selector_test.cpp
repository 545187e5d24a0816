// CEL device selectors on one device: the subset kaisim reads and CEL's rules for it.
#include "sched/plugins/device_selector.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "io/cel_reader.hpp"

namespace {

// An A100 as NVIDIA's DRA driver describes it.
sim::model::SliceDevice a100() {
  using Kind = sim::model::DeviceAttribute::Kind;
  sim::model::SliceDevice d;
  d.name = "gpu-0";
  d.attributes["gpu.nvidia.com/type"] = {Kind::STRING, 0, false, "gpu"};
  d.attributes["gpu.nvidia.com/productName"] = {Kind::STRING, 0, false, "NVIDIA A100-SXM4-80GB"};
  d.attributes["gpu.nvidia.com/index"] = {Kind::INT, 3, false, ""};
  d.attributes["gpu.nvidia.com/driverVersion"] = {Kind::VERSION, 0, false, "550.54.15"};
  d.attributes["example.com/fast"] = {Kind::BOOL, 0, true, ""};
  d.capacity["gpu.nvidia.com/memory"] = 80LL * 1024 * 1024 * 1024 * 1000;
  return d;
}

sim::sched::SelectorOutcome run(const std::string& expression) {
  std::string why;
  const auto selector = sim::io::parse_device_selector(expression, why);
  INFO(expression << ": " << why);
  REQUIRE(selector.has_value());
  return sim::sched::evaluate(*selector, "gpu.nvidia.com", a100());
}

bool matches(const std::string& expression) {
  const auto o = run(expression);
  INFO(expression << ": " << o.error);
  CHECK(o.error.empty());
  return o.matches;
}

}  // namespace

TEST_CASE("selectors compare driver, attributes and capacity", "[sched][dra][cel]") {
  CHECK(matches("device.driver == 'gpu.nvidia.com'"));
  CHECK(
      matches("device.attributes['gpu.nvidia.com'].type == 'gpu' && "
              "device.attributes[\"gpu.nvidia.com\"][\"index\"] > 2"));
  CHECK_FALSE(matches(
      "device.attributes['gpu.nvidia.com'].index >= 4 || !device.attributes['example.com'].fast"));
  CHECK(
      matches("device.attributes['gpu.nvidia.com'].productName in ['NVIDIA A100-SXM4-40GB', "
              "'NVIDIA A100-SXM4-80GB']"));
  CHECK(
      matches("device.attributes['gpu.nvidia.com'].productName.startsWith('NVIDIA A100') && "
              "device.attributes['gpu.nvidia.com'].productName.contains('80GB')"));
  CHECK(matches("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) > 0"));
  CHECK(matches("device.capacity['gpu.nvidia.com'].memory.isGreaterThan(quantity('79Gi'))"));
  CHECK(matches("device.capacity['gpu.nvidia.com'].memory.asInteger() == 85899345920"));
  CHECK(matches(
      "device.attributes['gpu.nvidia.com'].driverVersion.isGreaterThan(semver('535.0.0'))"));
  CHECK_FALSE(matches(
      "device.attributes['gpu.nvidia.com'].driverVersion.compareTo(semver('550.54.15-rc1')) < 0"));
  // CEL's heterogeneous equality: an int is not equal to a string, without an error.
  CHECK_FALSE(matches("device.attributes['gpu.nvidia.com'].index == '3'"));
}

TEST_CASE("a missing attribute is a runtime error unless has() guards it or && / || decide",
          "[sched][dra][cel]") {
  CHECK(run("device.attributes['gpu.nvidia.com'].brand == 'Nvidia'").error == "no such key: brand");
  CHECK_FALSE(
      matches("has(device.attributes['gpu.nvidia.com'].brand) && "
              "device.attributes['gpu.nvidia.com'].brand == 'Nvidia'"));
  CHECK_FALSE(
      matches("device.attributes['gpu.nvidia.com'].brand == 'Nvidia' && device.driver == 'other'"));
  CHECK(
      matches("device.attributes['gpu.nvidia.com'].brand == 'Nvidia' || device.driver == "
              "'gpu.nvidia.com'"));
  CHECK(run("device.attributes['gpu.nvidia.com'].index < 'x'").error ==
        "no such overload: ordering");
  CHECK(run("device.attributes['gpu.nvidia.com'].index").error == "CEL result is not a bool");
}

TEST_CASE("expressions outside the subset are refused with a reason", "[io][dra][cel]") {
  std::string long_chain = "true";
  for (int i = 0; i < 300; ++i) long_chain += " || true";
  for (const auto& [expression, reason] : std::vector<std::pair<std::string, std::string>>{
           {"device.attributes['d'].name.matches('^a')", "method matches() is not supported"},
           {"device.attributes['d'].x == 1.5", "only whole decimal numbers are supported"},
           {"device.allowMultipleAllocations", "device.allowMultipleAllocations is not supported"},
           {"size(device.attributes) > 0", "\"size\" is not supported"},
           {"device.driver == 'a' &&", "expression ends too early"},
           {"(device.driver == 'a'", "expected \")\""},
           {"device.driver == 'a", "unterminated string"},
           {"quantity('ten') == device.capacity['d'].m", "not a quantity: \"ten\""},
           {std::string(100, '(') + "true" + std::string(100, ')'),
            "expression nests more than 64 deep"},
           {std::string(100, '!') + "true", "expression nests more than 64 deep"},
           {long_chain, "expression has more than 512 tokens"}}) {
    std::string why;
    CHECK_FALSE(sim::io::parse_device_selector(expression, why).has_value());
    CHECK(why == reason);
  }
}
