#include "sim/io/snapshot.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <unordered_map>

#include "api_versions.hpp"
#include "dra_reader.hpp"
#include "gpu_request_rules.hpp"
#include "k8s_reader.hpp"
#include "numa_reader.hpp"
#include "parsed_objects.hpp"
#include "pod_affinity_reader.hpp"
#include "project_level_fairness.hpp"
#include "scheduler_config_reader.hpp"
#include "side_thread.hpp"
#include "sim/io/quantity.hpp"
#include "snapshot_fields.hpp"
#include "subgroups_reader.hpp"
#include "yaml_field.hpp"

namespace sim::io {
namespace {

using model::Labels;

constexpr std::string_view kPodGroupAnnotation = "pod-group-name";
constexpr std::string_view kQueueLabel = "kai.scheduler/queue";
constexpr std::string_view kSubGroupLabel = "kai.scheduler/subgroup-name";
constexpr std::string_view kReservationNamespace = "kai-resource-reservation";

// A whole number written in decimal ("", a fraction or other text: none), as strconv.Atoi.
std::optional<long long> whole_number(const std::string& text) {
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size()) return std::nullopt;
  return v;
}

// ---------------------------------------------------------------- collecting objects by kind

struct Objects {
  std::vector<Field> nodes, pods, queues, pod_groups, bind_requests, priority_classes, topologies,
      node_resource_topologies, device_classes, resource_slices, resource_claims, claim_templates;
  std::vector<std::pair<Field, Field>>
      scheduler_configs;  // a KAI snapshot's config, schedulerParams
};

void add_by_kind(const Field& obj, Objects& out, Diagnostics& diagnostics) {
  obj.expect_map();
  const std::string kind = obj.member("kind").string_or("");
  check_api_version(obj, kind);
  if (kind == "List") {
    const Field items = obj.member("items");
    if (items.is_null()) return;
    items.expect_sequence();
    for (std::size_t i = 0; i < items.size(); ++i) add_by_kind(items.item(i), out, diagnostics);
  } else if (kind == "Node") {
    out.nodes.push_back(obj);
  } else if (kind == "Pod") {
    out.pods.push_back(obj);
  } else if (kind == "Queue") {
    out.queues.push_back(obj);
  } else if (kind == "PodGroup") {
    out.pod_groups.push_back(obj);
  } else if (kind == "BindRequest") {
    out.bind_requests.push_back(obj);
  } else if (kind == "PriorityClass") {
    out.priority_classes.push_back(obj);
  } else if (kind == "Topology") {
    out.topologies.push_back(obj);
  } else if (kind == "NodeResourceTopology") {
    out.node_resource_topologies.push_back(obj);
  } else if (kind == "DeviceClass") {
    out.device_classes.push_back(obj);
  } else if (kind == "ResourceSlice") {
    out.resource_slices.push_back(obj);
  } else if (kind == "ResourceClaim") {
    out.resource_claims.push_back(obj);
  } else if (kind == "ResourceClaimTemplate") {
    out.claim_templates.push_back(obj);
  } else {
    diagnostics.warn(obj.where(), obj.path(),
                     "kind \"" + kind + "\" is not used by the scheduler, skipped");
  }
}

// KAI snapshot: rawObjects lists are typed by their key; objects there carry no `kind`.
void add_raw_objects(const Field& raw, Objects& out, Diagnostics& diagnostics) {
  raw.expect_map();
  const std::pair<const char*, std::vector<Field>*> lists[] = {
      {"nodes", &out.nodes},
      {"pods", &out.pods},
      {"queues", &out.queues},
      {"podGroups", &out.pod_groups},
      {"bindRequests", &out.bind_requests},
      {"priorityClasses", &out.priority_classes},
      {"topologies", &out.topologies},
      {"nodeResourceTopologies", &out.node_resource_topologies},
      {"deviceClasses", &out.device_classes},
      {"resourceSlices", &out.resource_slices},
      {"resourceClaims", &out.resource_claims}};
  for (const auto& [key, target] : lists) {
    const Field list = raw.member(key);
    if (list.is_null()) continue;
    list.expect_sequence();
    target->reserve(target->size() + list.size());
    for (std::size_t i = 0; i < list.size(); ++i) {
      Field item = list.item(i);
      item.expect_map();
      target->push_back(std::move(item));
    }
  }
  (void)diagnostics;
}

// ---------------------------------------------------------------- small field helpers

Labels read_string_map(const Field& f) {
  Labels::Map out;
  if (f.is_null()) return Labels();
  f.expect_map();
  f.for_each_entry([&](std::string_view key, const Field& value) {
    out.insert_or_assign(std::string(key), value.string_or(""));
  });
  return Labels(std::move(out));
}

std::optional<std::int64_t> read_time(const Field& f) {
  std::optional<std::string> text = f.optional_string();
  if (!text || text->empty()) return std::nullopt;
  std::optional<std::int64_t> ns = parse_rfc3339(*text);
  if (!ns) f.fail("not an RFC 3339 time: \"" + *text + "\"");
  return ns;
}

Quantity read_quantity(const Field& f) {
  std::string buffer;
  std::optional<Quantity> q = parse_quantity(f.scalar_view(buffer));
  if (!q || q->negative)
    f.fail("not a valid quantity such as \"500m\", \"2\" or \"1Gi\": " + f.describe());
  return *q;
}

std::int64_t read_milli(const Field& f) {
  std::optional<std::int64_t> v = read_quantity(f).milli_value();
  if (!v) f.fail("quantity is too large");
  return *v;
}

std::int64_t read_value(const Field& f) {
  std::optional<std::int64_t> v = read_quantity(f).value();
  if (!v) f.fail("quantity is too large");
  return *v;
}

ResourceList read_resource_list(const Field& f) {
  ResourceList out;
  if (f.is_null()) return out;
  f.expect_map();
  f.for_each_entry([&](std::string_view name, const Field& located) {
    if (name == "cpu") {
      at(out.base, Resource::CPU) = static_cast<double>(read_milli(located));
    } else if (name == "memory") {
      at(out.base, Resource::MEMORY) = static_cast<double>(read_value(located));
    } else if (name == "nvidia.com/gpu") {
      out.gpu = read_value(located);
      out.has_gpu = true;
      at(out.base, Resource::GPU) = static_cast<double>(out.gpu);
    } else if (name == "pods") {
      at(out.base, Resource::PODS) = static_cast<double>(read_value(located));
    } else if (std::string key(name); model::is_mig_resource(key)) {
      out.scalars[std::move(key)] = static_cast<double>(read_value(located));
    } else {
      (void)read_quantity(located);  // validated, not scheduled on
    }
  });
  return out;
}

// ---------------------------------------------------------------- nodes

model::Taint read_taint(const Field& f) {
  f.expect_map();
  return model::Taint{f.member("key").string_or(""), f.member("value").string_or(""),
                      f.member("effect").string_or("")};
}

model::Node read_node(const Field& obj) {
  model::Node node;
  const Field metadata = obj.member("metadata");
  if (metadata.is_null()) obj.fail("missing required field \"metadata\"");
  node.name = metadata.member("name").string_or("");
  if (node.name.empty()) metadata.fail("missing required field \"name\"");
  node.labels = read_string_map(metadata.member("labels"));
  const Field spec = obj.member("spec");
  if (!spec.is_null()) {
    spec.expect_map();
    const Field unschedulable = spec.member("unschedulable");
    node.unschedulable = !unschedulable.is_null() && unschedulable.scalar() == "true";
    const Field taints = spec.member("taints");
    if (!taints.is_null()) {
      taints.expect_sequence();
      for (std::size_t i = 0; i < taints.size(); ++i)
        node.taints.push_back(read_taint(taints.item(i)));
    }
  }
  const Field status = obj.member("status");
  Field allocatable = status.member("allocatable");
  if (allocatable.is_null()) allocatable = status.member("capacity");
  if (allocatable.is_null()) obj.fail("node has neither status.allocatable nor status.capacity");
  ResourceList list = read_resource_list(allocatable);
  // Bounded so per-device work stays small: real nodes have at most a few dozen GPUs.
  constexpr std::int64_t kMaxNodeGpus = 1024;
  if (list.gpu > kMaxNodeGpus) {
    allocatable.member("nvidia.com/gpu")
        .fail("more than " + std::to_string(kMaxNodeGpus) + " GPUs on one node");
  }
  for (const auto& [name, count] : list.scalars) {
    if (count > static_cast<double>(kMaxNodeGpus) * 8)
      allocatable.member(name).fail("more MIG instances than a node can hold");
  }
  node.scalars_allocatable = list.scalars;
  node.init(list.base);

  // CheckNodeConditionPredicate: of the conditions present, Ready must be True and the
  // pressure/network conditions False.
  const Field conditions = status.member("conditions");
  if (!conditions.is_null()) {
    conditions.expect_sequence();
    for (std::size_t i = 0; i < conditions.size(); ++i) {
      const Field c = conditions.item(i);
      const std::string type = c.member("type").string_or("");
      const std::string value = c.member("status").string_or("");
      if (type == "Ready" && value != "True") node.conditions_ok = false;
      if ((type == "MemoryPressure" || type == "DiskPressure" || type == "PIDPressure" ||
           type == "NetworkUnavailable") &&
          value != "False") {
        node.conditions_ok = false;
      }
    }
  }

  // getNodeGpuMemory: label in MiB (or bytes when >= 1 TiB in MiB), floored to 100 MiB.
  auto mem = node.labels.find("nvidia.com/gpu.memory");
  if (mem != node.labels.end()) {
    if (const std::optional<long long> v = whole_number(mem->second)) {
      long long mib = *v < 1024LL * 1024 ? *v : *v / (1024LL * 1024);
      node.gpu_memory_mib = mib - (mib % 100);
      node.gpu_memory_synced = true;
    }
  }
  auto count = node.labels.find("nvidia.com/gpu.count");
  if (count != node.labels.end()) {
    if (const std::optional<long long> v = whole_number(count->second)) node.gpu_count_label = *v;
  }
  return node;
}

// ---------------------------------------------------------------- pods

// Requests of all containers plus init-container effects, as the kubelet aggregates them;
// a resource given only as a limit is requested at its limit (API-server defaulting).
ResourceList container_requests(const Field& container) {
  container.expect_map();
  const Field resources = container.member("resources");
  const Field req_field = resources.member("requests");
  ResourceList requests = read_resource_list(req_field);
  const ResourceList limits = read_resource_list(resources.member("limits"));
  for (int i = 0; i < kResourceCount; ++i) {
    if (limits.base[i] == 0) continue;
    const std::string_view key = resource_name(static_cast<Resource>(i));
    if (req_field.member(key == "gpu" ? "nvidia.com/gpu" : key).is_null())
      requests.base[i] = limits.base[i];
  }
  if (!requests.has_gpu && limits.has_gpu) {
    requests.has_gpu = true;
    requests.gpu = limits.gpu;
  }
  for (const auto& [name, v] : limits.scalars) requests.scalars.try_emplace(name, v);
  return requests;
}

void add_into(ResourceList& sum, const ResourceList& part) {
  sum.base += part.base;
  if (part.has_gpu) {
    sum.has_gpu = true;
    sum.gpu += part.gpu;
  }
  for (const auto& [name, v] : part.scalars) sum.scalars[name] += v;
}

void max_into(ResourceList& peak, const ResourceList& part) {
  peak.base = peak.base.max(part.base);
  if (part.has_gpu && part.gpu > peak.gpu) {
    peak.has_gpu = true;
    peak.gpu = part.gpu;
  }
  for (const auto& [name, v] : part.scalars) peak.scalars[name] = std::max(peak.scalars[name], v);
}

}  // namespace

std::vector<model::Toleration> read_tolerations(const Field& list) {
  std::vector<model::Toleration> out;
  if (list.is_null()) return out;
  list.expect_sequence();
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Field t = list.item(i);
    t.expect_map();
    model::Toleration tol;
    tol.key = t.member("key").string_or("");
    tol.op = t.member("operator").string_or("Equal");
    tol.value = t.member("value").string_or("");
    tol.effect = t.member("effect").string_or("");
    if (const Field seconds = t.member("tolerationSeconds"); !seconds.is_null()) {
      // An int64 in the API (a JSON number, as `kaisim snapshot` and kubectl write it).
      if (!seconds.is_scalar())
        seconds.fail("expected a whole number of seconds, got " + seconds.describe());
      const std::string text = seconds.scalar();
      char* end = nullptr;
      errno = 0;
      tol.seconds = std::strtoll(text.c_str(), &end, 10);
      if (text.empty() || *end != '\0' || errno == ERANGE)
        seconds.fail("not a whole number of seconds: \"" + text + "\"");
    }
    out.push_back(std::move(tol));
  }
  return out;
}

namespace {

model::PlacementRules read_placement(const Field& spec) {
  model::PlacementRules rules;
  rules.node_selector = read_string_map(spec.member("nodeSelector"));
  rules.tolerations = read_tolerations(spec.member("tolerations"));
  const Field affinity = spec.member("affinity");
  const Field terms = affinity.is_null()
                          ? affinity
                          : affinity.member("nodeAffinity")
                                .member("requiredDuringSchedulingIgnoredDuringExecution")
                                .member("nodeSelectorTerms");
  if (!terms.is_null()) {
    terms.expect_sequence();
    for (std::size_t i = 0; i < terms.size(); ++i) {
      const Field term = terms.item(i);
      model::NodeSelectorTerm out;
      for (const char* kind : {"matchExpressions", "matchFields"}) {
        const Field list = term.member(kind);
        if (list.is_null()) continue;
        list.expect_sequence();
        auto& target = std::string(kind) == "matchExpressions" ? out.expressions : out.fields;
        for (std::size_t j = 0; j < list.size(); ++j)
          target.push_back(read_requirement(list.item(j), true));
      }
      rules.required.push_back(out);
    }
  }
  read_pod_affinity(affinity, rules);
  return rules;
}

PodGpuRequest read_gpu_request(const PodObject& pod);  // below, beside the Task's GPU fields

PodObject read_pod(const Field& obj) {
  PodObject pod{obj};
  const Field metadata = obj.member("metadata");
  if (metadata.is_null()) obj.fail("missing required field \"metadata\"");
  pod.name = metadata.member("name").string_or("");
  if (pod.name.empty()) metadata.fail("missing required field \"name\"");
  pod.ns = metadata.member("namespace").string_or("default");
  // Without a uid (hand-written manifests) a stable stand-in keeps PodGroup names valid.
  pod.uid = metadata.member("uid").string_or(pod.ns + "-" + pod.name);
  pod.labels = read_string_map(metadata.member("labels"));
  pod.annotations = read_string_map(metadata.member("annotations"));
  pod.created_ns = read_time(metadata.member("creationTimestamp")).value_or(0);
  pod.deleted_ns = read_time(metadata.member("deletionTimestamp"));
  const Field owners = metadata.member("ownerReferences");
  if (!owners.is_null()) {
    owners.expect_sequence();
    pod.controller_owned = owners.size() > 0;
  }
  const Field spec = obj.member("spec");
  if (spec.is_null()) obj.fail("missing required field \"spec\"");
  spec.expect_map();
  pod.node_name = spec.member("nodeName").string_or("");
  pod.scheduler_name = spec.member("schedulerName").string_or("default-scheduler");
  if (pod.scheduler_name == kSchedulerName) check_gpu_request(obj);
  pod.priority_class = spec.member("priorityClassName").string_or("");
  const Field gates = spec.member("schedulingGates");
  pod.gated = !gates.is_null() && gates.is_sequence() && gates.size() > 0;

  const Field containers = spec.member("containers");
  if (containers.is_null()) spec.fail("missing required field \"containers\"");
  containers.expect_sequence();
  for (std::size_t i = 0; i < containers.size(); ++i)
    add_into(pod.requests, container_requests(containers.item(i)));
  // Native sidecars add up; other init containers only raise the peak (initContainerEffects).
  ResourceList sidecars, peak;
  const Field inits = spec.member("initContainers");
  if (!inits.is_null()) {
    inits.expect_sequence();
    for (std::size_t i = 0; i < inits.size(); ++i) {
      ResourceList req = container_requests(inits.item(i));
      if (inits.item(i).member("restartPolicy").string_or("") == "Always") {
        add_into(sidecars, req);
      } else {
        add_into(req, sidecars);
        max_into(peak, req);
      }
    }
  }
  add_into(pod.requests, sidecars);
  max_into(pod.requests, peak);
  const Field overhead = spec.member("overhead");
  if (!overhead.is_null()) pod.requests.base += read_resource_list(overhead).base;
  at(pod.requests.base, Resource::PODS) = 1;
  pod.placement = model::SharedPlacement(read_placement(spec));

  const Field status = obj.member("status");
  pod.phase = status.member("phase").string_or("Pending");
  pod.nominated_node = status.member("nominatedNodeName").string_or("");
  pod.claims = read_pod_claims(obj);
  pod.guaranteed = is_guaranteed(obj);
  if (pod.guaranteed)
    pod.numa_units = std::make_shared<const model::NumaUnits>(read_numa_units(spec));
  pod.gpu_request = read_gpu_request(pod);
  return pod;  // derive_from_marks adds what the labels and annotations say
}

// ---------------------------------------------------------------- PodGroups, BindRequests, classes

PodGroupObject read_pod_group(const Field& obj) {
  PodGroupObject pg{obj};
  const Field metadata = obj.member("metadata");
  if (metadata.is_null()) obj.fail("missing required field \"metadata\"");
  pg.name = metadata.member("name").string_or("");
  if (pg.name.empty()) metadata.fail("missing required field \"name\"");
  pg.ns = metadata.member("namespace").string_or("default");
  pg.created_ns = read_time(metadata.member("creationTimestamp")).value_or(0);
  const Labels annotations = read_string_map(metadata.member("annotations"));
  if (auto it = annotations.find("kai.scheduler/last-start-timestamp"); it != annotations.end()) {
    pg.last_start_ns = parse_rfc3339(it->second);
  }
  if (auto it = annotations.find("kai.scheduler/stale-podgroup-timestamp");
      it != annotations.end()) {
    pg.stale_since_ns = parse_rfc3339(it->second);
  }
  const Field spec = obj.member("spec");
  if (spec.is_null()) obj.fail("missing required field \"spec\"");
  pg.queue = spec.member("queue").string_or("");
  pg.priority_class = spec.member("priorityClassName").string_or("");
  pg.preemptibility = spec.member("preemptibility").string_or("");
  if (!pg.preemptibility.empty() && pg.preemptibility != "preemptible" &&
      pg.preemptibility != "non-preemptible") {
    spec.member("preemptibility").fail("must be \"preemptible\" or \"non-preemptible\"");
  }
  const Field min_member = spec.member("minMember");
  if (std::optional<int> m = min_member.optional_int()) {
    if (*m < 0) min_member.fail("must be >= 0");
    pg.min_member = std::max(*m, 1);
  }
  pg.groups = read_subgroups(spec, pg.min_member);
  pg.name_hash = name_hash(pg.name);
  return pg;
}

BindRequestObject read_bind_request(const Field& obj) {
  BindRequestObject br;
  const Field metadata = obj.member("metadata");
  const std::string ns = metadata.member("namespace").string_or("default");
  const Field spec = obj.member("spec");
  br.pod_key = ns + "/" + spec.member("podName").string_or("");
  br.node = spec.member("selectedNode").string_or("");
  br.received_type = spec.member("receivedResourceType").string_or("");
  br.numa_zones = read_numa_record(spec.member("predictedNUMAZones"));
  br.claim_allocations = read_claim_allocations(spec);
  const Field groups = spec.member("selectedGPUGroups");
  if (!groups.is_null()) {
    groups.expect_sequence();
    for (std::size_t i = 0; i < groups.size(); ++i)
      br.gpu_groups.push_back(groups.item(i).string());
  }
  const Field status = obj.member("status");
  const std::string phase = status.member("phase").string_or("");
  const int attempts = status.member("failedAttempts").optional_int().value_or(0);
  const int backoff = spec.member("backoffLimit").optional_int().value_or(0);
  br.finally_failed = phase == "Failed" && attempts >= backoff;
  return br;
}

model::PriorityClass read_priority_class(const Field& obj) {
  model::PriorityClass pc;
  pc.name = obj.member("metadata").member("name").string_or("");
  if (pc.name.empty()) obj.fail("missing required field \"metadata.name\"");
  const Field value = obj.member("value");
  if (value.is_null()) obj.fail("missing required field \"value\"");
  pc.value = *value.optional_int();
  const Field global = obj.member("globalDefault");
  pc.global_default = !global.is_null() && global.scalar() == "true";
  return pc;
}

// A kai.scheduler/v1alpha1 Topology: spec.levels[].nodeLabel, outermost level first.
model::Topology read_topology(const Field& obj) {
  model::Topology t;
  t.name = obj.member("metadata").member("name").string_or("");
  if (t.name.empty()) obj.fail("missing required field \"metadata.name\"");
  const Field levels = obj.member("spec").member("levels");
  if (levels.is_null()) obj.member("spec").fail("missing required field \"levels\"");
  levels.expect_sequence();
  if (levels.size() == 0) levels.fail("a Topology needs at least one level");
  for (std::size_t i = 0; i < levels.size(); ++i) {
    const Field label = levels.item(i).member("nodeLabel");
    const std::string value = label.string_or("");
    if (value.empty()) levels.item(i).fail("missing required field \"nodeLabel\"");
    if (std::find(t.levels.begin(), t.levels.end(), value) != t.levels.end())
      label.fail("level \"" + value + "\" is listed twice");
    t.levels.push_back(value);
  }
  return t;
}

// ---------------------------------------------------------------- building the state

// The pod's DRA claims (GetDraPodClaims, resourceClaimInfoFromPodClaims): their GPU devices join
// its GPU request; each claim's allocation (or the BindRequest's, for a pod being bound) is what
// the pod remembers; a bound pod's BindRequest allocation is assumed for a claim that has none
// yet (assumePendingClaims).
void resolve_claims(const PodObject& pod, const BindRequestObject* br, model::ClusterState& state,
                    const std::unordered_map<std::string, int>& claim_index, model::Task& task) {
  model::TaskDevices& devices = task.devices.edit();
  devices.claims.clear();
  devices.claim_memory.clear();
  const bool finished = pod.phase == "Succeeded" || pod.phase == "Failed";
  for (const PodClaimRef& ref : pod.claims) {
    model::PodClaim pc{ref.name, -1, ref.claim, ref.from_template};
    auto found = ref.claim.empty() ? claim_index.end() : claim_index.find(pod.ns + "/" + ref.claim);
    if (found != claim_index.end()) {
      pc.claim = found->second;
      model::ResourceClaim& claim = state.claims[static_cast<std::size_t>(pc.claim)];
      task.gpu.dra += claim.gpu_devices();
      devices.claim_memory[ref.name] = claim.allocation;
      if (br) {
        for (const auto& [name, allocation] : br->claim_allocations) {
          if (name != ref.name) continue;
          devices.claim_memory[ref.name] = allocation;
          if (!finished && !claim.allocation) {
            claim.allocation = allocation;
            if (std::find(claim.reserved_for.begin(), claim.reserved_for.end(), pod.uid) ==
                claim.reserved_for.end()) {
              claim.reserved_for.push_back(pod.uid);
            }
          }
        }
      }
    }
    devices.claims.push_back(std::move(pc));
  }
  at(task.request, Resource::GPU) = task.gpu.gpus() + static_cast<double>(task.gpu.dra);
}

model::TaskStatus task_status(const PodObject& pod, const BindRequestObject* br,
                              std::int64_t now_ns) {
  using model::TaskStatus;
  constexpr std::int64_t kStuckThresholdNs = 120'000'000'000;  // --stuck-in-releasing-threshold 2m
  if (pod.phase == "Running") {
    if (pod.deleted_ns)
      return now_ns - *pod.deleted_ns > kStuckThresholdNs ? TaskStatus::STUCK_IN_RELEASING
                                                          : TaskStatus::RELEASING;
    return TaskStatus::RUNNING;
  }
  if (pod.phase == "Pending") {
    if (pod.deleted_ns) return TaskStatus::RELEASING;
    if (!pod.node_name.empty()) return TaskStatus::BOUND;
    if (br) return TaskStatus::BINDING;
    if (pod.gated) return TaskStatus::GATED;
    return TaskStatus::PENDING;
  }
  if (pod.phase == "Succeeded") return TaskStatus::SUCCEEDED;
  if (pod.phase == "Failed") return TaskStatus::FAILED;
  return TaskStatus::UNKNOWN;
}

// A whole number annotation ("" or other text: none).
std::optional<long long> whole_annotation(const Labels& annotations, const char* key) {
  auto it = annotations.find(key);
  if (it == annotations.end()) return std::nullopt;
  return whole_number(it->second);
}

// The GPU request from the pod's resources and annotations, as text (pod_info.go
// updatePodAdditionalFields).
PodGpuRequest read_gpu_request(const PodObject& pod) {
  const std::optional<long long> memory = whole_annotation(pod.annotations, "gpu-memory");
  double fraction = 0;
  if (auto it = pod.annotations.find("gpu-fraction"); it != pod.annotations.end()) {
    char* end = nullptr;
    const double v = std::strtod(it->second.c_str(), &end);
    if (!it->second.empty() && end == it->second.c_str() + it->second.size() && v > 0 && v <= 1)
      fraction = v;
  }
  PodGpuRequest request =
      gpu_request_of(pod.requests, memory && *memory > 0 ? *memory : 0, fraction,
                     whole_annotation(pod.annotations, "gpu-fraction-num-devices"));
  for (const auto& [name, value] : pod.annotations) {
    if (!model::is_mig_resource(name)) continue;
    const std::optional<long long> n = whole_number(value);
    if (!n) continue;
    request.gpu = model::GpuRequirement{};
    request.gpu.mig.set(name, *n);
    request.legacy_mig = true;
  }
  if (!request.gpu.mig.empty()) request.type = model::RequestType::MIG;
  return request;
}

void set_gpu_request(model::Task& task, const PodGpuRequest& request) {
  task.gpu = request.gpu;
  task.request_type = request.type;
  task.legacy_mig = request.legacy_mig;
  model::SharedMap<double>::Map scalars;
  for (const auto& [name, count] : task.gpu.mig) scalars[name] = static_cast<double>(count);
  task.scalars = model::SharedMap<double>(std::move(scalars));
  at(task.request, Resource::GPU) = task.gpu.gpus();
}

// Shared-GPU groups from the pod's labels: runai-gpu-group=<id>, or runai-gpu-group/<id>=<id>.
std::vector<std::string> gpu_groups_from_labels(const Labels& labels) {
  std::vector<std::string> groups;
  for (const auto& [key, value] : labels) {
    if (key.rfind("runai-gpu-group/", 0) == 0) groups.push_back(value);
  }
  if (groups.empty()) {
    if (auto it = labels.find("runai-gpu-group"); it != labels.end()) groups.push_back(it->second);
  }
  return groups;
}

model::ReceivedType received_type(const std::string& text) {
  if (text == "Fraction") return model::ReceivedType::FRACTION;
  if (text == "MigInstance") return model::ReceivedType::MIG;
  if (text == "Regular") return model::ReceivedType::REGULAR;
  return model::ReceivedType::NONE;
}

// What a pod contributes to the state on its own, before BindRequests, nodes and PodGroups are
// matched to it: read once per pod version.
model::Task task_template(const PodObject& pod) {
  model::Task task;
  task.uid = pod.uid;
  task.name = pod.name;
  task.ns = pod.ns;
  task.created_ns = pod.created_ns;
  task.controller_owned = pod.controller_owned;
  task.labels = pod.labels;
  task.placement = pod.placement;
  task.nominated_node = pod.nominated_node;
  task.request = pod.requests.base;
  task.reservation = pod.reservation_label && pod.ns == kReservationNamespace;
  if (auto it = pod.labels.find("kai.scheduler/task-priority"); it != pod.labels.end()) {
    if (const std::optional<long long> v = whole_number(it->second)) {
      task.task_priority = *v;
      task.has_task_priority = true;
    }
  }
  task.foreign = pod.scheduler_name != kSchedulerName && !task.reservation;
  task.qos_guaranteed = pod.guaranteed;
  task.devices.set(&model::TaskDevices::numa_units, pod.numa_units);
  set_gpu_request(task, pod.gpu_request);
  task.gpu_groups = gpu_groups_from_labels(pod.labels);
  if (auto it = pod.annotations.find("received-resource-type"); it != pod.annotations.end()) {
    task.received_type = received_type(it->second);
  }
  return task;
}

std::int64_t latest_time(const Objects& objects) {
  auto consider = [](const Field& obj, std::int64_t& latest) {
    const Field metadata = obj.member("metadata");
    for (const char* key : {"creationTimestamp", "deletionTimestamp"}) {
      const Field time = metadata.member(key);
      if (std::optional<std::string> t = time.optional_string(); t && !t->empty()) {
        // Go's decoder refuses the whole object for a time that is not one (metav1.Time).
        const std::optional<std::int64_t> ns = parse_rfc3339(*t);
        if (!ns) time.fail("not an RFC 3339 time: \"" + *t + "\"");
        latest = std::max(latest, *ns);
      }
    }
  };
  const std::vector<Field>* lists[] = {&objects.nodes, &objects.pods, &objects.queues,
                                       &objects.pod_groups};
  // The latest of the objects from..to-1, counted across the lists in this order.
  auto latest_of = [&](std::size_t from, std::size_t to) {
    std::int64_t latest = 0;
    std::size_t start = 0;
    for (const std::vector<Field>* list : lists) {
      const std::size_t end = start + list->size();
      for (std::size_t i = std::max(from, start); i < std::min(to, end); ++i) {
        if (i + 2 < std::min(to, end)) (*list)[i + 2 - start].prefetch();
        consider((*list)[i - start], latest);
      }
      start = end;
    }
    return latest;
  };
  std::size_t total = 0;
  for (const std::vector<Field>* list : lists) total += list->size();
  if (!worth_a_side_thread(total)) return latest_of(0, total);
  std::int64_t earlier = 0, later = 0;
  run_beside([&] { earlier = latest_of(0, total / 2); },
             [&] { later = latest_of(total / 2, total); });
  return std::max(earlier, later);
}

}  // namespace

std::optional<std::int64_t> parse_time_option(const std::string& text) {
  return parse_rfc3339(text);
}

model::ClusterState load_snapshot(const std::vector<SnapshotSource>& sources,
                                  const SnapshotOptions& options, Diagnostics& diagnostics) {
  std::vector<std::string> files;  // Field keeps a pointer to its file name
  files.reserve(sources.size());
  for (const SnapshotSource& source : sources) files.push_back(source.file);
  std::vector<ParsedText> parsed;  // what the Fields refer to
  parsed.reserve(sources.size());
  std::vector<Field> docs;
  for (std::size_t s = 0; s < sources.size(); ++s) {
    // A std::string's buffer holds capacity() characters and a terminator.
    const std::string& text = sources[s].text;
    parsed.emplace_back(text, files[s], diagnostics, text.capacity() - text.size());
    if (parsed.back().documents().empty()) {
      throw InputError(SourceLocation{files[s], 0, 0}, "",
                       "the file is empty: no Kubernetes object and no KAI snapshot in it");
    }
    docs.insert(docs.end(), parsed.back().documents().begin(), parsed.back().documents().end());
  }
  return build_cluster_state(docs, options, diagnostics);
}

namespace {

// Which PodGroup and PodSet the pod belongs to; for a KAI pod without a PodGroup annotation, the
// PodGroup the pod-grouper creates (defaultgrouper/default_grouper.go).
void read_grouping(PodObject& pod) {
  if (auto it = pod.annotations.find(std::string(kPodGroupAnnotation)); it != pod.annotations.end())
    pod.pod_group = it->second;
  auto label = pod.labels.find(std::string(kSubGroupLabel));
  pod.sub_group = label == pod.labels.end() ? "default" : label->second;
  if (pod.pod_group.empty() && pod.scheduler_name == kSchedulerName && !pod.base.reservation) {
    PodGroupObject pg(pod.source);
    pg.name = "pg-" + pod.name + "-" + pod.uid;
    pg.name_hash = name_hash(pg.name);
    pg.ns = pod.ns;
    auto q = pod.labels.find(std::string(kQueueLabel));
    auto project = pod.labels.find("project");
    pg.queue = q != pod.labels.end()         ? q->second
               : project != pod.labels.end() ? project->second
                                             : "default-queue";
    pod.grouper_class = pod.labels.contains("priorityClassName")
                            ? pod.labels.at("priorityClassName")
                            : pod.priority_class;
    if (auto p = pod.labels.find("kai.scheduler/preemptibility"); p != pod.labels.end())
      pg.preemptibility = p->second;
    pg.created_ns = pod.created_ns;
    pod.grouper = std::make_shared<const PodGroupObject>(std::move(pg));
  }
  pod.group_hash = pod.grouper ? pod.grouper->name_hash : name_hash(pod.pod_group);
}

}  // namespace

std::size_t name_hash(const std::string& name) { return std::hash<std::string_view>{}(name); }

void read_numa_marks(PodObject& pod) {
  pod.numa_observed.reset();
  pod.numa_predicted.reset();
  if (auto a = pod.annotations.find(std::string(kNumaObservedAnnotation));
      a != pod.annotations.end()) {
    pod.numa_observed = parse_numa_annotation(a->second);
  }
  if (auto a = pod.annotations.find(std::string(kNumaPredictedAnnotation));
      a != pod.annotations.end()) {
    pod.numa_predicted = parse_numa_annotation(a->second);
  }
}

void derive_from_marks(PodObject& pod) {
  auto app = pod.labels.find("app");
  pod.reservation_label = app != pod.labels.end() && app->second == "kai-resource-reservation";
  pod.base = task_template(pod);  // reads reservation_label
  pod.pod_group.clear();
  pod.grouper.reset();
  read_grouping(pod);
}

namespace {

// Nodes, BindRequests, PodGroups and pods, in that order. Pods are most of a large snapshot
// (140,000 at 4,000 nodes) and each is read on its own, so when there are many a second thread
// reads the last ones into `tail` (assembled after `out`, so in the same order) while this one
// reads the rest.
void read_bulk(const Objects& objects, ParsedObjects& out, ParsedObjects* tail) {
  auto read_pods = [&objects](std::size_t from, std::size_t to, std::vector<PodObject>& into) {
    into.reserve(into.size() + (to - from));
    for (std::size_t i = from; i < to; ++i) {
      if (i + 2 < to) objects.pods[i + 2].prefetch();
      into.push_back(read_pod(objects.pods[i]));
      read_numa_marks(into.back());
      derive_from_marks(into.back());
    }
  };
  auto read_others = [&objects, &out] {
    // Reserved: a Field has no move that cannot throw, so a growing vector copies each object.
    out.nodes.reserve(out.nodes.size() + objects.nodes.size());
    for (const Field& f : objects.nodes) out.nodes.emplace_back(f, read_node(f));
    for (const Field& f : objects.bind_requests) out.bind_requests.push_back(read_bind_request(f));
    out.pod_groups.reserve(out.pod_groups.size() + objects.pod_groups.size());
    for (std::size_t i = 0; i < objects.pod_groups.size(); ++i) {
      if (i + 2 < objects.pod_groups.size()) objects.pod_groups[i + 2].prefetch();
      out.pod_groups.push_back(read_pod_group(objects.pod_groups[i]));
    }
  };
  const std::size_t n = objects.pods.size();
  if (!tail || !worth_a_side_thread(n)) {
    read_others();
    read_pods(0, n, out.pods);
    return;
  }
  // This thread's share of the pods is smaller by what it reads first: a node takes about half
  // as long as a pod, a PodGroup about a fifth (measured on generated clusters).
  const std::size_t first_work =
      objects.nodes.size() / 2 + objects.bind_requests.size() + objects.pod_groups.size() / 5;
  const std::size_t split = n > first_work ? (n - first_work) / 2 : 0;
  run_beside(
      [&] {
        read_others();
        read_pods(0, split, out.pods);
      },
      [&] { read_pods(split, n, tail->pods); });
}

// Reads the objects kind by kind, so the first bad field reported is the same whatever the
// documents' order.
// `tail`, when given, may receive the last pods (read_bulk).
void parse_into(const Objects& objects, ParsedObjects& out, Diagnostics& diagnostics,
                ParsedObjects* tail = nullptr) {
  out.latest_time = std::max(out.latest_time, latest_time(objects));
  for (const auto& [config, params] : objects.scheduler_configs)
    out.config = read_scheduler_config(config, params);
  for (const Field& f : objects.priority_classes)
    out.priority_classes.push_back(read_priority_class(f));
  for (const Field& f : objects.topologies) out.topologies.push_back(read_topology(f));
  for (const Field& f : objects.device_classes)
    out.device_classes.push_back(read_device_class(f, diagnostics));
  for (const Field& f : objects.resource_slices)
    out.resource_slices.push_back(read_resource_slice(f, diagnostics));
  for (const Field& f : objects.resource_claims)
    out.resource_claims.push_back(read_resource_claim(f, diagnostics));
  for (const Field& f : objects.claim_templates) check_claim_template(f, diagnostics);
  for (const Field& f : objects.node_resource_topologies) {
    if (auto numa = read_node_resource_topology(f)) out.numa.push_back(std::move(*numa));
  }
  for (const Field& f : objects.queues) out.queues.push_back(f);
  read_bulk(objects, out, tail);
  out.mark_kinds();
  if (tail) tail->mark_kinds();
}

void collect(const Field& doc, Objects& objects, Diagnostics& diagnostics) {
  doc.expect_map();
  if (!doc.member("rawObjects").is_null()) {
    add_raw_objects(doc.member("rawObjects"), objects, diagnostics);
    objects.scheduler_configs.emplace_back(doc.member("config"), doc.member("schedulerParams"));
  } else {
    add_by_kind(doc, objects, diagnostics);
  }
}

// PodGroup name -> job, rebuilt every cycle of a replay: open addressing over the names' hashes
// taken at reading, so no name is hashed or copied here.
class JobsByName {
 public:
  explicit JobsByName(std::size_t n) {
    std::size_t size = 16;
    while (size < n + n / 2) size *= 2;  // at most two thirds full
    slots_.resize(size);
  }
  /// The job of that name, or an invalid id.
  JobId find(const std::string& name, std::size_t hash) const {
    return slots_[probe(name, hash)].job;
  }
  /// Sets the job of `name` (which must outlive the table); a later PodGroup of the same name wins.
  void set(const std::string& name, std::size_t hash, JobId job) {
    Slot& slot = slots_[probe(name, hash)];
    slot = {&name, hash, job};
  }

 private:
  struct Slot {
    const std::string* name = nullptr;
    std::size_t hash = 0;
    JobId job = JobId::invalid();
  };
  std::size_t probe(const std::string& name, std::size_t hash) const {
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = hash & mask;
    while (slots_[i].name && (slots_[i].hash != hash || *slots_[i].name != name))
      i = (i + 1) & mask;
    return i;
  }
  std::vector<Slot> slots_;
};

}  // namespace

PodGpuRequest gpu_request_of(const ResourceList& requests, std::int64_t gpu_memory_mib,
                             double gpu_fraction, std::optional<long long> fraction_devices) {
  using model::GpuRequirement;
  PodGpuRequest request;
  if (requests.has_gpu) {
    request.gpu = requests.gpu >= 1
                      ? GpuRequirement::with_gpus(static_cast<double>(requests.gpu), 0)
                      : GpuRequirement{1, 0, 0, {}};
  }
  if (gpu_memory_mib > 0) {
    request.gpu = GpuRequirement::with_gpus(0, gpu_memory_mib);
    request.type = model::RequestType::GPU_MEMORY;
  }
  if (gpu_fraction > 0) {
    request.gpu = GpuRequirement::with_gpus(gpu_fraction, 0);
    request.type = model::RequestType::FRACTION;
  }
  const bool fractional = request.type == model::RequestType::FRACTION ||
                          request.type == model::RequestType::GPU_MEMORY;
  if (fractional && fraction_devices)
    request.gpu = GpuRequirement::multi_fraction(*fraction_devices, gpu_fraction, gpu_memory_mib);
  for (const auto& [name, count] : requests.scalars) {
    if (model::is_mig_resource(name) && count > 0)
      request.gpu.mig.set(name, static_cast<std::int64_t>(count));
  }
  if (!request.gpu.mig.empty()) request.type = model::RequestType::MIG;
  return request;
}

int priority_of(const std::vector<model::PriorityClass>& classes, const std::string& name,
                bool& found) {
  for (const model::PriorityClass& pc : classes) {
    if (pc.name == name) return found = true, pc.value;
  }
  found = false;
  return model::default_priority(classes);
}

void set_job(model::Job& job, const model::ClusterState& state, const PodGroupObject& pg,
             const std::string& priority_class) {
  job.name = pg.name;
  job.ns = pg.ns;
  job.queue_name = pg.queue;
  job.queue = state.queue_tree.find(pg.queue);
  bool found = false;
  job.priority = priority_of(state.priority_classes, priority_class, found);
  job.preemptible =
      pg.preemptibility.empty() ? job.priority < 100 : pg.preemptibility == "preemptible";
  job.groups = pg.groups;
  job.created_ns = pg.created_ns;
  job.last_start_ns = pg.last_start_ns;
  job.stale_since_ns = pg.stale_since_ns;
  job.problem.clear();
  if (!job.queue.valid()) job.problem = "queue \"" + pg.queue + "\" does not exist";
}

namespace {

// set_task without its warning: what a second thread may do while this one reads PodGroups.
void fill_task(model::Task& task, TaskId id, const model::ClusterState& state, const PodObject& pod,
               const BindRequestObject* br) {
  task = pod.base;
  task.id = id;
  task.status = task_status(pod, br, state.now_ns);
  if (br && !br->gpu_groups.empty()) task.gpu_groups = br->gpu_groups;
  if (br && !br->received_type.empty()) task.received_type = received_type(br->received_type);
  // resolvePlacementRecord: observed, else the BindRequest's prediction, else the predicted
  // annotation.
  if (pod.numa_observed)
    task.devices.set(&model::TaskDevices::numa_record, *pod.numa_observed);
  else if (br && br->numa_zones)
    task.devices.set(&model::TaskDevices::numa_record, *br->numa_zones);
  else if (pod.numa_predicted)
    task.devices.set(&model::TaskDevices::numa_record, *pod.numa_predicted);
  const std::string& node_name = pod.node_name.empty() && br ? br->node : pod.node_name;
  if (!node_name.empty()) task.node = state.find_node(node_name);
}

// set_task's warning for a task fill_task set.
void warn_unknown_node(const model::Task& task, const PodObject& pod, const BindRequestObject* br,
                       Diagnostics& diagnostics) {
  const std::string& node_name = pod.node_name.empty() && br ? br->node : pod.node_name;
  if (!node_name.empty() && !task.node.valid() && model::is_active_used(task.status)) {
    diagnostics.warn(
        pod.source.where(), pod.source.path(),
        "pod runs on unknown node \"" + node_name + "\"; its resources are not counted");
  }
}

}  // namespace

void set_task(model::Task& task, TaskId id, const model::ClusterState& state, const PodObject& pod,
              const BindRequestObject* br, Diagnostics& diagnostics) {
  fill_task(task, id, state, pod, br);
  warn_unknown_node(task, pod, br, diagnostics);
}

void add_pod_marks(PodObject& pod, const std::vector<std::pair<std::string, std::string>>& labels,
                   const std::vector<std::pair<std::string, std::string>>& annotations) {
  pod.labels.set_all(labels);
  pod.annotations.set_all(annotations);
  bool gpu_marked = false, numa_marked = false;
  for (const auto& [key, value] : annotations) {
    gpu_marked = gpu_marked || key == "gpu-memory" || key == "gpu-fraction" ||
                 key == "gpu-fraction-num-devices" || model::is_mig_resource(key);
    numa_marked = numa_marked || key == kNumaObservedAnnotation || key == kNumaPredictedAnnotation;
  }
  // The binder's marks are neither: it sets the NUMA record typed beside its annotation.
  if (gpu_marked) pod.gpu_request = read_gpu_request(pod);
  if (numa_marked) read_numa_marks(pod);
  derive_from_marks(pod);
}

std::shared_ptr<const ParsedObjects> parse_objects(const Field& doc, Diagnostics& diagnostics) {
  Objects objects;
  collect(doc, objects, diagnostics);
  auto parsed = std::make_shared<ParsedObjects>();
  parse_into(objects, *parsed, diagnostics);
  return parsed;
}

model::ClusterState build_cluster_state(const std::vector<Field>& docs,
                                        const SnapshotOptions& options, Diagnostics& diagnostics) {
  Objects objects;
  for (const Field& doc : docs) collect(doc, objects, diagnostics);
  ParsedObjects parsed, tail;  // tail: the last pods of a long list, read on a second thread
  parse_into(objects, parsed, diagnostics, &tail);
  model::ClusterState state = assemble_cluster_state({&parsed, &tail}, options, diagnostics);
  if (!tail.pods.empty()) {  // and freed on a second thread
    run_beside([&parsed] { parsed = ParsedObjects(); }, [&tail] { tail = ParsedObjects(); });
  }
  return state;
}

model::ClusterState assemble_cluster_state(const std::vector<const ParsedObjects*>& parts,
                                           const SnapshotOptions& options,
                                           Diagnostics& diagnostics) {
  model::ClusterState fresh;  // named: GCC 12 -O3 misreads a temporary here as uninitialised
  return assemble_cluster_state(parts, options, diagnostics, std::move(fresh));
}

model::ClusterState assemble_cluster_state(const std::vector<const ParsedObjects*>& parts,
                                           const SnapshotOptions& options, Diagnostics& diagnostics,
                                           model::ClusterState recycled) {
  // Only the three big vectors (and the node index, while the nodes are the same) are carried
  // over, and every element in use is assigned anew below; everything else starts from its
  // default.
  model::ClusterState state;
  state.nodes = std::move(recycled.nodes);
  state.tasks = std::move(recycled.tasks);
  state.jobs = std::move(recycled.jobs);
  // One pass over the parts (a replay has one per object, thousands of them), kind by kind after.
  std::int64_t latest = 0;
  std::vector<const model::PriorityClass*> class_objects;
  std::vector<const model::Topology*> topology_objects;
  std::vector<const std::pair<std::string, model::NumaTopology>*> numa_objects;
  std::vector<const Field*> queue_fields;
  std::vector<const std::pair<Field, model::Node>*> node_objects;
  std::vector<const BindRequestObject*> bind_objects;
  std::vector<const PodGroupObject*> group_objects;
  std::vector<const PodObject*> pods;
  for (const ParsedObjects* p : parts) {
    latest = std::max(latest, p->latest_time);
    using K = ParsedObjects::Kind;
    const std::uint32_t kinds = p->kinds;
    if (kinds & K::kPods)
      for (const PodObject& pod : p->pods) pods.push_back(&pod);
    if (kinds & K::kPodGroups)
      for (const PodGroupObject& pg : p->pod_groups) group_objects.push_back(&pg);
    if (kinds & K::kNodes)
      for (const auto& n : p->nodes) node_objects.push_back(&n);
    if (kinds == K::kPods || kinds == K::kPodGroups || kinds == K::kNodes)
      continue;  // most parts of a replay
    for (const model::PriorityClass& pc : p->priority_classes) class_objects.push_back(&pc);
    for (const model::Topology& t : p->topologies) topology_objects.push_back(&t);
    for (const auto& n : p->numa) numa_objects.push_back(&n);
    for (const model::DeviceClass& c : p->device_classes) state.device_classes.push_back(c);
    for (const model::DraSlice& sl : p->resource_slices) state.resource_slices.push_back(sl);
    for (const model::ResourceClaim& c : p->resource_claims) state.claims.push_back(c);
    for (const Field& f : p->queues) queue_fields.push_back(&f);
    for (const BindRequestObject& br : p->bind_requests) bind_objects.push_back(&br);
    if (p->config) state.config = *p->config;
  }
  state.now_ns = options.now_ns.value_or(latest);
  // The state's longest lists, reserved now and faulted in beside while the queues, nodes and
  // PodGroups are read.
  std::size_t grouped_pods = 0;  // pods the pod-grouper gives a PodGroup of their own
  for (const PodObject* pod : pods) grouped_pods += pod->grouper ? 1U : 0U;
  IdVector<JobId, model::Job> spare_jobs = std::move(state.jobs);
  state.jobs = {};
  state.jobs.reserve(group_objects.size() + grouped_pods);
  state.tasks.reserve(pods.size());
  const PagesFaultedBeside pages(
      {{state.tasks.data(), state.tasks.capacity() * sizeof(model::Task)},
       {state.jobs.data(), state.jobs.capacity() * sizeof(model::Job)}});

  state.priority_classes = model::default_priority_classes();
  for (const model::PriorityClass* pc : class_objects) {
    auto same = std::find_if(state.priority_classes.begin(), state.priority_classes.end(),
                             [&](const auto& c) { return c.name == pc->name; });
    if (same != state.priority_classes.end())
      *same = *pc;
    else
      state.priority_classes.push_back(*pc);
  }

  // Topologies by name; a later object of the same name replaces an earlier one.
  for (const model::Topology* t : topology_objects) {
    auto same = std::find_if(state.topologies.begin(), state.topologies.end(),
                             [&](const auto& x) { return x.name == t->name; });
    if (same != state.topologies.end())
      *same = *t;
    else
      state.topologies.push_back(*t);
  }
  std::sort(state.topologies.begin(), state.topologies.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });

  // Queues: KAI drops orphan subtrees; the tree keeps the survivors in canonical order.
  std::vector<model::QueueSpec> specs;
  std::vector<std::string> paths;
  for (std::size_t i = 0; i < queue_fields.size(); ++i) {
    specs.push_back(read_queue_object(*queue_fields[i], static_cast<std::int64_t>(i), diagnostics));
    paths.push_back(queue_fields[i]->path().empty() ? "queue \"" + specs[i].name + "\""
                                                    : queue_fields[i]->path());
  }
  if (!state.config.full_hierarchy_fairness)
    apply_project_level_fairness(specs, paths, diagnostics);
  std::vector<model::QueueLink> links;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    model::QueueLink link;
    link.uid = specs[i].name;
    link.parent = specs[i].parent;
    link.where = specs[i].where;
    link.path = paths[i];
    links.push_back(std::move(link));
  }
  state.queue_tree = model::QueueTree::build(links, diagnostics);
  state.queues.resize(state.queue_tree.size());
  for (QueueId q : state.queue_tree.level_order())
    state.queues[q] = specs[state.queue_tree.source_index(q)];

  // The name index of the recycled state still holds when the same nodes come in the same order.
  const std::size_t node_count = node_objects.size();
  bool same_nodes = recycled.node_by_name.size() == node_count && state.nodes.size() >= node_count;
  for (std::size_t i = 0; same_nodes && i < node_count; ++i) {
    same_nodes = state.nodes[NodeId(static_cast<NodeId::value_type>(i))].name ==
                 node_objects[i]->second.name;
  }
  if (same_nodes) state.node_by_name = std::move(recycled.node_by_name);
  state.nodes.resize(node_count);
  state.node_by_name.reserve(node_count);
  for (std::size_t i = 0; i < node_count; ++i) {
    const auto& [f, parsed_node] = *node_objects[i];
    const NodeId id(static_cast<NodeId::value_type>(i));
    if (!same_nodes) {
      if (state.node_by_name.contains(parsed_node.name))
        f.fail("duplicate node \"" + parsed_node.name + "\"");
      state.node_by_name.emplace(parsed_node.name, id);
    }
    state.nodes[id] = parsed_node;
  }
  // populateDRAGPUs: a node's GPU-driver slices add their devices to its GPUs.
  for (const model::DraSlice& sl : state.resource_slices) {
    if (sl.all_nodes || !model::is_gpu_device_class(sl.driver) || sl.devices.empty()) continue;
    const NodeId id = state.find_node(sl.node);
    if (!id.valid()) continue;
    model::Node& node = state.nodes[id];
    const double gpus = static_cast<double>(sl.devices.size());
    at(node.allocatable, Resource::GPU) += gpus;
    at(node.idle, Resource::GPU) += gpus;
    node.dra_gpus = true;
  }
  std::unordered_map<std::string, int> claim_index;  // "ns/name" -> index; a later object wins
  for (std::size_t i = 0; i < state.claims.size(); ++i)
    claim_index[state.claims[i].ns + "/" + state.claims[i].name] = static_cast<int>(i);

  // populateNodeResourceTopologies: a NodeResourceTopology names its node.
  for (const auto* numa : numa_objects) {
    const NodeId id = state.find_node(numa->first);
    if (id.valid()) state.nodes[id].numa = numa->second;
  }
  model::update_gpu_memory_bounds(state);

  std::unordered_map<std::string, const BindRequestObject*> binds;
  for (const BindRequestObject* br : bind_objects) {
    if (br->finally_failed || !state.node_by_name.contains(br->node)) continue;
    binds[br->pod_key] = br;
  }

  JobsByName job_by_name(group_objects.size() + grouped_pods);
  auto add_job = [&](const PodGroupObject& pg, const std::string& priority_class) {
    const JobId id = state.jobs.next_id();
    model::Job job;
    if (id.index() < spare_jobs.size()) {
      // Reuse the memory of last cycle's job: every field is assigned below or reset here.
      job = std::move(spare_jobs[id]);
      job.tasks.clear();
    }
    set_job(job, state, pg, priority_class);
    job_by_name.set(pg.name, pg.name_hash, id);  // KAI keys PodGroups by name only: the later wins
    state.jobs.push_back(std::move(job));
    return id;
  };
  auto add_group_jobs = [&] {
    for (const PodGroupObject* pg : group_objects) {
      if (job_by_name.find(pg->name, pg->name_hash).valid()) {
        diagnostics.warn(pg->source.where(), pg->source.path(),
                         "PodGroup name \"" + pg->name +
                             "\" repeats; KAI keys PodGroups by name, the later one wins");
      }
      add_job(*pg, pg->priority_class);
    }
  };
  // The pods' own parts of their tasks, on a second thread beside the PodGroups when there are
  // many: neither reads what the other writes.
  std::vector<const BindRequestObject*> pod_binds(binds.empty() ? 0 : pods.size());
  auto fill_tasks = [&] {
    // Reservation pods first: they hold everything except GPUs (cluster_info.go snapshotPods).
    std::stable_partition(pods.begin(), pods.end(),
                          [](const PodObject* p) { return p->reservation_label; });
    state.tasks.resize(pods.size());
    for (std::size_t i = 0; i < pods.size(); ++i) {
      const PodObject& pod = *pods[i];
      const BindRequestObject* br = nullptr;
      if (!binds.empty()) {  // the replay never has BindRequests: skip building the key
        const auto br_it = binds.find(pod.ns + "/" + pod.name);
        if (br_it != binds.end()) br = pod_binds[i] = br_it->second;
      }
      const TaskId id(static_cast<TaskId::value_type>(i));
      fill_task(state.tasks[id], id, state, pod, br);
    }
  };
  if (worth_a_side_thread(pods.size())) {
    run_beside(add_group_jobs, fill_tasks);
  } else {
    add_group_jobs();
    fill_tasks();
  }

  for (std::size_t i = 0; i < pods.size(); ++i) {
    const PodObject& pod = *pods[i];
    const TaskId id(static_cast<TaskId::value_type>(i));
    model::Task& task = state.tasks[id];
    const BindRequestObject* br = binds.empty() ? nullptr : pod_binds[i];
    warn_unknown_node(task, pod, br, diagnostics);
    if (!pod.claims.empty()) resolve_claims(pod, br, state, claim_index, task);

    if (pod.scheduler_name == kSchedulerName && !task.reservation) {
      const std::string& group = pod.grouper ? pod.grouper->name : pod.pod_group;
      JobId job = job_by_name.find(group, pod.group_hash);
      if (pod.grouper && !job.valid()) {
        // Pods without a PodGroup get one from the pod-grouper, in a class that exists.
        bool found = false;
        (void)priority_of(state.priority_classes, pod.grouper_class, found);
        job = add_job(*pod.grouper, found ? pod.grouper_class : std::string("train"));
      }
      if (!job.valid()) {
        diagnostics.warn(pod.source.where(), pod.source.path(),
                         "pod " + pod.ns + "/" + pod.name + " names PodGroup \"" + group +
                             "\" which does not exist; ignored as KAI does");
      } else {
        task.job = job;
        // AddTaskInfo: the PodSet named by the label, "default" without one; none found makes the
        // pod invalid (never scheduled).
        task.pod_set = state.jobs[task.job].groups->find_pod_set(pod.sub_group);
        state.jobs[task.job].tasks.push_back(task.id);
      }
    }
    if (task.node.valid() && model::is_active_used(task.status))
      state.nodes[task.node].add_task(task);
  }
  return state;
}

}  // namespace sim::io
