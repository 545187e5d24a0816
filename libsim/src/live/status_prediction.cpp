#include "status_prediction.hpp"

#include <yaml-cpp/yaml.h>

#include <set>

#include "cluster_read.hpp"
#include "io/pod_status.hpp"
#include "sim/io/snapshot.hpp"
#include "sim/sched/cycle.hpp"

namespace sim::live {
namespace {

YAML::Node to_yaml(const ordered_json& v) {
  if (v.is_object()) {
    YAML::Node out(YAML::NodeType::Map);
    for (auto it = v.begin(); it != v.end(); ++it) out[it.key()] = to_yaml(it.value());
    return out;
  }
  if (v.is_array()) {
    YAML::Node out(YAML::NodeType::Sequence);
    for (const ordered_json& item : v) out.push_back(to_yaml(item));
    return out;
  }
  if (v.is_null()) return YAML::Node(YAML::NodeType::Null);
  if (v.is_string()) return YAML::Node(v.get<std::string>());
  return YAML::Node(v.dump());
}

std::string text(const ordered_json& o, std::initializer_list<const char*> keys) {
  const ordered_json* cur = &o;
  for (const char* k : keys) {
    if (!cur->is_object() || !cur->contains(k)) return {};
    cur = &(*cur)[k];
  }
  return cur->is_string() ? cur->get<std::string>() : std::string();
}

// The cluster's objects as KAI's controllers look them up.
class ClusterIndex : public io::StatusObjects {
 public:
  void add(const std::string& kind, const std::string& key, const YAML::Node& node) {
    if (kind == "PodGroup") pod_groups_[key].reset(node);
    if (kind == "Node") nodes_[key].reset(node);
    if (kind == "PriorityClass") {
      const int value = node["value"].IsDefined() ? std::atoi(node["value"].Scalar().c_str()) : 0;
      classes_[key] = value;
      if (node["globalDefault"].IsDefined() && node["globalDefault"].Scalar() == "true")
        global_default_ = value;
    }
  }
  const YAML::Node* pod_group(const std::string& ns, const std::string& name) const override {
    auto it = pod_groups_.find(ns + "/" + name);
    return it == pod_groups_.end() ? nullptr : &it->second;
  }
  const YAML::Node* node(const std::string& name) const override {
    auto it = nodes_.find(name);
    return it == nodes_.end() ? nullptr : &it->second;
  }
  std::optional<int> priority_class(const std::string& name) const override {
    auto it = classes_.find(name);
    return it == classes_.end() ? std::nullopt : std::optional<int>(it->second);
  }
  std::optional<int> global_default_priority() const override { return global_default_; }
  const std::map<std::string, YAML::Node>& pod_groups() const { return pod_groups_; }

 private:
  std::map<std::string, YAML::Node> pod_groups_, nodes_;
  std::map<std::string, int> classes_;
  std::optional<int> global_default_;
};

// What KAI's binder writes for a bind: the binding (spec.nodeName, PodScheduled=True) and, for a
// GPU share, received-resource-type.
void land_bind(ordered_json& pod, const std::string& node, bool shared) {
  pod["spec"]["nodeName"] = node;
  ordered_json& status = pod["status"];
  if (!status.is_object()) status = ordered_json::object();
  ordered_json conditions = ordered_json::array();
  if (status.contains("conditions") && status["conditions"].is_array()) {
    for (const ordered_json& c : status["conditions"]) {
      if (!(c.is_object() && c.value("type", "") == "PodScheduled")) conditions.push_back(c);
    }
  }
  conditions.push_back({{"type", "PodScheduled"}, {"status", "True"}});
  status["conditions"] = conditions;
  if (shared) pod["metadata"]["annotations"]["received-resource-type"] = "Fraction";
}

}  // namespace

std::map<std::string, io::QueueStatus> observed_queue_status(
    const std::vector<ordered_json>& items) {
  std::map<std::string, io::QueueStatus> out;
  for (const ordered_json& o : items) {
    if (o.value("kind", "") != "Queue") continue;
    const std::string name = text(o, {"metadata", "name"});
    out[name] = io::read_queue_status(o.contains("status") ? to_yaml(o["status"]) : YAML::Node(),
                                      "Queue " + name + ".status");
  }
  return out;
}

std::map<std::string, io::QueueStatus> predict_queue_status(const std::vector<ordered_json>& items,
                                                            Diagnostics& diagnostics) {
  // KAI's next cycle on this state, as `kaisim cycle` runs it on the same snapshot.
  model::ClusterState state = io::load_snapshot({{list_text(items), "<cluster>"}}, {}, diagnostics);
  sched::Session ssn = sched::run_cycle(state);
  std::map<std::string, std::pair<std::string, bool>> binds;  // pod -> node, shared
  for (const sched::BindDecision& b : ssn.binds) {
    const model::Task& t = state.tasks[b.task];
    binds[t.key()] = {state.nodes[b.node].name, t.is_shared_gpu_allocation()};
  }

  ClusterIndex index;
  std::vector<YAML::Node> pods;
  std::map<std::string, std::string> parents;
  for (const ordered_json& item : items) {
    const std::string kind = item.value("kind", "");
    const std::string ns = text(item, {"metadata", "namespace"}),
                      name = text(item, {"metadata", "name"});
    if (kind == "Queue") parents[name] = text(item, {"spec", "parentQueue"});
    if (kind == "Pod") {
      auto bound = binds.find(ns + "/" + name);
      if (bound == binds.end()) {
        pods.push_back(to_yaml(item));
      } else {
        ordered_json landed = item;
        land_bind(landed, bound->second.first, bound->second.second);
        pods.push_back(to_yaml(landed));
      }
      continue;
    }
    if (kind == "PodGroup" || kind == "Node" || kind == "PriorityClass") {
      index.add(kind, kind == "PodGroup" ? ns + "/" + name : name, to_yaml(item));
    }
  }
  io::QueueStatusSums sums;
  for (const auto& [key, pg] : index.pod_groups()) {
    // A preemptible PodGroup keeps the allocatedNonPreemptible its status holds.
    const bool preemptible = io::pod_group_preemptible(
        &pg,
        pg["spec"]["priorityClassName"].IsDefined() ? pg["spec"]["priorityClassName"].Scalar()
                                                    : std::string(),
        index);
    io::ResourceAmounts kept;
    if (preemptible && pg["status"].IsDefined() && pg["status"]["resourcesStatus"].IsDefined()) {
      kept = io::read_queue_status(pg["status"]["resourcesStatus"],
                                   "PodGroup " + key + ".status.resourcesStatus")
                 .allocated_non_preemptible;
    }
    sums.set_group(key,
                   pg["spec"]["queue"].IsDefined() ? pg["spec"]["queue"].Scalar() : std::string(),
                   preemptible, std::move(kept));
  }
  const io::StatusCountOptions counting{.assume_pod_grouper = true,
                                        .node_name_means_scheduled = false};
  for (const YAML::Node& pod : pods) sums.add(io::pod_status_part(pod, index, counting));
  std::map<std::string, io::QueueStatus> out = sums.roll_up(parents);
  for (const auto& [queue, parent] : parents) out.try_emplace(queue);
  return out;
}

}  // namespace sim::live
