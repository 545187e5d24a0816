#include "io/dra_reader.hpp"

#include <regex>

namespace sim::io {
namespace {

std::string required_name(const Field& obj) {
  const std::string name = obj.member("metadata").member("name").optional_string().value_or("");
  if (name.empty()) obj.fail("missing required field \"metadata.name\"");
  return name;
}

// A status.allocation: its device results and the node its node selector names: one term with one
// requirement `metadata.name` (or `kubernetes.io/hostname`) In [node], as allocations of node-local
// devices have. Any other selector is reported and the claim counts as usable on every node.
model::DraAllocation read_allocation(const Field& allocation, Diagnostics* diagnostics) {
  model::DraAllocation a;
  for (const Field& r : allocation.member("devices").member("results").items()) {
    a.devices.push_back({r.member("driver").optional_string().value_or(""), r.member("pool").optional_string().value_or(""),
                         r.member("device").optional_string().value_or("")});
  }
  const Field selector = allocation.member("nodeSelector");
  if (selector.is_null()) return a;
  const std::vector<Field> terms = selector.member("nodeSelectorTerms").items();
  bool modelled = terms.size() == 1;
  if (modelled) {
    std::vector<Field> requirements = terms.front().member("matchFields").items();
    for (const Field& e : terms.front().member("matchExpressions").items()) requirements.push_back(e);
    modelled = requirements.size() == 1;
    if (modelled) {
      const Field& req = requirements.front();
      const std::string key = req.member("key").optional_string().value_or("");
      const std::vector<Field> values = req.member("values").items();
      modelled = (key == "metadata.name" || key == "kubernetes.io/hostname") &&
                 req.member("operator").optional_string().value_or("") == "In" && values.size() == 1;
      if (modelled) a.node = values.front().optional_string().value_or("");
    }
  }
  if (!modelled && diagnostics) {
    diagnostics->warn(selector.where(), selector.path(),
                      "only a node selector naming one node is modelled; the claim counts as usable on every node");
  }
  return a;
}

}  // namespace

model::DeviceClass read_device_class(const Field& obj, Diagnostics& diagnostics) {
  model::DeviceClass c;
  c.name = required_name(obj);
  static const std::regex kDriver(R"re(^\s*device\.driver\s*==\s*["']([^"']+)["']\s*$)re");
  for (const Field& selector : obj.member("spec").member("selectors").items()) {
    const Field expression = selector.member("cel").member("expression");
    const std::string text = expression.optional_string().value_or("");
    bool unevaluated = false;
    std::size_t start = 0;
    for (;;) {  // the && clauses, one by one
      const std::size_t end = text.find("&&", start);
      const std::string clause = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
      std::smatch m;
      if (std::regex_match(clause, m, kDriver)) {
        c.driver = m[1].str();
      } else {
        unevaluated = true;
      }
      if (end == std::string::npos) break;
      start = end + 2;
    }
    if (unevaluated) {
      diagnostics.warn(expression.where(), expression.path(),
                       "only `device.driver == \"...\"` is evaluated in device class selectors; the rest is ignored");
    }
  }
  return c;
}

model::DraSlice read_resource_slice(const Field& obj, Diagnostics& diagnostics) {
  model::DraSlice s;
  s.name = required_name(obj);
  const Field spec = obj.member("spec");
  s.driver = spec.member("driver").optional_string().value_or("");
  if (s.driver.empty()) spec.fail("missing required field \"driver\"");
  s.pool = spec.member("pool").member("name").optional_string().value_or("");
  s.node = spec.member("nodeName").optional_string().value_or("");
  const Field all = spec.member("allNodes");
  s.all_nodes = !all.is_null() && all.node().IsScalar() && all.node().Scalar() == "true";
  if (s.node.empty() && !s.all_nodes) {
    diagnostics.warn(spec.where(), spec.path(), "a slice for a node selector is not modelled; its devices count on no node");
  }
  for (const Field& d : spec.member("devices").items()) {
    const std::string name = d.member("name").optional_string().value_or("");
    if (name.empty()) d.fail("missing required field \"name\"");
    s.devices.push_back(name);
  }
  return s;
}

model::ResourceClaim read_resource_claim(const Field& obj, Diagnostics& diagnostics) {
  model::ResourceClaim c;
  c.name = required_name(obj);
  const Field metadata = obj.member("metadata");
  c.ns = metadata.member("namespace").optional_string().value_or("default");
  model::Labels::Map labels;
  const Field label_map = metadata.member("labels");
  if (!label_map.is_null()) {
    label_map.expect_map();
    for (auto it = label_map.node().begin(); it != label_map.node().end(); ++it) {
      labels[it->first.Scalar()] = label_map.member(it->first.Scalar()).optional_string().value_or("");
    }
  }
  c.labels = model::Labels(std::move(labels));
  for (const Field& r : obj.member("spec").member("devices").member("requests").items()) {
    // v1 nests the request under `exactly`; v1beta1 has its fields on the request itself.
    const Field exact = r.member("exactly").is_null() ? r : r.member("exactly");
    const std::string device_class = exact.member("deviceClassName").optional_string().value_or("");
    if (device_class.empty()) {
      diagnostics.warn(r.where(), r.path(), "a request without deviceClassName (firstAvailable) is not modelled; ignored");
      continue;
    }
    model::DraRequest req;
    req.name = r.member("name").optional_string().value_or("");
    req.device_class = device_class;
    req.all = exact.member("allocationMode").optional_string().value_or("ExactCount") == "All";
    const Field count = exact.member("count");
    if (!count.is_null()) {
      const std::optional<int> n = count.optional_int();
      if (!n || *n < 1) count.fail("must be a whole number >= 1");
      req.count = *n;
    }
    c.requests.push_back(req);
  }
  const Field status = obj.member("status");
  if (!status.member("allocation").is_null()) c.allocation = read_allocation(status.member("allocation"), &diagnostics);
  for (const Field& consumer : status.member("reservedFor").items()) {
    c.reserved_for.push_back(consumer.member("uid").optional_string().value_or(""));
  }
  return c;
}

std::vector<PodClaimRef> read_pod_claims(const Field& pod) {
  std::vector<PodClaimRef> out;
  std::vector<std::pair<std::string, std::string>> generated;  // status.resourceClaimStatuses
  for (const Field& s : pod.member("status").member("resourceClaimStatuses").items()) {
    generated.emplace_back(s.member("name").optional_string().value_or(""), s.member("resourceClaimName").optional_string().value_or(""));
  }
  for (const Field& ref : pod.member("spec").member("resourceClaims").items()) {
    PodClaimRef r;
    r.name = ref.member("name").optional_string().value_or("");
    if (r.name.empty()) ref.fail("missing required field \"name\"");
    if (std::optional<std::string> claim = ref.member("resourceClaimName").optional_string()) {
      r.claim = *claim;
    } else if (!ref.member("resourceClaimTemplateName").is_null()) {
      r.from_template = true;
      for (const auto& [status_name, generated_claim] : generated) {
        if (status_name == r.name) r.claim = generated_claim;
      }
    } else {
      ref.fail("needs resourceClaimName or resourceClaimTemplateName");
    }
    out.push_back(r);
  }
  return out;
}

std::vector<std::pair<std::string, model::DraAllocation>> read_claim_allocations(const Field& spec) {
  std::vector<std::pair<std::string, model::DraAllocation>> out;
  for (const Field& a : spec.member("resourceClaimAllocations").items()) {
    if (a.member("allocation").is_null()) continue;
    out.emplace_back(a.member("name").optional_string().value_or(""), read_allocation(a.member("allocation"), nullptr));
  }
  return out;
}

}  // namespace sim::io
