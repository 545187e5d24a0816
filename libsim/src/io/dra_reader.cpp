#include "io/dra_reader.hpp"

#include <cerrno>
#include <cstdlib>

#include "io/cel_reader.hpp"
#include "sim/io/quantity.hpp"

namespace sim::io {
namespace {

std::string required_name(const Field& obj) {
  const std::string name = obj.member("metadata").member("name").string_or("");
  if (name.empty()) obj.fail("missing required field \"metadata.name\"");
  return name;
}

// A status.allocation: its device results and the node its node selector names: one term with one
// requirement `metadata.name` (or `kubernetes.io/hostname`) In [node], as allocations of node-local
// devices have. Any other selector is reported and the claim counts as usable on every node.
model::DraAllocation read_allocation(const Field& allocation, Diagnostics* diagnostics) {
  model::DraAllocation a;
  for (const Field& r : allocation.member("devices").member("results").items()) {
    a.devices.push_back({r.member("driver").string_or(""), r.member("pool").string_or(""),
                         r.member("device").string_or("")});
  }
  const Field selector = allocation.member("nodeSelector");
  if (selector.is_null()) return a;
  const std::vector<Field> terms = selector.member("nodeSelectorTerms").items();
  bool modelled = terms.size() == 1;
  if (modelled) {
    std::vector<Field> requirements = terms.front().member("matchFields").items();
    for (const Field& e : terms.front().member("matchExpressions").items())
      requirements.push_back(e);
    modelled = requirements.size() == 1;
    if (modelled) {
      const Field& req = requirements.front();
      const std::string key = req.member("key").string_or("");
      const std::vector<Field> values = req.member("values").items();
      modelled = (key == "metadata.name" || key == "kubernetes.io/hostname") &&
                 req.member("operator").string_or("") == "In" && values.size() == 1;
      if (modelled) a.node = values.front().string_or("");
    }
  }
  if (!modelled && diagnostics) {
    diagnostics->warn(selector.where(), selector.path(),
                      "only a node selector naming one node is modelled; the claim counts as "
                      "usable on every node");
  }
  return a;
}

// Selectors (`selectors[].cel.expression`) in the CEL subset kaisim evaluates; one outside it is
// reported and left out, so it selects more devices than in the cluster.
std::vector<model::DeviceSelector> read_selectors(const Field& list, Diagnostics& diagnostics) {
  std::vector<model::DeviceSelector> out;
  for (const Field& selector : list.items()) {
    const Field expression = selector.member("cel").member("expression");
    std::string why;
    if (auto parsed = parse_device_selector(expression.string_or(""), why)) {
      out.push_back(std::move(*parsed));
    } else {
      diagnostics.warn(
          expression.where(), expression.path(),
          "selector is outside the CEL kaisim evaluates (" + why + "); it is left out");
    }
  }
  return out;
}

// A device's attributes (one of int, bool, string, version each) and capacities, names qualified
// with the driver's domain when they have none (as the CEL environment sees them).
model::SliceDevice read_slice_device(const Field& d, const std::string& driver) {
  model::SliceDevice device;
  device.name = d.member("name").string_or("");
  if (device.name.empty()) d.fail("missing required field \"name\"");
  const Field fields =
      d.member("basic").is_null() ? d : d.member("basic");  // v1beta1 nests them under `basic`
  auto qualified = [&](const std::string& name) {
    return name.find('/') == std::string::npos ? driver + "/" + name : name;
  };
  const Field attributes = fields.member("attributes");
  if (!attributes.is_null()) {
    attributes.expect_map();
    for (const auto& [name, value] : attributes.entries()) {
      model::DeviceAttribute a;
      if (const Field f = value.member("int"); !f.is_null()) {
        const std::string text = f.string();
        char* end = nullptr;
        errno = 0;
        a.integer = std::strtoll(text.c_str(), &end, 10);
        if (text.empty() || *end != '\0' || errno == ERANGE) f.fail("must be a whole number");
        a.kind = model::DeviceAttribute::Kind::INT;
      } else if (const Field b = value.member("bool"); !b.is_null()) {
        a.kind = model::DeviceAttribute::Kind::BOOL;
        a.boolean = b.scalar() == "true";
      } else if (const Field v = value.member("version"); !v.is_null()) {
        a.kind = model::DeviceAttribute::Kind::VERSION;
        a.text = v.string();
      } else {
        a.text = value.member("string").string_or("");
      }
      device.attributes[qualified(name)] = a;
    }
  }
  const Field capacity = fields.member("capacity");
  if (!capacity.is_null()) {
    capacity.expect_map();
    for (const auto& [name, entry] : capacity.entries()) {
      const Field value = entry.member("value");
      const std::optional<Quantity> q = parse_quantity(value.string_or(""));
      const std::optional<std::int64_t> milli = q ? q->milli_value() : std::nullopt;
      if (!milli) value.fail("not a valid quantity such as \"40Gi\"");
      device.capacity[qualified(name)] = *milli;
    }
  }
  return device;
}

// The requests of a claim's spec: v1 nests each under `exactly`, v1beta1 has its fields on the
// request itself.
std::vector<model::DraRequest> read_claim_requests(const Field& spec, Diagnostics& diagnostics) {
  std::vector<model::DraRequest> out;
  for (const Field& r : spec.member("devices").member("requests").items()) {
    const Field exact = r.member("exactly").is_null() ? r : r.member("exactly");
    model::DraRequest req;
    req.name = r.member("name").string_or("");
    req.device_class = exact.member("deviceClassName").string_or("");
    // KAI v0.16.4 builds the structured allocator with structured.Features{}: these requests fail
    // every allocation (allocator_stable.go validateDeviceRequest and Allocate).
    req.first_available = !r.member("firstAvailable").is_null();
    if (req.first_available) {
      req.refused = "has subrequests, but the DRAPrioritizedList feature is disabled";
    } else if (!exact.member("adminAccess").is_null()) {
      req.refused = "admin access is requested, but the feature is disabled";
    } else if (req.device_class.empty()) {
      req.refused = "missing device class name (unsupported request type?)";
    }
    if (!req.refused.empty()) {
      diagnostics.warn(r.where(), r.path(),
                       "KAI's allocator refuses this request (" + req.refused +
                           "): the claim is never allocated");
      out.push_back(req);
      continue;
    }
    req.all = exact.member("allocationMode").string_or("ExactCount") == "All";
    req.selectors = read_selectors(exact.member("selectors"), diagnostics);
    const Field count = exact.member("count");
    if (!count.is_null()) {
      const std::optional<int> n = count.optional_int();
      if (!n || *n < 1) count.fail("must be a whole number >= 1");
      req.count = *n;
    }
    out.push_back(req);
  }
  return out;
}

}  // namespace

model::DeviceClass read_device_class(const Field& obj, Diagnostics& diagnostics) {
  model::DeviceClass c;
  c.name = required_name(obj);
  c.selectors = read_selectors(obj.member("spec").member("selectors"), diagnostics);
  return c;
}

model::DraSlice read_resource_slice(const Field& obj, Diagnostics& diagnostics) {
  model::DraSlice s;
  s.name = required_name(obj);
  const Field spec = obj.member("spec");
  s.driver = spec.member("driver").string_or("");
  if (s.driver.empty()) spec.fail("missing required field \"driver\"");
  s.pool = spec.member("pool").member("name").string_or("");
  s.node = spec.member("nodeName").string_or("");
  const Field all = spec.member("allNodes");
  s.all_nodes = all.scalar() == "true";
  if (s.node.empty() && !s.all_nodes) {
    // KAI v0.16.4 runs the structured allocator without the partitionable-devices feature, whose
    // pool gathering skips any slice that sets perDeviceNodeSelection.
    if (!spec.member("perDeviceNodeSelection").is_null()) {
      diagnostics.warn(spec.where(), spec.path(),
                       "perDeviceNodeSelection needs DRA partitionable devices, which KAI v0.16.4 "
                       "runs without: the slice is "
                       "ignored, as in KAI");
    } else {
      diagnostics.warn(spec.where(), spec.path(),
                       "a slice for a node selector is not modelled; its devices count on no node");
    }
  }
  for (const Field& d : spec.member("devices").items())
    s.devices.push_back(read_slice_device(d, s.driver));
  return s;
}

model::ResourceClaim read_resource_claim(const Field& obj, Diagnostics& diagnostics) {
  model::ResourceClaim c;
  c.name = required_name(obj);
  const Field metadata = obj.member("metadata");
  c.ns = metadata.member("namespace").string_or("default");
  model::Labels::Map labels;
  const Field label_map = metadata.member("labels");
  if (!label_map.is_null()) {
    label_map.expect_map();
    for (const auto& [key, value] : label_map.entries()) labels[key] = value.string_or("");
  }
  c.labels = model::Labels(std::move(labels));
  c.requests = read_claim_requests(obj.member("spec"), diagnostics);
  const Field status = obj.member("status");
  if (!status.member("allocation").is_null())
    c.allocation = read_allocation(status.member("allocation"), &diagnostics);
  for (const Field& consumer : status.member("reservedFor").items()) {
    c.reserved_for.push_back(consumer.member("uid").string_or(""));
  }
  return c;
}

void check_claim_template(const Field& obj, Diagnostics& diagnostics) {
  (void)required_name(obj);
  (void)read_claim_requests(obj.member("spec").member("spec"), diagnostics);
}

std::vector<PodClaimRef> read_pod_claims(const Field& pod) {
  std::vector<PodClaimRef> out;
  std::vector<std::pair<std::string, std::string>> generated;  // status.resourceClaimStatuses
  for (const Field& s : pod.member("status").member("resourceClaimStatuses").items()) {
    generated.emplace_back(s.member("name").string_or(""),
                           s.member("resourceClaimName").string_or(""));
  }
  for (const Field& ref : pod.member("spec").member("resourceClaims").items()) {
    PodClaimRef r;
    r.name = ref.member("name").string_or("");
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

std::vector<std::pair<std::string, model::DraAllocation>> read_claim_allocations(
    const Field& spec) {
  std::vector<std::pair<std::string, model::DraAllocation>> out;
  for (const Field& a : spec.member("resourceClaimAllocations").items()) {
    if (a.member("allocation").is_null()) continue;
    out.emplace_back(a.member("name").string_or(""),
                     read_allocation(a.member("allocation"), nullptr));
  }
  return out;
}

}  // namespace sim::io
