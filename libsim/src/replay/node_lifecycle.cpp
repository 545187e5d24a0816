// What Kubernetes' node lifecycle controller does to the pods of a node that stops being Ready:
// it taints the node node.kubernetes.io/not-ready (Ready False) or node.kubernetes.io/unreachable
// (Ready Unknown) with effect NoExecute, and its taint-eviction part deletes each pod on the node
// once the pod's toleration of that taint runs out (pkg/controller/tainteviction). The
// DefaultTolerationSeconds admission plugin gives every pod without its own toleration for these
// taints one of 300 s, so by default pods go 5 minutes after the node turns NotReady.

#include <algorithm>
#include <limits>
#include <optional>

#include "io/snapshot_fields.hpp"
#include "io/yaml_field.hpp"
#include "sim/model/placement_rules.hpp"
#include "world.hpp"
#include "yaml_text.hpp"

namespace sim::replay {
namespace {

constexpr const char* kNotReadyTaint = "node.kubernetes.io/not-ready";
constexpr const char* kUnreachableTaint = "node.kubernetes.io/unreachable";
constexpr std::int64_t kDefaultTolerationMs = 300'000;  // DefaultTolerationSeconds: 300
constexpr std::int64_t kCenturySeconds = 100LL * 365 * 86400;

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
std::optional<std::int64_t> toleration_ms(const std::vector<model::Toleration>& tolerations,
                                          const std::string& key) {
  const model::Taint taint{key, "", "NoExecute"};
  bool matched = false, admitted_default = false;
  std::int64_t shortest = std::numeric_limits<std::int64_t>::max();
  for (const model::Toleration& t : tolerations) {
    // DefaultTolerationSeconds adds its toleration unless one for the key (or any key) and
    // NoExecute (or any effect) is already there, whatever its operator.
    if ((t.key.empty() || t.key == key) && (t.effect.empty() || t.effect == "NoExecute"))
      admitted_default = true;
    if (!model::tolerates(t, taint)) continue;
    matched = true;
    // Negative means 0, and anything beyond a century is as good as for ever without
    // overflowing the clock.
    if (t.seconds)
      shortest = std::min<std::int64_t>(
          shortest, std::clamp<std::int64_t>(*t.seconds, 0, kCenturySeconds) * 1000);
  }
  if (!admitted_default) return kDefaultTolerationMs;
  if (!matched) return 0;
  if (shortest == std::numeric_limits<std::int64_t>::max()) return std::nullopt;
  return shortest;
}

}  // namespace

void World::node_condition_changed(const std::string& node, const YAML::Node& doc,
                                   std::int64_t now_ms, std::vector<PodEvent>& events) {
  const std::string taint = lifecycle_taint(doc);
  auto it = node_taints_.find(node);
  if (taint == (it == node_taints_.end() ? "" : it->second)) return;
  if (taint.empty()) {
    node_taints_.erase(it);
  } else {
    node_taints_[node] = taint;
  }
  std::vector<std::string> pods;
  for (auto it_pod = objects_.lower_bound("Pod/");
       it_pod != objects_.end() && it_pod->first.rfind("Pod/", 0) == 0; ++it_pod) {
    if (str(it_pod->second.doc, "spec", "nodeName") == node) pods.push_back(it_pod->first);
  }
  for (const std::string& key : pods) {
    if (taint.empty()) {
      taint_evictions_.erase(key);  // Ready again: no pod goes
      taint_since_.erase(key);
    } else {
      schedule_taint_eviction(key, now_ms, events);
    }
  }
}

void World::schedule_taint_eviction(const std::string& key, std::int64_t now_ms,
                                    std::vector<PodEvent>& events) {
  const Object& obj = objects_.at(key);
  auto taint = node_taints_.find(str(obj.doc, "spec", "nodeName"));
  if (taint == node_taints_.end() || terminating_.contains(key)) return;
  // Read with the snapshot's reader: the scenario's validation has checked these fields.
  const io::Field pod(obj.doc, "", obj.file.get());
  const std::optional<std::int64_t> stay =
      toleration_ms(io::read_tolerations(pod.member("spec").member("tolerations")), taint->second);
  if (!stay) {
    taint_evictions_.erase(key);
    taint_since_.erase(key);
    return;
  }
  // processPodOnNode: an eviction already scheduled keeps its start (a NotReady node turning
  // unreachable does not restart the clock); a pod that tolerates nothing goes at once.
  const std::int64_t since = taint_since_.emplace(key, now_ms).first->second;
  if (since + *stay <= now_ms) {
    evict_for_taint(key, now_ms, events);
  } else {
    taint_evictions_.set(key, since + *stay);
  }
}

void World::evict_for_taint(const std::string& key, std::int64_t now_ms,
                            std::vector<PodEvent>& events) {
  taint_evictions_.erase(key);
  taint_since_.erase(key);
  auto it = objects_.find(key);
  if (it == objects_.end() || terminating_.contains(key)) return;
  const YAML::Node doc = it->second.doc;
  const std::string node = str(doc, "spec", "nodeName");
  auto taint = node_taints_.find(node);
  if (taint == node_taints_.end()) return;
  events.push_back({now_ms, PodEventType::LOST,
                    str(doc, "metadata", "namespace") + "/" + str(doc, "metadata", "name"),
                    queue_of(doc), node,
                    taint->second == kNotReadyTaint ? "node-not-ready" : "node-unreachable", "",
                    requested_gpus(doc)});
  start_termination(key, now_ms, events);
}

void World::evict_for_taints(std::int64_t now_ms, std::vector<PodEvent>& events) {
  for (const auto& [key, at] : taint_evictions_.take_due(now_ms))
    evict_for_taint(key, now_ms, events);
}

}  // namespace sim::replay
