#include <cmath>
#include <set>
#include <vector>

#include "pod_status.hpp"
#include "sim/core/error.hpp"
#include "sim/core/go_json.hpp"
#include "sim/io/quantity.hpp"

namespace sim::io {
namespace {

constexpr int kNonPreemptiblePriorityThreshold = 100;  // KAI: pkg/common/podgroup/preemptible.go
constexpr NanoAmount kNanoPerUnit = 1'000'000'000;
constexpr NanoAmount kMaxNano =
    static_cast<NanoAmount>(kNanoPerUnit) * kNanoPerUnit * kNanoPerUnit * 100;

// n[a][b]... as text, empty when absent. Looks up step by step so a missing key never becomes
// one of yaml-cpp's "zombie" nodes.
std::string text_at(const YAML::Node& n, std::initializer_list<const char*> keys) {
  YAML::Node cur = n;
  for (const char* k : keys) {
    if (!cur.IsDefined() || !cur.IsMap()) return {};
    const YAML::Node next = cur[k];
    cur.reset(next);
  }
  return cur.IsDefined() && cur.IsScalar() ? cur.Scalar() : std::string();
}

YAML::Node child(const YAML::Node& n, const char* key) {
  if (!n.IsDefined() || !n.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
  return n[key];
}

// A container's requests; a resource with a limit and no request gets the limit, as the API
// server defaults it (the replay's objects are not defaulted by one).
ResourceAmounts container_requests(const YAML::Node& container) {
  ResourceAmounts out;
  const YAML::Node resources = child(container, "resources");
  const YAML::Node requests = child(resources, "requests");
  const YAML::Node limits = child(resources, "limits");
  std::set<std::string> seen;
  for (const YAML::Node& list : {requests, limits}) {
    if (!list.IsDefined() || !list.IsMap()) continue;
    for (const auto& kv : list) {
      const std::string name = kv.first.Scalar();
      if (!seen.insert(name).second || !kv.second.IsScalar()) continue;
      const std::optional<NanoAmount> v = parse_nano_quantity(kv.second.Scalar());
      if (v) out.add(name, *v);
    }
  }
  return out;
}

ResourceAmounts containers_requests(const YAML::Node& pod) {
  ResourceAmounts out;
  const YAML::Node containers = child(child(pod, "spec"), "containers");
  if (!containers.IsDefined() || !containers.IsSequence()) return out;
  for (const YAML::Node& c : containers) out.add(container_requests(c));
  return out;
}

bool has_condition(const YAML::Node& pod, const char* type, bool& status_true) {
  const YAML::Node conditions = child(child(pod, "status"), "conditions");
  if (!conditions.IsDefined() || !conditions.IsSequence()) return false;
  for (const YAML::Node& c : conditions) {
    if (text_at(c, {"type"}) == type) {
      status_true = text_at(c, {"status"}) == "True";
      return true;
    }
  }
  return false;
}

// KAI: pkg/podgroupcontroller/controllers/resources/requested.go: the fraction (times the
// number of devices) as nvidia.com/gpu, gpu-memory (times the devices) as run.ai/gpu.memory.
void add_gpu_sharing_requested(const YAML::Node& annotations, ResourceAmounts& out) {
  NanoAmount devices = 1;
  const std::string count = text_at(annotations, {"gpu-fraction-num-devices"});
  if (!count.empty()) {
    const std::optional<NanoAmount> n = parse_nano_quantity(count);
    if (!n || *n % kNanoPerUnit != 0)
      return;  // KAI fails the pod's metadata; it counts nothing new
    devices = *n / kNanoPerUnit;
  }
  const std::string fraction = text_at(annotations, {"gpu-fraction"});
  if (!fraction.empty()) {
    if (const std::optional<NanoAmount> f = parse_nano_quantity(fraction))
      out.add("nvidia.com/gpu", *f * devices);
  }
  const std::string memory = text_at(annotations, {"gpu-memory"});
  if (!memory.empty()) {
    if (const std::optional<NanoAmount> m = parse_nano_quantity(memory))
      out.add("run.ai/gpu.memory", *m * devices);
  }
}

// KAI: resources/fraction.go calculateAllocatedFraction: the gpu-fraction annotation as it is (not
// times the devices), else gpu-memory over the node's nvidia.com/gpu.memory label, the quotient
// printed with strconv.FormatFloat(f, 'f', -1, 64) and parsed back.
std::optional<NanoAmount> received_fraction(const YAML::Node& pod, const YAML::Node& annotations,
                                            const StatusObjects& objects) {
  const std::string fraction = text_at(annotations, {"gpu-fraction"});
  if (!fraction.empty()) return parse_nano_quantity(fraction);
  const std::string memory = text_at(annotations, {"gpu-memory"});
  if (memory.empty()) return std::nullopt;
  const YAML::Node* node = objects.node(text_at(pod, {"spec", "nodeName"}));
  if (node == nullptr) return std::nullopt;
  const std::string node_memory = text_at(*node, {"metadata", "labels", "nvidia.com/gpu.memory"});
  char* end = nullptr;
  const long long mem = std::strtoll(memory.c_str(), &end, 10);
  if (end == memory.c_str() || *end != '\0') return std::nullopt;
  const long long per_gpu = std::strtoll(node_memory.c_str(), &end, 10);
  if (node_memory.empty() || *end != '\0' || per_gpu <= 0) return std::nullopt;
  const double share = static_cast<double>(mem) / static_cast<double>(per_gpu);
  if (!std::isfinite(share)) return std::nullopt;
  return parse_nano_quantity(go_json_number(share));  // shortest text, as 'f' with precision -1
}

std::string default_group_priority_class(const YAML::Node& pod, const StatusObjects& objects) {
  std::string cls = text_at(pod, {"metadata", "labels", "priorityClassName"});
  if (cls.empty()) cls = text_at(pod, {"spec", "priorityClassName"});
  return !cls.empty() && objects.priority_class(cls) ? cls : "train";
}

}  // namespace

// ---------------------------------------------------------------- amounts

void ResourceAmounts::add(const std::string& resource, NanoAmount nano) { nano_[resource] += nano; }

void ResourceAmounts::add(const ResourceAmounts& other) {
  for (const auto& [name, v] : other.nano_) nano_[name] += v;
}

void ResourceAmounts::subtract(const ResourceAmounts& other) {
  for (const auto& [name, v] : other.nano_) {
    auto it = nano_.find(name);
    if (it == nano_.end()) {
      nano_[name] = -v;
    } else if ((it->second -= v) == 0) {
      nano_.erase(it);
    }
  }
}

NanoAmount ResourceAmounts::get(const std::string& resource) const {
  auto it = nano_.find(resource);
  return it == nano_.end() ? 0 : it->second;
}

bool ResourceAmounts::operator==(const ResourceAmounts& other) const {
  for (const auto& [name, v] : nano_) {
    if (other.get(name) != v) return false;
  }
  for (const auto& [name, v] : other.nano_) {
    if (get(name) != v) return false;
  }
  return true;
}

bool ResourceAmounts::empty() const {
  for (const auto& [name, v] : nano_) {
    if (v != 0) return false;
  }
  return true;
}

std::optional<NanoAmount> parse_nano_quantity(std::string_view text) {
  const std::optional<Quantity> q = parse_quantity(text);
  if (!q) return std::nullopt;
  NanoAmount num = static_cast<NanoAmount>(q->mantissa);
  if (num > kMaxNano) return std::nullopt;
  for (int b = 0; b < q->binary_exponent; ++b) {
    num *= 2;
    if (num > kMaxNano) return std::nullopt;
  }
  int dec = q->decimal_exponent + 9;
  for (; dec > 0; --dec) {
    num *= 10;
    if (num > kMaxNano) return std::nullopt;
  }
  bool remainder = false;
  for (; dec < 0; ++dec) {
    remainder = remainder || num % 10 != 0;
    num /= 10;
  }
  if (remainder) ++num;  // rounded up to a nano, as resource.Quantity rounds
  return q->negative ? -num : num;
}

std::string format_nano_quantity(NanoAmount nano) {
  if (nano == 0) return "0";
  const bool negative = nano < 0;
  NanoAmount v = negative ? -nano : nano;
  // The largest power of 1000 that divides the amount: n, u, m, "", k, M, G, T, P, E.
  static const char* const kSuffixes[] = {"n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
  int level = 0;
  while (level < 9 && v % 1000 == 0) {
    v /= 1000;
    ++level;
  }
  std::string digits;
  while (v > 0) {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  }
  return (negative ? "-" : "") + digits + kSuffixes[level];
}

double nano_to_double(NanoAmount nano) {
  const NanoAmount whole = nano / kNanoPerUnit;
  const NanoAmount part = nano % kNanoPerUnit;
  return static_cast<double>(whole) + static_cast<double>(part) / 1e9;
}

// ---------------------------------------------------------------- one pod

bool pod_group_preemptible(const YAML::Node* pod_group, const std::string& priority_class_name,
                           const StatusObjects& objects) {
  // KAI: pkg/common/podgroup/preemptible.go CalculatePreemptibility; podgroupcontroller's
  // utilities/pod-group/preemptible.go for the priority lookup.
  const std::string declared =
      pod_group ? text_at(*pod_group, {"spec", "preemptibility"}) : std::string();
  if (declared == "preemptible") return true;
  if (declared == "non-preemptible") return false;
  std::optional<int> priority = objects.priority_class(priority_class_name);
  if (!priority) priority = objects.global_default_priority();
  return priority.value_or(50) < kNonPreemptiblePriorityThreshold;  // 50: DefaultPodGroupPriority
}

PodStatusPart pod_status_part(const YAML::Node& pod, const StatusObjects& objects,
                              const StatusCountOptions& options) {
  PodStatusPart part;
  const std::string ns = text_at(pod, {"metadata", "namespace"}).empty()
                             ? "default"
                             : text_at(pod, {"metadata", "namespace"});
  const YAML::Node annotations = child(child(pod, "metadata"), "annotations");
  const std::string group = text_at(annotations, {"pod-group-name"});
  if (!group.empty()) {
    const YAML::Node* pg = objects.pod_group(ns, group);
    if (pg == nullptr) return part;  // no PodGroup: nothing reconciles the pod
    part.pod_group = ns + "/" + group;
    part.queue = text_at(*pg, {"spec", "queue"});
    part.preemptible =
        pod_group_preemptible(pg, text_at(*pg, {"spec", "priorityClassName"}), objects);
  } else if (options.assume_pod_grouper &&
             text_at(pod, {"spec", "schedulerName"}) == "kai-scheduler") {
    // KAI: pkg/podgrouper/podgrouper/plugins/defaultgrouper: PodGroup pg-<pod>-<uid>.
    part.pod_group =
        ns + "/pg-" + text_at(pod, {"metadata", "name"}) + "-" + text_at(pod, {"metadata", "uid"});
    part.queue = text_at(pod, {"metadata", "labels", "kai.scheduler/queue"});
    if (part.queue.empty()) part.queue = "default-queue";
    const std::string declared =
        text_at(pod, {"metadata", "labels", "kai.scheduler/preemptibility"});
    part.preemptible =
        declared == "preemptible" ? true
        : declared == "non-preemptible"
            ? false
            : pod_group_preemptible(nullptr, default_group_priority_class(pod, objects), objects);
  } else {
    return part;
  }

  // KAI: pkg/podgroupcontroller/controllers/metadata/pod.go GetPodMetadata.
  std::string phase = text_at(pod, {"status", "phase"});
  if (phase.empty()) phase = "Pending";
  if (phase == "Succeeded" || phase == "Failed") return part;
  const bool active = phase == "Pending" || phase == "Running";
  bool scheduled = false;
  if (!has_condition(pod, "PodScheduled", scheduled) && options.node_name_means_scheduled) {
    scheduled = !text_at(pod, {"spec", "nodeName"}).empty();
  }
  const bool allocated = phase == "Pending" ? scheduled : phase == "Running";
  if (!active && !allocated) return part;
  const ResourceAmounts requests = containers_requests(pod);
  if (active) {
    part.requested = requests;
    add_gpu_sharing_requested(annotations, part.requested);
  }
  if (allocated) {
    part.allocated = requests;
    // KAI: resources/received.go: only a pod whose received-resource-type is Fraction.
    if (text_at(annotations, {"received-resource-type"}) == "Fraction") {
      if (const std::optional<NanoAmount> f = received_fraction(pod, annotations, objects)) {
        part.allocated.add("nvidia.com/gpu", *f);
      }
    }
  }
  return part;
}

// ---------------------------------------------------------------- sums

void QueueStatusSums::set_group(const std::string& key, const std::string& queue, bool preemptible,
                                ResourceAmounts kept_non_preemptible) {
  if (preemptible && !kept_non_preemptible.empty()) {
    kept_[key] = Kept{queue, std::move(kept_non_preemptible)};
  } else {
    kept_.erase(key);
  }
}

void QueueStatusSums::add(const PodStatusPart& part) {
  if (part.pod_group.empty()) return;
  QueueStatus& s = own_[part.queue];
  s.allocated.add(part.allocated);
  s.requested.add(part.requested);
  if (!part.preemptible) s.allocated_non_preemptible.add(part.allocated);
}

void QueueStatusSums::remove(const PodStatusPart& part) {
  if (part.pod_group.empty()) return;
  QueueStatus& s = own_[part.queue];
  s.allocated.subtract(part.allocated);
  s.requested.subtract(part.requested);
  if (!part.preemptible) s.allocated_non_preemptible.subtract(part.allocated);
}

std::map<std::string, QueueStatus> QueueStatusSums::roll_up(
    const std::map<std::string, std::string>& parents) const {
  std::map<std::string, QueueStatus> own;
  for (const auto& [queue, s] : own_) {
    if (parents.contains(queue)) own[queue] = s;
  }
  for (const auto& [key, k] : kept_) {
    if (parents.contains(k.queue)) own[k.queue].allocated_non_preemptible.add(k.non_preemptible);
  }
  std::map<std::string, std::vector<std::string>> children;
  for (const auto& [queue, parent] : parents) {
    if (!parent.empty() && parents.contains(parent)) children[parent].push_back(queue);
  }
  // Each queue: its own PodGroups plus its children's statuses (depth-first; a cycle of parents,
  // which KAI's webhook refuses, is cut where it closes).
  std::map<std::string, QueueStatus> out;
  std::set<std::string> open;
  auto visit = [&](auto&& self, const std::string& queue) -> const QueueStatus& {
    if (auto done = out.find(queue); done != out.end()) return done->second;
    open.insert(queue);
    QueueStatus s = own.contains(queue) ? own.at(queue) : QueueStatus{};
    if (auto it = children.find(queue); it != children.end()) {
      for (const std::string& c : it->second) {
        if (open.contains(c)) continue;
        const QueueStatus& cs = self(self, c);
        s.allocated.add(cs.allocated);
        s.allocated_non_preemptible.add(cs.allocated_non_preemptible);
        s.requested.add(cs.requested);
      }
    }
    open.erase(queue);
    return out[queue] = std::move(s);
  };
  for (const auto& [queue, parent] : parents) visit(visit, queue);
  return out;
}

QueueStatus read_queue_status(const YAML::Node& status, const std::string& path) {
  QueueStatus out;
  if (!status.IsDefined() || !status.IsMap()) return out;
  const std::pair<const char*, ResourceAmounts*> fields[] = {
      {"allocated", &out.allocated},
      {"allocatedNonPreemptible", &out.allocated_non_preemptible},
      {"requested", &out.requested}};
  for (const auto& [name, target] : fields) {
    const YAML::Node list = status[name];
    if (!list.IsDefined() || list.IsNull()) continue;
    if (!list.IsMap()) throw InputError({}, path + "." + name, "not a map of resource quantities");
    for (const auto& kv : list) {
      const std::string resource = kv.first.Scalar();
      const std::optional<NanoAmount> v =
          kv.second.IsScalar() ? parse_nano_quantity(kv.second.Scalar()) : std::nullopt;
      if (!v) throw InputError({}, path + "." + name + "." + resource, "not a quantity");
      target->add(resource, *v);
    }
  }
  return out;
}

}  // namespace sim::io
