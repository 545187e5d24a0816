#include "queue_status_view.hpp"

#include <optional>

#include "sim/core/go_json.hpp"
#include "sim/model/cluster.hpp"
#include "yaml_text.hpp"

namespace sim::replay {
namespace {

// The world's objects as the controllers read them from the API server. The chart's four
// PriorityClasses exist in every KAI cluster (the snapshot reader assumes them too).
class WorldObjects : public io::StatusObjects {
 public:
  explicit WorldObjects(const World& world) : world_(world) {}
  const YAML::Node* pod_group(const std::string& ns, const std::string& name) const override {
    return world_.find("PodGroup", ns, name);
  }
  const YAML::Node* node(const std::string& name) const override {
    return world_.find("Node", "", name);
  }
  std::optional<int> priority_class(const std::string& name) const override {
    if (const YAML::Node* pc = world_.find("PriorityClass", "", name)) return value_of(*pc);
    for (const model::PriorityClass& pc : model::default_priority_classes()) {
      if (pc.name == name) return pc.value;
    }
    return std::nullopt;
  }
  std::optional<int> global_default_priority() const override {
    for (const YAML::Node* pc : world_.objects_of("PriorityClass")) {
      if (str(*pc, "globalDefault") == "true") return value_of(*pc);
    }
    return std::nullopt;
  }

 private:
  static int value_of(const YAML::Node& pc) { return std::atoi(str(pc, "value").c_str()); }
  const World& world_;
};

std::string pod_name(const YAML::Node& pod) {
  const std::string ns = str(pod, "metadata", "namespace");
  return (ns.empty() ? std::string("default") : ns) + "/" + str(pod, "metadata", "name");
}

constexpr io::StatusCountOptions kWorldCounting{.assume_pod_grouper = false,
                                                .node_name_means_scheduled = true};

}  // namespace

void QueueStatusView::touch(const std::vector<PodEvent>& events) {
  for (const PodEvent& e : events) touched_.insert(e.pod);
}

void QueueStatusView::recount(const World& world, const std::string& pod) {
  if (auto it = parts_.find(pod); it != parts_.end()) {
    sums_.remove(it->second);
    parts_.erase(it);
  }
  const std::size_t slash = pod.find('/');
  const YAML::Node* doc = world.find("Pod", pod.substr(0, slash), pod.substr(slash + 1));
  if (doc == nullptr) return;
  io::PodStatusPart part = io::pod_status_part(*doc, WorldObjects(world), kWorldCounting);
  if (part.pod_group.empty()) return;
  sums_.add(part);
  parts_.emplace(pod, std::move(part));
}

void QueueStatusView::sample(const World& world, std::int64_t now_ms) {
  if (!all_ && touched_.empty()) return;
  if (all_) {
    sums_ = {};
    parts_.clear();
    parents_.clear();
    for (const YAML::Node* q : world.objects_of("Queue"))
      parents_[str(*q, "metadata", "name")] = str(*q, "spec", "parentQueue");
    for (const YAML::Node* pod : world.objects_of("Pod")) recount(world, pod_name(*pod));
  } else {
    for (const std::string& pod : touched_) recount(world, pod);
  }
  all_ = false;
  touched_.clear();
  std::map<std::string, io::QueueStatus> status = sums_.roll_up(parents_);
  if (!history_.empty() && history_.back().second == status) return;
  write_rows(now_ms, status);
  if (!history_.empty() && history_.back().first == now_ms) {
    history_.back().second = std::move(status);
  } else {
    history_.emplace_back(now_ms, std::move(status));
  }
}

void QueueStatusView::write_rows(std::int64_t now_ms,
                                 const std::map<std::string, io::QueueStatus>& status) {
  static const std::map<std::string, io::QueueStatus> kNone;
  const std::map<std::string, io::QueueStatus>& before =
      history_.empty() ? kNone : history_.back().second;
  std::set<std::string> queues;
  for (const auto& [q, s] : status) queues.insert(q);
  for (const auto& [q, s] : before) queues.insert(q);
  const std::string time = go_json_number(static_cast<double>(now_ms) / 1000.0);
  for (const std::string& q : queues) {
    const io::QueueStatus none;
    const io::QueueStatus& now = status.contains(q) ? status.at(q) : none;
    const io::QueueStatus& was = before.contains(q) ? before.at(q) : none;
    std::set<std::string> resources;
    for (const io::QueueStatus* s : {&now, &was}) {
      for (const io::ResourceAmounts* a :
           {&s->allocated, &s->allocated_non_preemptible, &s->requested}) {
        for (const auto& [r, v] : a->entries()) resources.insert(r);
      }
    }
    for (const std::string& r : resources) {
      const bool changed =
          now.allocated.get(r) != was.allocated.get(r) ||
          now.allocated_non_preemptible.get(r) != was.allocated_non_preemptible.get(r) ||
          now.requested.get(r) != was.requested.get(r);
      // The first rows of a queue are written even when zero, so every queue appears.
      if (!changed && !(history_.empty() || !before.contains(q))) continue;
      csv_ += time + "," + q + "," + r + "," + io::format_nano_quantity(now.allocated.get(r)) +
              "," + io::format_nano_quantity(now.allocated_non_preemptible.get(r)) + "," +
              io::format_nano_quantity(now.requested.get(r)) + "\n";
    }
  }
}

}  // namespace sim::replay
