#include "world.hpp"

#include <algorithm>
#include <cstdio>
#include <set>

#include "generators.hpp"
#include "io/bare_pod.hpp"
#include "io/dra_reader.hpp"
#include "io/parsed_objects.hpp"
#include "io/snapshot_fields.hpp"
#include "io/yaml_field.hpp"
#include "sim/core/assert.hpp"
#include "sim/core/go_json.hpp"
#include "sim/io/quantity.hpp"
#include "yaml_text.hpp"

namespace sim::replay {
namespace {

constexpr std::int64_t kEpochSeconds = 1767225600;  // 2026-01-01T00:00:00Z

// GPUs a bound pod holds for events: what it accepted, or its MIG instances as KAI counts them.
double event_gpus(const model::Task& t) {
  return t.is_mig_candidate() ? t.gpu.gpus_quota() : at(t.accepted, Resource::GPU);
}

bool is_kai_pod(const YAML::Node& doc) {
  return str(doc, "spec", "schedulerName") == "kai-scheduler";
}

// Kinds kept per namespace ("default" when a manifest gives none); the rest are cluster-wide.
bool namespaced_kind(const std::string& kind) {
  return kind == "Pod" || kind == "PodGroup" || kind == "BindRequest" || kind == "ResourceClaim" ||
         kind == "ResourceClaimTemplate";
}

// A pod's reading after a change the world made to its document itself (bound to a node, started),
// made from its reading before the change instead of parsing the document again; null (parse it
// when next asked) when there was no reading. Debug builds parse it again and compare.
template <typename Change>
std::shared_ptr<const io::ParsedObjects> pod_reading_after(
    const std::shared_ptr<const io::ParsedObjects>& before, const YAML::Node& doc,
    const std::string* file, Change change) {
  if (!before || before->kinds != io::ParsedObjects::kPods || before->pods.size() != 1)
    return nullptr;
  auto changed = std::make_shared<io::ParsedObjects>(*before);
  change(changed->pods.front());
#ifndef NDEBUG
  Diagnostics ignored;
  const auto reread = io::parse_objects(io::Field(doc, "", file), ignored);
  SIM_ASSERT(reread->kinds == io::ParsedObjects::kPods && reread->pods.size() == 1);
  const io::PodObject& typed = changed->pods.front();
  const io::PodObject& parsed = reread->pods.front();
  SIM_ASSERT(typed.node_name == parsed.node_name && typed.phase == parsed.phase &&
             typed.labels == parsed.labels && typed.annotations == parsed.annotations &&
             typed.nominated_node == parsed.nominated_node &&
             typed.claims.size() == parsed.claims.size() &&
             typed.numa_predicted == parsed.numa_predicted &&
             typed.base.gpu_groups == parsed.base.gpu_groups &&
             typed.base.received_type == parsed.base.received_type);
#else
  (void)doc, (void)file;
#endif
  return changed;
}

}  // namespace

std::string_view event_name(PodEventType type) {
  switch (type) {
    case PodEventType::SUBMIT:
      return "submit";
    case PodEventType::BIND:
      return "bind";
    case PodEventType::PIPELINE:
      return "pipeline";
    case PodEventType::EVICT:
      return "evict";
    case PodEventType::DELETE:
      return "delete";
    case PodEventType::GONE:
      return "gone";
    case PodEventType::RECREATE:
      return "recreate";
    case PodEventType::COMPLETE:
      return "complete";
    case PodEventType::LOST:
      return "lost";
  }
  return "";
}

std::string format_time(std::int64_t ms) { return io::format_rfc3339(kEpochSeconds + ms / 1000); }

std::int64_t epoch_ns(std::int64_t ms) { return (kEpochSeconds * 1000 + ms) * 1'000'000; }

// order_ follows objects_ by binary search: a cycle then reads the objects in key order without
// walking the map.
namespace {
template <typename Order>
auto position(Order& order, const std::string& key) {
  return std::lower_bound(order.begin(), order.end(), key,
                          [](const auto& entry, const std::string& k) { return *entry.first < k; });
}
}  // namespace

void World::put(const std::string& key, Object obj) {
  auto [it, added] = objects_.insert_or_assign(key, std::move(obj));
  if (added) order_.insert(position(order_, key), {&it->first, &it->second});
}

void World::drop(const std::string& key) {
  auto it = objects_.find(key);
  if (it == objects_.end()) return;
  order_.erase(position(order_, key));
  objects_.erase(it);
  drop_generated_claims(key);
  // A timer must not outlive its pod: a later pod of the same name would inherit it.
  for (Timers* timers : {&terminating_, &binding_, &completing_, &taint_evictions_})
    timers->erase(key);
  taint_since_.erase(key);
}

YAML::Node World::edit(Object& obj) {
  ++version_;
  obj.parsed.reset();
  return obj.doc;
}

std::string World::key_of(const YAML::Node& doc) const {
  const std::string kind = str(doc, "kind");
  const bool namespaced = namespaced_kind(kind);
  std::string ns = str(doc, "metadata", "namespace");
  if (namespaced && ns.empty()) ns = "default";
  return kind + "/" + (namespaced ? ns : "") + "/" + str(doc, "metadata", "name");
}

std::string World::queue_of(const YAML::Node& pod) const {
  std::string q = str(pod["metadata"], "labels", "kai.scheduler/queue");
  return q.empty() ? "default-queue" : q;
}

double World::requested_gpus(const YAML::Node& pod) const {
  const std::string fraction = str(pod["metadata"], "annotations", "gpu-fraction");
  if (!fraction.empty()) return std::strtod(fraction.c_str(), nullptr);
  double total = 0;
  // Index step by step and test IsDefined first: a missing key of a const yaml-cpp node is a
  // "zombie" that throws on any other use.
  const YAML::Node spec = pod["spec"];
  if (!spec.IsDefined() || !spec.IsMap()) return total;
  const YAML::Node containers = spec["containers"];
  if (!containers.IsDefined() || !containers.IsSequence()) return total;
  for (const YAML::Node& c : containers) {
    if (!c.IsMap()) continue;
    const YAML::Node resources = c["resources"];
    if (!resources.IsDefined() || !resources.IsMap()) continue;
    for (const char* part : {"requests", "limits"}) {
      const std::string gpus = str(resources, part, "nvidia.com/gpu");
      if (!gpus.empty()) {
        total += std::strtod(gpus.c_str(), nullptr);
        break;
      }
    }
    // A MIG instance "Ng.*" counts as N GPUs, as KAI's quota accounting counts it.
    const YAML::Node limits = resources["limits"];
    if (!limits.IsDefined() || !limits.IsMap()) continue;
    for (const auto& kv : limits) {
      const std::string name = kv.first.Scalar();
      if (model::is_mig_resource(name) && kv.second.IsScalar()) {
        total += static_cast<double>(model::mig_profile_gpus(name)) *
                 std::strtod(kv.second.Scalar().c_str(), nullptr);
      }
    }
  }
  return total + claim_gpus(pod);
}

// The GPU devices the pod's DRA claims ask for (countGPUDevicesFromClaim), as the scheduler counts
// them: claims it names, and those the claim controller made from templates for it.
double World::claim_gpus(const YAML::Node& pod) const {
  const YAML::Node spec = pod["spec"];
  if (!spec.IsDefined() || !spec.IsMap() || !spec["resourceClaims"].IsDefined() ||
      !spec["resourceClaims"].IsSequence())
    return 0;
  double total = 0;
  const std::string ns =
      str(pod, "metadata", "namespace").empty() ? "default" : str(pod, "metadata", "namespace");
  std::vector<std::string> names;
  for (const YAML::Node& ref : spec["resourceClaims"]) {
    if (ref.IsMap()) names.push_back(str(ref, "resourceClaimName"));  // a scalar's subscript throws
  }
  const YAML::Node status = pod["status"];
  const YAML::Node statuses =
      status.IsDefined() && status.IsMap() ? status["resourceClaimStatuses"] : YAML::Node();
  if (statuses.IsDefined() && statuses.IsSequence()) {
    for (const YAML::Node& st : statuses) {
      if (st.IsMap()) names.push_back(str(st, "resourceClaimName"));
    }
  }
  for (const std::string& name : names) {
    if (name.empty()) continue;
    auto claim = objects_.find("ResourceClaim/" + ns + "/" + name);
    if (claim == objects_.end()) continue;
    // The claim as the scheduler reads it (io's reader, model's count), not a second YAML walk.
    Diagnostics ignored;  // the claim was checked when it was applied
    total += static_cast<double>(
        io::read_resource_claim(io::Field(claim->second.doc, "", claim->second.file.get()), ignored)
            .gpu_devices());
  }
  return total;
}

void World::apply(const Manifest& m, std::int64_t now_ms, std::vector<PodEvent>& events) {
  apply(Manifest{YAML::Clone(m.doc), m.file}, now_ms, events);
}

void World::apply(Manifest&& m, std::int64_t now_ms, std::vector<PodEvent>& events) {
  apply(std::move(m), now_ms, events, nullptr);
}

void World::apply(const PodShape& shape, const std::string& file, std::int64_t now_ms,
                  std::vector<PodEvent>& events) {
  apply(Manifest{bare_pod_manifest(shape), file}, now_ms, events, &shape);
}

void World::apply(Manifest&& m, std::int64_t now_ms, std::vector<PodEvent>& events,
                  const PodShape* shape) {
  YAML::Node doc = m.doc;
  const std::string kind = str(doc, "kind");
  if (!doc["metadata"].IsDefined()) doc["metadata"] = YAML::Node(YAML::NodeType::Map);
  if (kind == "Pod" && str(doc, "metadata", "namespace").empty())
    doc["metadata"]["namespace"] = "default";
  const std::string key = key_of(doc);
  auto existing = objects_.find(key);
  if (existing != objects_.end() && !terminating_.contains(key)) {
    // kubectl apply on a live object: spec updates (Queues, Nodes) take effect; a Pod's spec is
    // immutable, so its runtime state is kept.
    if (kind == "Pod") return;
    ++version_;
    doc["metadata"]["creationTimestamp"] = existing->second.doc["metadata"]["creationTimestamp"];
    // A claim's status belongs to the scheduler and the claim controller, not to kubectl apply.
    if (kind == "ResourceClaim") {
      const YAML::Node status = existing->second.doc["status"];
      if (status.IsDefined())
        doc["status"] = YAML::Clone(status);
      else
        doc.remove("status");
    }
    existing->second.doc.reset(doc);  // rebind: Node::operator= would write into the old document
    existing->second.parsed.reset();
    existing->second.scheduler_marks.reset();
    if (kind == "Node") node_condition_changed(str(doc, "metadata", "name"), doc, now_ms, events);
    return;
  }
  ++version_;
  if (existing != objects_.end()) {  // re-created while the old one terminates: replace it
    terminating_.erase(key);
  }
  if (!doc["metadata"]["creationTimestamp"].IsDefined())
    doc["metadata"]["creationTimestamp"] = format_time(now_ms);
  std::optional<Grouped> grouped;
  if (kind == "Pod") {
    if (!doc["metadata"]["uid"].IsDefined())
      doc["metadata"]["uid"] = "uid-" + std::to_string(++next_uid_);
    if (!doc["status"].IsDefined()) doc["status"]["phase"] = "Pending";
    gone_.erase(str(doc, "metadata", "namespace") + "/" + str(doc, "metadata", "name"));
    if (is_kai_pod(doc) && str(doc["metadata"], "annotations", "pod-group-name").empty()) {
      grouped = group_bare_pod(doc, m.file, now_ms);
      if (existing == objects_.end() && str(doc, "spec", "nodeName").empty()) {
        // A bare pod arriving for the scheduler, with the PodGroup made for it.
        ++arrived_;
        ++changes_.arrived;
        changes_.pods.push_back(key);
        changes_.groups.push_back(grouped->key);
      }
    }
  }
  put(key, Object{doc, std::make_shared<const std::string>(m.file)});
  if (shape && grouped)
    read_generated(*shape, objects_.at(key), *grouped, objects_.at(grouped->key), now_ms);
  if (kind == "Node") node_condition_changed(str(doc, "metadata", "name"), doc, now_ms, events);
  if (kind == "Pod") {
    claims_from_templates(key, now_ms);  // before the event, which counts the claims' GPUs
    // A generated pod's GPUs are the numbers it was drawn with, the same as its manifest's.
    SIM_ASSERT(!shape || shape_gpus(*shape) == requested_gpus(doc));
    events.push_back({now_ms, PodEventType::SUBMIT,
                      str(doc, "metadata", "namespace") + "/" + str(doc, "metadata", "name"),
                      queue_of(doc), "", "", "", shape ? shape_gpus(*shape) : requested_gpus(doc)});
  }
  if (kind == "ResourceClaimTemplate") template_applied(str(doc, "metadata", "namespace"), now_ms);
  // A pod applied with spec.nodeName needs no scheduler: the kubelet starts it.
  if (kind == "Pod" && !str(doc, "spec", "nodeName").empty()) {
    if (str(doc, "status", "phase") == "Pending") mark_running(key, now_ms);
    schedule_taint_eviction(key, now_ms, events);
  }
}

// defaultgrouper: PodGroup pg-<pod>-<uid>, owned by the pod, minMember 1, queue from the
// kai.scheduler/queue label, priority class from the pod if it exists, else "train".
World::Grouped World::group_bare_pod(YAML::Node pod, const std::string& file, std::int64_t now_ms) {
  const std::string ns = str(pod, "metadata", "namespace");
  const std::string name = "pg-" + str(pod, "metadata", "name") + "-" + str(pod, "metadata", "uid");
  YAML::Node pg;
  pg["apiVersion"] = "scheduling.run.ai/v2alpha2";
  pg["kind"] = "PodGroup";
  pg["metadata"]["name"] = name;
  pg["metadata"]["namespace"] = ns;
  pg["metadata"]["creationTimestamp"] = format_time(now_ms);
  pg["spec"]["minMember"] = 1;
  pg["spec"]["queue"] = queue_of(pod);
  std::string cls = str(pod["metadata"], "labels", "priorityClassName");
  if (cls.empty()) cls = str(pod, "spec", "priorityClassName");
  const bool known = cls == "train" || cls == "build-preemptible" || cls == "build" ||
                     cls == "inference" || objects_.contains("PriorityClass//" + cls);
  if (!known) cls = "train";
  pg["spec"]["priorityClassName"] = cls;
  const std::string preemptibility = str(pod["metadata"], "labels", "kai.scheduler/preemptibility");
  if (!preemptibility.empty()) pg["spec"]["preemptibility"] = preemptibility;
  pod["metadata"]["annotations"]["pod-group-name"] = name;
  const std::string key = "PodGroup/" + ns + "/" + name;
  put(key, Object{pg, std::make_shared<const std::string>(file)});
  return {key, name, queue_of(pod), cls, preemptibility};
}

void World::read_generated(const PodShape& shape, Object& pod, const Grouped& group, Object& pg,
                           std::int64_t now_ms) {
  const YAML::Node metadata = pod.doc["metadata"];
  io::BarePod bare;
  bare.name = str(metadata, "name");
  bare.ns = str(metadata, "namespace");
  bare.uid = str(metadata, "uid");
  bare.priority_class = shape.priority_class;
  bare.created_ns = epoch_ns(now_ms / 1000 * 1000);  // the timestamp holds whole seconds
  bare.labels = model::Labels(model::Labels::Map{{"kai.scheduler/queue", shape.queue}});
  model::Labels::Map annotations;
  for (auto& [key, value] : bare_pod_annotations(shape)) annotations[key] = std::move(value);
  annotations["pod-group-name"] = group.name;
  bare.annotations = model::Labels(std::move(annotations));
  bare.gpus = shape.gpus;
  bare.gpu_fraction = shape.gpu_fraction;
  bare.gpu_memory_mib = shape.gpu_memory_mib;
  bare.mig_resource = mig_resource(shape);
  bare.mig_instances = bare.mig_resource.empty() ? 0 : shape.mig_instances;
  bare.cpu = shape.cpu;
  bare.memory = shape.memory;
  const io::Field pod_doc(pod.doc, "", pod.file.get()), group_doc(pg.doc, "", pg.file.get());
  auto readings = io::read_bare_pod(
      bare, pod_doc, {group.name, group.queue, group.priority_class, group.preemptibility},
      group_doc);
  if (!readings) return;  // parsed when first read: the manifest's checks report the problem
#ifndef NDEBUG
  Diagnostics ignored;
  const auto pod_parsed = io::parse_objects(pod_doc, ignored);
  const auto group_parsed = io::parse_objects(group_doc, ignored);
  SIM_ASSERT(pod_parsed->kinds == readings->first->kinds && pod_parsed->pods.size() == 1 &&
             pod_parsed->latest_time == readings->first->latest_time &&
             io::same_pod_reading(pod_parsed->pods.front(), readings->first->pods.front()));
  SIM_ASSERT(group_parsed->kinds == readings->second->kinds &&
             group_parsed->pod_groups.size() == 1 &&
             group_parsed->latest_time == readings->second->latest_time &&
             io::same_group_reading(group_parsed->pod_groups.front(),
                                    readings->second->pod_groups.front()));
#endif
  pod.parsed = std::move(readings->first);
  pg.parsed = std::move(readings->second);
}

void World::start_termination(const std::string& key, std::int64_t now_ms,
                              std::vector<PodEvent>& events) {
  if (terminating_.contains(key)) return;
  Object& obj = objects_.at(key);
  YAML::Node doc = edit(obj);
  const std::string pod = str(doc, "metadata", "namespace") + "/" + str(doc, "metadata", "name");
  const std::string phase = str(doc, "status", "phase");
  completing_.erase(key);
  taint_evictions_.erase(key);
  if (phase != "Running" && str(doc, "spec", "nodeName").empty()) {
    // Never started: the API server removes it at once.
    binding_.erase(key);
    const double gpus = requested_gpus(doc);  // before drop() takes the claims made for the pod
    drop(key);
    gone_[pod] = "Deleted";
    events.push_back({now_ms, PodEventType::GONE, pod, queue_of(doc), "", "", "", gpus});
    return;
  }
  doc["metadata"]["deletionTimestamp"] = format_time(now_ms);
  std::int64_t grace = default_grace_ms_;
  if (doc["spec"]["terminationGracePeriodSeconds"].IsDefined()) {
    grace = static_cast<std::int64_t>(
        std::strtod(doc["spec"]["terminationGracePeriodSeconds"].Scalar().c_str(), nullptr) * 1000);
  }
  terminating_.set(key, now_ms + grace);
}

void World::remove(const ObjectRef& ref, std::int64_t now_ms, std::vector<PodEvent>& events) {
  const bool namespaced = namespaced_kind(ref.kind);
  const std::string key = ref.kind + "/" + (namespaced ? ref.ns : "") + "/" + ref.name;
  auto it = objects_.find(key);
  if (it == objects_.end()) return;
  ++version_;
  if (ref.kind == "Node") {
    node_taints_.erase(ref.name);
    // The pod garbage collector deletes pods bound to a node that no longer exists, at once.
    std::vector<std::string> lost;
    for (const auto& [pod_key, obj] : objects_) {
      if (pod_key.rfind("Pod/", 0) == 0 && str(obj.doc, "spec", "nodeName") == ref.name)
        lost.push_back(pod_key);
    }
    for (const std::string& pod_key : lost) {
      const YAML::Node doc = objects_.at(pod_key).doc;
      events.push_back({now_ms, PodEventType::LOST,
                        str(doc, "metadata", "namespace") + "/" + str(doc, "metadata", "name"),
                        queue_of(doc), ref.name, "node-removed", "", requested_gpus(doc)});
      start_termination(pod_key, now_ms, events);
      if (terminating_.contains(pod_key)) terminating_.set(pod_key, now_ms);
    }
  }
  if (ref.kind == "Pod") {
    events.push_back({now_ms, PodEventType::DELETE, ref.ns + "/" + ref.name,
                      queue_of(it->second.doc), "", "", "", requested_gpus(it->second.doc)});
    start_termination(key, now_ms, events);
    return;
  }
  drop(key);
}

// The kubelet starts the pod; one with a run time (kaisim/runtime) completes that long after.
void World::mark_running(const std::string& key, std::int64_t since_ms) {
  Object& obj = objects_.at(key);
  const std::shared_ptr<const io::ParsedObjects> before = obj.parsed;
  YAML::Node doc = edit(obj);
  ++started_;
  changes_.pods.push_back(key);
  doc["status"]["phase"] = "Running";
  obj.parsed = pod_reading_after(before, doc, obj.file.get(),
                                 [](io::PodObject& pod) { pod.phase = "Running"; });
  const std::string runtime = str(doc["metadata"], "annotations", kRuntimeAnnotation);
  if (runtime.empty()) return;
  const std::optional<std::int64_t> ms = io::parse_go_duration_ms(runtime);
  if (ms && *ms > 0) completing_.set(key, since_ms + *ms);
}

std::int64_t World::next_due() const {
  std::int64_t next = -1;
  for (const Timers* timers : {&terminating_, &binding_, &completing_, &taint_evictions_}) {
    const std::int64_t at = timers->next();
    if (at >= 0) next = next < 0 ? at : std::min(next, at);
  }
  return next;
}

void World::advance(std::int64_t now_ms, std::vector<PodEvent>& events) {
  for (const auto& [key, at] : binding_.take_due(now_ms)) {
    if (objects_.contains(key)) mark_running(key, at);
  }
  for (const auto& [key, at] : completing_.take_due(now_ms)) {
    const std::uint64_t before = version_++;
    auto found = objects_.find(key);
    if (found == objects_.end()) continue;  // deleted meanwhile: nothing left to complete
    const Object obj = found->second;
    const double gpus = requested_gpus(obj.doc);  // before drop() takes the claims made for the pod
    drop(key);
    const std::string ns = str(obj.doc, "metadata", "namespace");
    const std::string name = str(obj.doc, "metadata", "name");
    gone_[ns + "/" + name] = "Succeeded";
    events.push_back({now_ms, PodEventType::COMPLETE, ns + "/" + name, queue_of(obj.doc),
                      str(obj.doc, "spec", "nodeName"), "", "", gpus});
    const std::string group = str(obj.doc["metadata"], "annotations", "pod-group-name");
    if (group.rfind("pg-" + name + "-", 0) == 0) {
      drop("PodGroup/" + ns + "/" + group);
      // A bare pod gone with its PodGroup: the scheduler loses one job of one pod.
      finished_ += version_ - before;
      changes_.gone_pods.push_back(ns + "/" + name);
      changes_.gone_groups.push_back(ns + "/" + group);
    }
  }
  evict_for_taints(now_ms, events);
  for (const auto& [key, at] : terminating_.take_due(now_ms)) {
    ++version_;
    Object obj = objects_.at(key);
    const double gpus = requested_gpus(obj.doc);  // before drop() takes the claims made for the pod
    drop(key);
    const std::string ns = str(obj.doc, "metadata", "namespace");
    const std::string name = str(obj.doc, "metadata", "name");
    const std::string pod = ns + "/" + name;
    const std::string group = str(obj.doc["metadata"], "annotations", "pod-group-name");
    const bool owned = obj.doc["metadata"]["ownerReferences"].IsDefined() &&
                       obj.doc["metadata"]["ownerReferences"].size() > 0;
    events.push_back({now_ms, PodEventType::GONE, pod, queue_of(obj.doc), "", "", "", gpus});
    if (!owned) {
      gone_[pod] = "Deleted";
      // The pod-grouper's PodGroup is owned by the bare pod: garbage-collected with it.
      if (group.rfind("pg-" + name + "-", 0) == 0) drop("PodGroup/" + ns + "/" + group);
      continue;
    }
    // A controller brings the pod back as a new Pending pod of the same PodGroup.
    YAML::Node fresh = YAML::Clone(obj.doc);
    const int n = ++recreated_[pod];
    fresh["metadata"]["name"] = name + "-r" + std::to_string(n);
    fresh["metadata"]["uid"] = "uid-" + std::to_string(++next_uid_);
    fresh["metadata"]["creationTimestamp"] = format_time(now_ms);
    fresh["metadata"].remove("deletionTimestamp");
    fresh["spec"].remove("nodeName");
    fresh["status"] = YAML::Node(YAML::NodeType::Map);
    fresh["status"]["phase"] = "Pending";
    if (fresh["metadata"]["labels"].IsDefined())
      fresh["metadata"]["labels"].remove("runai-gpu-group");
    if (fresh["metadata"]["annotations"].IsDefined()) {
      fresh["metadata"]["annotations"].remove("received-resource-type");
      fresh["metadata"]["annotations"].remove("kai.scheduler/numa-placement-predicted");
    }
    put(key_of(fresh), Object{fresh, obj.file});
    claims_from_templates(key_of(fresh), now_ms);
    events.push_back({now_ms, PodEventType::RECREATE, ns + "/" + str(fresh, "metadata", "name"),
                      queue_of(fresh), "", "", "", requested_gpus(fresh)});
  }
}

// What the binder writes for a bound pod's claims: the allocation and the pod as a consumer.
void World::record_claims(const model::ClusterState& state, const model::Task& t) {
  for (const model::PodClaim& pc : t.devices->claims) {
    if (pc.claim < 0) continue;
    const model::ResourceClaim& claim = state.claims[static_cast<std::size_t>(pc.claim)];
    auto it = objects_.find("ResourceClaim/" + claim.ns + "/" + claim.name);
    if (it == objects_.end() || !claim.allocation) continue;
    YAML::Node doc = edit(it->second);
    if (!doc["status"].IsMap()) doc["status"] = YAML::Node(YAML::NodeType::Map);
    YAML::Node results(YAML::NodeType::Sequence);
    for (const model::DraDevice& d : claim.allocation->devices) {
      YAML::Node r;
      r["driver"] = d.driver;
      r["pool"] = d.pool;
      r["device"] = d.name;
      results.push_back(r);
    }
    YAML::Node allocation;
    allocation["devices"]["results"] = results;
    if (!claim.allocation->node.empty()) {
      YAML::Node field;
      field["key"] = "metadata.name";
      field["operator"] = "In";
      field["values"].push_back(claim.allocation->node);
      YAML::Node term;
      term["matchFields"].push_back(field);
      allocation["nodeSelector"]["nodeSelectorTerms"].push_back(term);
    }
    doc["status"]["allocation"] = allocation;
    if (doc["status"]["reservedFor"].IsDefined() && !doc["status"]["reservedFor"].IsSequence()) {
      doc["status"]["reservedFor"] = YAML::Node(YAML::NodeType::Sequence);
    }
    YAML::Node reserved = doc["status"]["reservedFor"];
    bool listed = false;
    if (reserved.IsSequence()) {
      for (const YAML::Node& r : reserved)
        listed = listed || (r.IsMap() && r["uid"].IsDefined() && r["uid"].IsScalar() &&
                            r["uid"].Scalar() == t.uid);
    }
    if (!listed) {
      YAML::Node consumer;
      consumer["resource"] = "pods";
      consumer["name"] = t.name;
      consumer["uid"] = t.uid;
      doc["status"]["reservedFor"].push_back(consumer);
    }
  }
}

void World::remember_marks(const model::ClusterState& state) {
  snapshot_marks_.clear();
  for (const model::Job& job : state.jobs)
    snapshot_marks_.emplace_back(job.last_start_ns, job.stale_since_ns);
}

const io::ParsedObjects* World::parsed(Object& obj, Diagnostics& diagnostics) {
  if (!obj.parsed)
    obj.parsed = io::parse_objects(io::Field(obj.doc, "", obj.file.get()), diagnostics);
  return obj.parsed.get();
}

model::ClusterState World::snapshot(std::int64_t now_ms, Diagnostics& diagnostics) {
  release_claims();
  std::vector<const io::ParsedObjects*> parts;
  parts.reserve(order_.size());
  for (auto [key, obj] : order_) parts.push_back(parsed(*obj, diagnostics));
  changes_ = {};
  io::SnapshotOptions options;
  options.now_ns = epoch_ns(now_ms);
  model::ClusterState state =
      io::assemble_cluster_state(parts, options, diagnostics, std::move(spare_state_));
  remember_marks(state);
  state.next_gpu_group = next_gpu_group;
  state.sum_order = model::SumOrder::EXACT;  // the ledger keeps exact sums pod by pod
  return state;
}

model::ClusterState World::snapshot_aside(std::int64_t now_ms, Diagnostics& diagnostics) {
  Changes changes = changes_;
  auto marks = snapshot_marks_;
  model::ClusterState state = snapshot(now_ms, diagnostics);
  changes_ = std::move(changes);
  snapshot_marks_ = std::move(marks);
  return state;
}

bool World::update_snapshot(model::ClusterState& state, std::int64_t now_ms, bool& pods_moved,
                            std::vector<std::string>& touched, Diagnostics& diagnostics) {
  Changes changes = std::exchange(changes_, {});
  pods_moved = changes.arrived > 0 || !changes.gone_pods.empty();
  touched = changes.gone_pods;
  for (const std::string& key : changes.pods) touched.push_back(key.substr(key.find('/') + 1));
  // The assembly reads a BindRequest into the pod it names; this update does not.
  auto bind_requests = objects_.lower_bound("BindRequest/");
  if (bind_requests != objects_.end() && bind_requests->first.rfind("BindRequest/", 0) == 0)
    return false;
  io::PodChanges delta;
  delta.gone_pods = std::move(changes.gone_pods);
  delta.gone_groups = std::move(changes.gone_groups);
  // Each changed object once, as it is now; one that is gone must be listed as gone.
  auto read = [&](std::vector<std::string>& keys, const std::vector<std::string>& gone,
                  std::vector<const io::ParsedObjects*>& out) {
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    for (const std::string& key : keys) {
      auto it = objects_.find(key);
      if (it != objects_.end()) {
        out.push_back(parsed(it->second, diagnostics));
        continue;
      }
      const std::string name = key.substr(key.find('/') + 1);  // "namespace/name"
      if (std::find(gone.begin(), gone.end(), name) == gone.end()) return false;
    }
    return true;
  };
  if (!read(changes.pods, delta.gone_pods, delta.pods) ||
      !read(changes.groups, delta.gone_groups, delta.groups))
    return false;
  auto node_object = [&](const std::string& name) -> const io::ParsedObjects* {
    auto it = objects_.find("Node//" + name);
    return it == objects_.end() ? nullptr : parsed(it->second, diagnostics);
  };
  if (!io::update_pods(state, delta, node_object, diagnostics)) return false;
  state.now_ns = epoch_ns(now_ms);
  state.next_gpu_group = next_gpu_group;
  remember_marks(state);
  return true;
}

bool World::recent_pod_changes(std::vector<const io::ParsedObjects*>& pods,
                               std::vector<std::string>& gone, Diagnostics& diagnostics) {
  if (changes_.arrived > 0) return false;
  gone.assign(changes_.gone_pods.begin() + static_cast<std::ptrdiff_t>(changes_.gone_seen),
              changes_.gone_pods.end());
  for (std::size_t i = changes_.pods_seen; i < changes_.pods.size(); ++i) {
    auto it = objects_.find(changes_.pods[i]);
    if (it != objects_.end()) {
      pods.push_back(parsed(it->second, diagnostics));
      continue;
    }
    const std::string& key = changes_.pods[i];
    const std::string name = key.substr(key.find('/') + 1);  // "namespace/name"
    if (std::find(changes_.gone_pods.begin(), changes_.gone_pods.end(), name) ==
        changes_.gone_pods.end())
      return false;
  }
  changes_.pods_seen = changes_.pods.size();
  changes_.gone_seen = changes_.gone_pods.size();
  return true;
}

void World::apply_decisions(const sched::Session& ssn, std::int64_t now_ms,
                            std::int64_t bind_delay_ms, std::vector<PodEvent>& events) {
  const model::ClusterState& state = ssn.state;
  next_gpu_group = state.next_gpu_group;
  auto pod_key = [](const model::Task& t) { return "Pod/" + t.ns + "/" + t.name; };
  auto queue = [&](const model::Task& t) {
    return t.job.valid() ? state.jobs[t.job].queue_name : std::string();
  };
  for (const sched::BindDecision& b : ssn.binds) {
    const model::Task& t = state.tasks[b.task];
    auto it = objects_.find(pod_key(t));
    if (it == objects_.end()) continue;
    const std::shared_ptr<const io::ParsedObjects> before = it->second.parsed;
    YAML::Node doc = edit(it->second);
    doc["spec"]["nodeName"] = state.nodes[b.node].name;
    std::vector<std::pair<std::string, std::string>> labels, annotations;
    if (t.is_shared_gpu_allocation()) {
      annotations.emplace_back("received-resource-type", "Fraction");
      if (b.gpu_groups.size() == 1) {
        labels.emplace_back("runai-gpu-group", b.gpu_groups.front());
      } else {
        for (const std::string& g : b.gpu_groups) labels.emplace_back("runai-gpu-group/" + g, g);
      }
      for (const auto& [key, value] : annotations) doc["metadata"]["annotations"][key] = value;
      for (const auto& [key, value] : labels) doc["metadata"]["labels"][key] = value;
    }
    // What KAI's binder writes for a pod the numa plugin placed: the zones it charged, for later
    // cycles to rebuild each zone's ledger from; as JSON in the document, typed in the reading.
    std::string numa_text;
    std::vector<model::ZoneAmounts> numa_record;
    if (!t.devices->numa_placement.empty() && state.nodes[b.node].numa) {
      const model::NumaTopology& numa = *state.nodes[b.node].numa;
      numa_text = "[";
      for (const model::ZoneAmounts& z : t.devices->numa_placement) {
        const std::string& id = numa.zones[static_cast<std::size_t>(z.zone)].id;
        numa_record.push_back({-1, id, z.amount});  // as read_numa_record reads it back
        numa_text += std::string(numa_text.size() > 1 ? "," : "") + "{\"zone\":" + json_string(id) +
                     ",\"amount\":{";
        bool first = true;
        for (const auto& [resource, milli] : z.amount) {
          numa_text += (first ? "" : ",") + json_string(resource) + ":" +
                       json_string(io::format_milli_quantity(milli));
          first = false;
        }
        numa_text += "}}";
      }
      numa_text += "]";
      doc["metadata"]["annotations"][std::string(io::kNumaPredictedAnnotation)] = numa_text;
    }
    // The reading takes the node and the marks too, so the pod is not parsed again (pods with DRA
    // claims are: the claim controller edits them).
    if (t.devices->claims.empty()) {
      it->second.parsed =
          pod_reading_after(before, doc, it->second.file.get(), [&](io::PodObject& pod) {
            pod.node_name = state.nodes[b.node].name;
            if (!numa_text.empty()) {
              pod.annotations.set(std::string(io::kNumaPredictedAnnotation), numa_text);
              pod.numa_predicted = numa_record;
            }
            if (!labels.empty() || !annotations.empty())
              io::add_pod_marks(pod, labels, annotations);
          });
    }
    if (!t.devices->claims.empty()) record_claims(state, t);
    changes_.pods.push_back(pod_key(t));
    binding_.set(pod_key(t), now_ms + bind_delay_ms);
    if (bind_delay_ms == 0) mark_running(pod_key(t), now_ms);
    events.push_back({now_ms, PodEventType::BIND, t.key(), queue(t), state.nodes[b.node].name, "",
                      "", event_gpus(t)});
  }
  if (bind_delay_ms == 0) {
    for (const sched::BindDecision& b : ssn.binds) binding_.erase(pod_key(state.tasks[b.task]));
  }
  for (const sched::PipelineDecision& p : ssn.pipelines) {
    const model::Task& t = state.tasks[p.task];
    events.push_back({now_ms, PodEventType::PIPELINE, t.key(), queue(t), state.nodes[p.node].name,
                      p.action, "", at(t.request, Resource::GPU)});
  }
  for (const sched::EvictionDecision& e : ssn.evictions) {
    const model::Task& t = state.tasks[e.task];
    const std::string beneficiary = e.beneficiary.valid() ? state.jobs[e.beneficiary].name : "";
    const std::string beneficiary_queue =
        e.beneficiary.valid() ? state.jobs[e.beneficiary].queue_name : "";
    events.push_back({now_ms, PodEventType::EVICT, t.key(), queue(t), state.nodes[e.node].name,
                      e.reason, beneficiary, event_gpus(t), beneficiary_queue});
    if (objects_.contains(pod_key(t))) start_termination(pod_key(t), now_ms, events);
  }
  // Scheduler annotations on PodGroups: last start and staleness, for the jobs whose marks the
  // cycle changed.
  for (const model::Job& job : state.jobs) {
    const std::size_t index = static_cast<std::size_t>(&job - &*state.jobs.begin());
    if (index < snapshot_marks_.size() &&
        snapshot_marks_[index] == std::pair(job.last_start_ns, job.stale_since_ns)) {
      continue;
    }
    auto it = objects_.find("PodGroup/" + job.ns + "/" + job.name);
    if (it == objects_.end()) continue;
    // Read again even when the annotation text stays the same: the job's in-session marks may be
    // finer than the whole seconds the annotation holds.
    changes_.groups.push_back(it->first);
    const std::string last =
        job.last_start_ns ? format_time((*job.last_start_ns - epoch_ns(0)) / 1'000'000) : "";
    const std::string stale =
        job.stale_since_ns ? format_time((*job.stale_since_ns - epoch_ns(0)) / 1'000'000) : "";
    Object& pg = it->second;
    if (!pg.scheduler_marks) {
      const YAML::Node metadata = pg.doc["metadata"];
      pg.scheduler_marks.emplace(
          str(metadata, "annotations", "kai.scheduler/last-start-timestamp"),
          str(metadata, "annotations", "kai.scheduler/stale-podgroup-timestamp"));
    }
    auto& [current_last, current_stale] = *pg.scheduler_marks;
    if ((last.empty() || last == current_last) && stale == current_stale) continue;
    if (!last.empty()) current_last = last;
    current_stale = stale;
    const std::shared_ptr<const io::ParsedObjects> before = pg.parsed;
    YAML::Node annotations = edit(pg)["metadata"]["annotations"];
    if (!last.empty()) annotations["kai.scheduler/last-start-timestamp"] = last;
    if (!stale.empty()) {
      annotations["kai.scheduler/stale-podgroup-timestamp"] = stale;
    } else if (annotations.IsDefined() && annotations.IsMap()) {
      annotations.remove("kai.scheduler/stale-podgroup-timestamp");
    }
    // The reading changes in the two marks alone, as read_pod_group reads them: no new parse.
    if (before && before->kinds == io::ParsedObjects::kPodGroups &&
        before->pod_groups.size() == 1) {
      auto marked = std::make_shared<io::ParsedObjects>(*before);
      io::PodGroupObject& read = marked->pod_groups.front();
      if (!last.empty()) read.last_start_ns = io::parse_rfc3339(last);
      read.stale_since_ns = stale.empty() ? std::nullopt : io::parse_rfc3339(stale);
      pg.parsed = std::move(marked);
#ifndef NDEBUG
      Diagnostics ignored;
      const auto reread = io::parse_objects(io::Field(pg.doc, "", pg.file.get()), ignored);
      SIM_ASSERT(reread->pod_groups.size() == 1 &&
                 reread->pod_groups.front().last_start_ns == read.last_start_ns &&
                 reread->pod_groups.front().stale_since_ns == read.stale_since_ns);
#endif
    }
  }
}

bool World::has_pods() const {
  auto it = objects_.lower_bound("Pod/");
  return it != objects_.end() && it->first.rfind("Pod/", 0) == 0;
}

const YAML::Node* World::find(const std::string& kind, const std::string& ns,
                              const std::string& name) const {
  auto it = objects_.find(kind + "/" + (namespaced_kind(kind) ? ns : std::string()) + "/" + name);
  return it == objects_.end() ? nullptr : &it->second.doc;
}

std::vector<const YAML::Node*> World::objects_of(const std::string& kind) const {
  std::vector<const YAML::Node*> out;
  const std::string prefix = kind + "/";
  for (auto it = objects_.lower_bound(prefix);
       it != objects_.end() && it->first.rfind(prefix, 0) == 0; ++it) {
    out.push_back(&it->second.doc);
  }
  return out;
}

std::string World::pod_phase(const std::string& pod) const {
  const auto slash = pod.find('/');
  const std::string key = "Pod/" + pod.substr(0, slash) + "/" + pod.substr(slash + 1);
  auto it = objects_.find(key);
  if (it == objects_.end()) return gone_.contains(pod) ? gone_.at(pod) : "Absent";
  if (terminating_.contains(key)) return "Releasing";
  return str(it->second.doc, "status", "phase") == "Running" ? "Running" : "Pending";
}

std::string World::pod_node(const std::string& pod) const {
  const auto slash = pod.find('/');
  auto it = objects_.find("Pod/" + pod.substr(0, slash) + "/" + pod.substr(slash + 1));
  return it == objects_.end() ? std::string() : str(it->second.doc, "spec", "nodeName");
}

}  // namespace sim::replay
