#include "io/numa_reader.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "sim/io/quantity.hpp"

namespace sim::io {
namespace {

// A quantity in milli-units; one too large for that is held at the int64 limit (KAI's
// quantities are exact, but no zone or pod comes near).
std::int64_t milli(const Field& f) {
  const std::optional<Quantity> q = parse_quantity(f.scalar());
  if (!q || q->negative)
    f.fail("not a valid quantity such as \"500m\", \"2\" or \"1Gi\": " + f.describe());
  return q->milli_value().value_or(INT64_MAX);
}

model::Amounts read_amounts(const Field& list) {
  model::Amounts out;
  if (list.is_null()) return out;
  list.expect_map();
  for (const auto& [name, value] : list.entries()) out[name] = milli(value);
  return out;
}

// A container's requests after API-server defaulting: a resource given only as a limit is
// requested at its limit.
model::Amounts container_requests(const Field& container) {
  const Field resources = container.member("resources");
  model::Amounts requests = read_amounts(resources.member("requests"));
  for (const auto& [name, v] : read_amounts(resources.member("limits")))
    requests.try_emplace(name, v);
  return requests;
}

void add(model::Amounts& to, const model::Amounts& part) {
  for (const auto& [name, v] : part) to[name] = model::saturating_add(to[name], v);
}

void raise(model::Amounts& to, const model::Amounts& part) {
  for (const auto& [name, v] : part) to[name] = std::max(to[name], v);
}

bool native_sidecar(const Field& init) {
  return init.member("restartPolicy").string_or("") == "Always";
}

}  // namespace

std::optional<std::pair<std::string, model::NumaTopology>> read_node_resource_topology(
    const Field& obj) {
  const std::string name = obj.member("metadata").member("name").string_or("");
  if (name.empty()) obj.fail("missing required field \"metadata.name\" (the node's name)");
  model::NumaTopology t;
  std::string policy, scope;
  for (const Field& a : obj.member("attributes").items()) {
    const std::string key = a.member("name").string_or("");
    if (key == "topologyManagerPolicy") policy = a.member("value").string_or("");
    if (key == "topologyManagerScope") scope = a.member("value").string_or("");
  }
  if (!policy.empty()) {  // parsePolicyAndScope: the attributes, else the deprecated field
    t.policy = policy == "single-numa-node" ? model::NumaPolicy::SINGLE_NUMA_NODE
               : policy == "restricted"     ? model::NumaPolicy::RESTRICTED
               : policy == "best-effort"    ? model::NumaPolicy::BEST_EFFORT
                                            : model::NumaPolicy::NONE;
    t.pod_scope = scope == "pod";
  } else if (const std::vector<Field> legacy = obj.member("topologyPolicies").items();
             !legacy.empty()) {
    // policyAndScopeFromLegacy: the enum values of the deprecated field; others mean none.
    static const std::map<std::string, std::pair<model::NumaPolicy, bool>> kLegacy = {
        {"SingleNUMANodePodLevel", {model::NumaPolicy::SINGLE_NUMA_NODE, true}},
        {"SingleNUMANodeContainerLevel", {model::NumaPolicy::SINGLE_NUMA_NODE, false}},
        {"RestrictedPodLevel", {model::NumaPolicy::RESTRICTED, true}},
        {"Restricted", {model::NumaPolicy::RESTRICTED, false}},
        {"RestrictedContainerLevel", {model::NumaPolicy::RESTRICTED, false}},
        {"BestEffortPodLevel", {model::NumaPolicy::BEST_EFFORT, true}},
        {"BestEffort", {model::NumaPolicy::BEST_EFFORT, false}},
        {"BestEffortContainerLevel", {model::NumaPolicy::BEST_EFFORT, false}}};
    auto it = kLegacy.find(legacy.front().string_or(""));
    if (it != kLegacy.end()) std::tie(t.policy, t.pod_scope) = it->second;
  }
  for (const Field& zone : obj.member("zones").items()) {
    if (zone.member("type").string_or("") != "Node") continue;  // NUMA nodes only
    model::NumaZone z;
    z.id = zone.member("name").string_or("");
    if (z.id.empty()) zone.fail("missing required field \"name\"");
    for (const Field& r : zone.member("resources").items()) {
      const std::string resource = r.member("name").string_or("");
      if (resource.empty()) r.fail("missing required field \"name\"");
      z.available[resource] = r.member("available").is_null() ? 0 : milli(r.member("available"));
      z.allocatable[resource] =
          r.member("allocatable").is_null() ? 0 : milli(r.member("allocatable"));
    }
    t.zones.push_back(std::move(z));
  }
  if (t.zones.empty()) return std::nullopt;
  model::finish_numa_topology(t);
  return std::pair(name, std::move(t));
}

bool is_guaranteed(const Field& pod) {
  if (std::optional<std::string> qos = pod.member("status").member("qosClass").optional_string())
    return *qos == "Guaranteed";
  // GetPodQOS: every container limits cpu and memory, and the summed requests equal the limits.
  // Only cpu and memory are read: other resources do not decide the class.
  const Field spec = pod.member("spec");
  std::vector<Field> containers = spec.member("initContainers").items();
  for (const Field& c : spec.member("containers").items()) containers.push_back(c);
  model::Amounts requests, limits;
  for (const Field& c : containers) {
    const Field resources = c.member("resources");
    for (const char* r : {"cpu", "memory"}) {
      const Field limit = resources.member("limits").member(r);
      const std::int64_t l = limit.is_null() ? 0 : milli(limit);
      if (l == 0) return false;  // a container without that limit: not Guaranteed
      limits[r] = model::saturating_add(limits[r], l);
      const Field request = resources.member("requests").member(r);
      const std::int64_t q = request.is_null() ? l : milli(request);  // defaulted to the limit
      if (q != 0) requests[r] = model::saturating_add(requests[r], q);
    }
  }
  return !limits.empty() && requests == limits;
}

model::NumaUnits read_numa_units(const Field& spec) {
  model::NumaUnits units;
  model::Amounts sidecars, peak;
  for (const Field& init : spec.member("initContainers").items()) {
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
  for (const Field& c : spec.member("containers").items()) {
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
  if (list.is_null()) return std::nullopt;
  list.expect_sequence();
  if (list.size() == 0) return std::nullopt;
  std::vector<model::ZoneAmounts> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Field z = list.item(i);
    z.expect_map();
    // A zone id that is missing or unknown still makes this the record, which then places
    // nothing (placementFromRecord), as in KAI.
    out.push_back({-1, z.member("zone").string_or(""), read_amounts(z.member("amount"))});
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
