#include "io/numa_reader.hpp"

#include <algorithm>

#include "sim/io/quantity.hpp"

namespace sim::io {
namespace {

std::int64_t milli(const Field& f) {
  std::string text;
  if (f.node().IsScalar()) text = f.node().Scalar();
  const std::optional<Quantity> q = parse_quantity(text);
  if (!q || q->negative) f.fail("not a valid quantity such as \"500m\", \"2\" or \"1Gi\": " + f.describe());
  const std::optional<std::int64_t> v = q->milli_value();
  if (!v) f.fail("quantity is too large");
  return *v;
}

model::Amounts read_amounts(const Field& list) {
  model::Amounts out;
  if (list.is_null()) return out;
  list.expect_map();
  for (auto it = list.node().begin(); it != list.node().end(); ++it) {
    const std::string name = it->first.Scalar();
    out[name] = milli(list.member(name));
  }
  return out;
}

// A container's requests after API-server defaulting: a resource given only as a limit is
// requested at its limit.
model::Amounts container_requests(const Field& container) {
  const Field resources = container.member("resources");
  model::Amounts requests = read_amounts(resources.member("requests"));
  for (const auto& [name, v] : read_amounts(resources.member("limits"))) requests.try_emplace(name, v);
  return requests;
}

void add(model::Amounts& to, const model::Amounts& part) {
  for (const auto& [name, v] : part) to[name] += v;
}

void raise(model::Amounts& to, const model::Amounts& part) {
  for (const auto& [name, v] : part) to[name] = std::max(to[name], v);
}

std::vector<Field> items(const Field& list) {
  std::vector<Field> out;
  if (list.is_null()) return out;
  list.expect_sequence();
  for (std::size_t i = 0; i < list.size(); ++i) out.push_back(list.item(i));
  return out;
}

bool native_sidecar(const Field& init) { return init.member("restartPolicy").optional_string().value_or("") == "Always"; }

}  // namespace

std::optional<std::pair<std::string, model::NumaTopology>> read_node_resource_topology(const Field& obj) {
  const std::string name = obj.member("metadata").member("name").optional_string().value_or("");
  if (name.empty()) obj.fail("missing required field \"metadata.name\" (the node's name)");
  model::NumaTopology t;
  std::string policy, scope;
  for (const Field& a : items(obj.member("attributes"))) {
    const std::string key = a.member("name").optional_string().value_or("");
    if (key == "topologyManagerPolicy") policy = a.member("value").optional_string().value_or("");
    if (key == "topologyManagerScope") scope = a.member("value").optional_string().value_or("");
  }
  if (!policy.empty()) {  // parsePolicyAndScope: the attributes, else the deprecated field
    t.policy = policy == "single-numa-node" ? model::NumaPolicy::SINGLE_NUMA_NODE
               : policy == "restricted"     ? model::NumaPolicy::RESTRICTED
               : policy == "best-effort"    ? model::NumaPolicy::BEST_EFFORT
                                            : model::NumaPolicy::NONE;
    t.pod_scope = scope == "pod";
  } else if (const std::vector<Field> legacy = items(obj.member("topologyPolicies")); !legacy.empty()) {
    const std::string v = legacy.front().optional_string().value_or("");
    t.policy = v.starts_with("SingleNUMANode") ? model::NumaPolicy::SINGLE_NUMA_NODE
               : v.starts_with("Restricted")   ? model::NumaPolicy::RESTRICTED
               : v.starts_with("BestEffort")   ? model::NumaPolicy::BEST_EFFORT
                                               : model::NumaPolicy::NONE;
    t.pod_scope = v.ends_with("PodLevel");
  }
  for (const Field& zone : items(obj.member("zones"))) {
    if (zone.member("type").optional_string().value_or("") != "Node") continue;  // NUMA nodes only
    model::NumaZone z;
    z.id = zone.member("name").optional_string().value_or("");
    if (z.id.empty()) zone.fail("missing required field \"name\"");
    for (const Field& r : items(zone.member("resources"))) {
      const std::string resource = r.member("name").optional_string().value_or("");
      if (resource.empty()) r.fail("missing required field \"name\"");
      z.available[resource] = r.member("available").is_null() ? 0 : milli(r.member("available"));
      z.allocatable[resource] = r.member("allocatable").is_null() ? 0 : milli(r.member("allocatable"));
    }
    t.zones.push_back(std::move(z));
  }
  if (t.zones.empty()) return std::nullopt;
  model::finish_numa_topology(t);
  return std::pair(name, std::move(t));
}

bool is_guaranteed(const Field& pod) {
  if (std::optional<std::string> qos = pod.member("status").member("qosClass").optional_string()) return *qos == "Guaranteed";
  // GetPodQOS: every container limits cpu and memory, and the summed requests equal the limits.
  const Field spec = pod.member("spec");
  std::vector<Field> containers = items(spec.member("initContainers"));
  for (const Field& c : items(spec.member("containers"))) containers.push_back(c);
  model::Amounts requests, limits;
  bool guaranteed = true;
  for (const Field& c : containers) {
    const model::Amounts limit = read_amounts(c.member("resources").member("limits"));
    const model::Amounts request = container_requests(c);
    for (const char* r : {"cpu", "memory"}) {
      auto l = limit.find(r);
      if (l == limit.end() || l->second == 0) {
        guaranteed = false;
      } else {
        limits[r] += l->second;
      }
      if (auto q = request.find(r); q != request.end() && q->second != 0) requests[r] += q->second;
    }
  }
  return guaranteed && !limits.empty() && requests == limits;
}

model::NumaUnits read_numa_units(const Field& spec) {
  model::NumaUnits units;
  model::Amounts sidecars, peak;
  for (const Field& init : items(spec.member("initContainers"))) {
    model::Amounts req = container_requests(init);
    if (native_sidecar(init)) {
      add(sidecars, req);
      units.concurrent.push_back(req);
    } else {
      units.serial.push_back(req);
      add(req, sidecars);  // an init container runs beside the sidecars started before it
      raise(peak, req);
    }
  }
  for (const Field& c : items(spec.member("containers"))) {
    units.concurrent.push_back(container_requests(c));
    add(units.pod, units.concurrent.back());
  }
  // PodRequests: app containers plus sidecars, at least the init peak, plus overhead.
  add(units.pod, sidecars);
  raise(units.pod, peak);
  add(units.pod, read_amounts(spec.member("overhead")));
  return units;
}

std::optional<std::vector<model::ZoneAmounts>> read_numa_record(const Field& list) {
  if (list.is_null() || !list.is_sequence() || list.size() == 0) return std::nullopt;
  std::vector<model::ZoneAmounts> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Field z = list.item(i);
    if (!z.is_map()) return std::nullopt;
    const std::string zone = z.member("zone").optional_string().value_or("");
    if (zone.empty()) return std::nullopt;
    out.push_back({-1, zone, read_amounts(z.member("amount"))});
  }
  return out;
}

std::optional<std::vector<model::ZoneAmounts>> parse_numa_annotation(const std::string& text) {
  try {
    static const std::string kFile = "annotation";
    const Field doc(parse_single_document(text, kFile), "", &kFile);
    return read_numa_record(doc);
  } catch (const std::exception&) {
    return std::nullopt;  // KAI logs a malformed record and ignores it
  }
}

}  // namespace sim::io
