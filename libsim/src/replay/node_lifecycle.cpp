// What Kubernetes' node lifecycle controller does to the pods of a node that stops being Ready:
// it taints the node node.kubernetes.io/not-ready (Ready False) or node.kubernetes.io/unreachable
// (Ready Unknown) with effect NoExecute, and its taint-eviction part deletes each pod on the node
// once the pod's toleration of that taint runs out (pkg/controller/tainteviction). The
// DefaultTolerationSeconds admission plugin gives every pod without its own toleration for these
// taints one of 300 s, so by default pods go 5 minutes after the node turns NotReady.

#include <cstdlib>
#include <limits>
#include <optional>

#include "world.hpp"
#include "yaml_text.hpp"

namespace sim::replay {
namespace {

constexpr const char* kNotReadyTaint = "node.kubernetes.io/not-ready";
constexpr const char* kUnreachableTaint = "node.kubernetes.io/unreachable";
constexpr std::int64_t kDefaultTolerationMs = 300'000;  // DefaultTolerationSeconds: 300

// The NoExecute taint the controller puts on this node, or "" while it is Ready (a node without
// a Ready condition counts as Ready, as kaisim's snapshot reads it).
std::string lifecycle_taint(const YAML::Node& node) {
  const YAML::Node status = node["status"];
  if (!status.IsDefined() || !status.IsMap()) return "";
  const YAML::Node conditions = status["conditions"];
  if (!conditions.IsDefined() || !conditions.IsSequence()) return "";
  for (const YAML::Node& c : conditions) {
    if (!c.IsMap() || str(c, "type") != "Ready") continue;
    const std::string value = str(c, "status");
    if (value == "False") return kNotReadyTaint;
    if (value == "Unknown") return kUnreachableTaint;
  }
  return "";
}

// How long the pod stays on a node with `taint` (NoExecute, no value): the shortest
// tolerationSeconds among its tolerations that match (getMinTolerationTime); nullopt when a
// matching toleration has no limit; 0 when none matches.
std::optional<std::int64_t> toleration_ms(const YAML::Node& pod, const std::string& taint) {
  const YAML::Node spec = pod["spec"];
  const YAML::Node tolerations = spec.IsDefined() && spec.IsMap() ? spec["tolerations"] : YAML::Node();
  bool matched = false, admitted_default = false;
  std::int64_t shortest = std::numeric_limits<std::int64_t>::max();
  if (tolerations.IsDefined() && tolerations.IsSequence()) {
    for (const YAML::Node& t : tolerations) {
      if (!t.IsMap()) continue;
      const std::string key = str(t, "key"), op = str(t, "operator"), value = str(t, "value"), effect = str(t, "effect");
      // DefaultTolerationSeconds adds its toleration unless one for the key (or any key) and
      // NoExecute (or any effect) is already there, whatever its operator.
      if ((key.empty() || key == taint) && (effect.empty() || effect == "NoExecute")) admitted_default = true;
      const bool key_ok = op == "Exists" ? key.empty() || key == taint : key == taint && value.empty();
      if (!key_ok || !(effect.empty() || effect == "NoExecute")) continue;
      matched = true;
      const std::string seconds = str(t, "tolerationSeconds");
      if (!seconds.empty()) shortest = std::min(shortest, std::max<std::int64_t>(0, std::atoll(seconds.c_str()) * 1000));
    }
  }
  if (!admitted_default) return kDefaultTolerationMs;
  if (!matched) return 0;
  if (shortest == std::numeric_limits<std::int64_t>::max()) return std::nullopt;
  return shortest;
}

}  // namespace

void World::node_condition_changed(const std::string& node, const YAML::Node& doc, std::int64_t now_ms) {
  const std::string taint = lifecycle_taint(doc);
  auto it = node_taints_.find(node);
  if (taint == (it == node_taints_.end() ? "" : it->second)) return;
  if (taint.empty()) {
    node_taints_.erase(it);
  } else {
    node_taints_[node] = taint;
  }
  for (auto it_pod = objects_.lower_bound("Pod/"); it_pod != objects_.end() && it_pod->first.rfind("Pod/", 0) == 0; ++it_pod) {
    if (str(it_pod->second.doc, "spec", "nodeName") != node) continue;
    if (taint.empty()) {
      taint_evictions_.erase(it_pod->first);  // Ready again: no pod goes
    } else {
      schedule_taint_eviction(it_pod->first, now_ms);
    }
  }
}

void World::schedule_taint_eviction(const std::string& key, std::int64_t now_ms) {
  const YAML::Node doc = objects_.at(key).doc;
  auto taint = node_taints_.find(str(doc, "spec", "nodeName"));
  if (taint == node_taints_.end() || terminating_.contains(key)) return;
  const std::optional<std::int64_t> stay = toleration_ms(doc, taint->second);
  if (stay) {
    taint_evictions_.set(key, now_ms + *stay);
  } else {
    taint_evictions_.erase(key);
  }
}

void World::evict_for_taints(std::int64_t now_ms, std::vector<PodEvent>& events) {
  for (const auto& [key, at] : taint_evictions_.take_due(now_ms)) {
    auto it = objects_.find(key);
    if (it == objects_.end() || terminating_.contains(key)) continue;
    const YAML::Node doc = it->second.doc;
    const std::string node = str(doc, "spec", "nodeName");
    auto taint = node_taints_.find(node);
    if (taint == node_taints_.end()) continue;
    events.push_back({now_ms, "lost", str(doc, "metadata", "namespace") + "/" + str(doc, "metadata", "name"),
                      queue_of(doc), node, taint->second == kNotReadyTaint ? "node-not-ready" : "node-unreachable",
                      "", requested_gpus(doc)});
    start_termination(key, now_ms, events);
  }
}

}  // namespace sim::replay
