// The predicates plugin (plugins/predicates/predicates.go): the queue capacity check on the node
// (IsTaskAllocationOnNodeOverCapacity), the GPU resource type (node_info.go
// PredicateByNodeResourcesType), GPU memory known, pod slots (with the GPU reservation pod a new
// shared GPU needs), and the Kubernetes filters KAI runs: unschedulable, node conditions, taints
// and tolerations, node selector and required node affinity, inter-pod affinity.

#include <algorithm>
#include <string>

#include "builders.hpp"
#include "label_match.hpp"
#include "pod_affinity.hpp"
#include "sim/sched/framework/node_fit.hpp"

namespace sim::sched::plugins {
namespace {

constexpr int kPods = index_of(Resource::PODS);

bool tolerated(const std::vector<model::Toleration>& tolerations, const model::Taint& taint) {
  return std::any_of(tolerations.begin(), tolerations.end(),
                     [&](const model::Toleration& t) { return model::tolerates(t, taint); });
}

bool term_matches(const model::NodeSelectorTerm& term, const model::Node& node) {
  if (term.expressions.empty() && term.fields.empty()) return false;
  for (const auto& r : term.expressions) {
    auto it = node.labels.find(r.key);
    if (!requirement_matches(r, it == node.labels.end() ? nullptr : &it->second)) return false;
  }
  for (const auto& r : term.fields) {
    const std::string* value = r.key == "metadata.name" ? &node.name : nullptr;
    if (!requirement_matches(r, value)) return false;
  }
  return true;
}

std::string k8s_filters(const model::Task& task, const model::Node& node) {
  for (const model::Taint& taint : node.taints) {
    if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") continue;
    if (!tolerated(task.placement->tolerations, taint)) {
      return "node(s) had untolerated taint {" + taint.key +
             (taint.value.empty() ? "" : ": " + taint.value) + "}";
    }
  }
  for (const auto& [key, value] : task.placement->node_selector) {
    auto it = node.labels.find(key);
    if (it == node.labels.end() || it->second != value)
      return "node(s) didn't match Pod's node affinity/selector";
  }
  if (!task.placement->required.empty()) {
    bool any = false;
    for (const auto& term : task.placement->required) any = any || term_matches(term, node);
    if (!any) return "node(s) didn't match Pod's node affinity/selector";
  }
  return {};
}

// PredicateByNodeResourcesType (node_info.go).
std::string resources_type(const model::Task& task, const model::Node& node) {
  if (task.legacy_mig) return "legacy MIG jobs cannot be scheduled";
  if (task.is_cpu_only()) return {};
  if (task.gpu.gpus() > 0 && node.dra_gpus)
    return "device-plugin GPU requests cannot be scheduled on DRA-only nodes";
  const bool mig_node = node.is_mig_enabled();
  if (!mig_node && task.is_mig_candidate()) return "MIG job cannot be scheduled on non-MIG node";
  if (mig_node) {
    if (task.is_mig_candidate() && node.legacy_mig_tasks > 0)
      return "MIG job cannot be scheduled on node with legacy MIG jobs";
    const std::string strategy = node.mig_strategy();
    if (strategy == "single" && !task.is_regular_gpu_request())
      return "only whole gpu jobs can run on a node with MigStrategy='single'";
    if (strategy == "mixed" && !task.is_mig_candidate())
      return "non MIG jobs cant run on a node with MigStrategy='mixed'";
  }
  return {};
}

bool is_numeric(const std::string& s) {
  if (s.empty()) return false;
  std::size_t i = s[0] == '-' || s[0] == '+' ? 1 : 0;
  if (i == s.size()) return false;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  return true;
}

bool contains_new_group(const std::vector<std::string>& groups) {
  for (const std::string& g : groups) {
    if (!is_numeric(g)) return true;  // KAI treats every non-numeric id (a UUID) as new
  }
  return false;
}

// checkMaxPodsWithGpuGroupReservation: a shared task opening a new GPU group also needs a slot
// for the reservation pod.
bool enough_pod_slots(Session& ssn, const model::Task& task, const model::Node& node) {
  const double available = node.idle[kPods] + node.releasing[kPods];
  if (!task.is_fraction_candidate()) return available > 0;
  if (available >= 2) return true;  // room for the reservation pod, new group or not
  // KAI asks for the GPUs fitting now and, failing that, those fitting once releasing pods are
  // gone; both questions choose the same GPUs (only GpuChoice::releasing differs), so one asks.
  const std::optional<GpuChoice> choice = preferable_gpus(ssn, node, task, false, false);
  return choice && !choice->needs_new_group && !contains_new_group(choice->groups);
}

class Predicates final : public Plugin {
 public:
  std::string_view name() const override { return "predicates"; }
  void on_session_open(Session& ssn) override {
    const bool any_anti_affinity = ssn.open_sums().any_pod_anti_affinity;
    ssn.hooks.predicates.push_back(
        [any_anti_affinity](Session& s, TaskId task_id, NodeId node_id, std::string* why) {
          const model::Task& task = s.state.tasks[task_id];
          const model::Node& node = s.state.nodes[node_id];
          auto fail = [&](std::string reason) {
            if (why) *why = std::move(reason);
            return false;
          };
          if (CapacityVerdict over = s.task_on_node_over_capacity(task_id, node_id)) {
            return fail("node does not have enough capacity: " + over->message);
          }
          if (std::string r = resources_type(task, node); !r.empty()) return fail(r);
          if (task.gpu.memory_mib > 0 && !node.gpu_memory_synced) {
            return fail("node is not a gpu node or its gpu memory label is missing");
          }
          if (!enough_pod_slots(s, task, node)) return fail("node(s) exceed max pod count");
          if (node.unschedulable) return fail("node(s) were unschedulable");
          if (!node.conditions_ok) return fail("node(s) were not ready");
          if (std::string r = k8s_filters(task, node); !r.empty()) return fail(r);
          if (std::string r = pod_affinity_filter(s, task, node, any_anti_affinity); !r.empty())
            return fail(r);
          return true;
        });
  }
};

}  // namespace

std::unique_ptr<Plugin> make_predicates(const model::PluginOption&) {
  return std::make_unique<Predicates>();
}

}  // namespace sim::sched::plugins
