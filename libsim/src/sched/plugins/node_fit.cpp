#include "sim/sched/plugins/node_fit.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "dra.hpp"
#include "label_match.hpp"
#include "numa.hpp"
#include "pod_affinity.hpp"
#include "sim/sched/plugins/proportion.hpp"

namespace sim::sched {
namespace {

constexpr int kGpu = index_of(Resource::GPU);
constexpr int kCpu = index_of(Resource::CPU);
constexpr int kPods = index_of(Resource::PODS);

// Scores (plugins/scores/scores.go).
constexpr double kNominatedNode = 1'000'000;
constexpr double kK8sPlugins = 100'000;
constexpr double kGpuSharing = 1'000;
constexpr double kAvailability = 100;
constexpr double kResourceType = 10;
constexpr double kMaxHighDensity = 9;

// --- Kubernetes filters: taints/tolerations, node selector, required node affinity ---

bool tolerated(const std::vector<model::Toleration>& tolerations, const model::Taint& taint) {
  return std::any_of(tolerations.begin(), tolerations.end(), [&](const model::Toleration& t) { return tolerates(t, taint); });
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
    if (!tolerated(task.placement.tolerations, taint)) {
      return "node(s) had untolerated taint {" + taint.key + (taint.value.empty() ? "" : ": " + taint.value) + "}";
    }
  }
  for (const auto& [key, value] : task.placement.node_selector) {
    auto it = node.labels.find(key);
    if (it == node.labels.end() || it->second != value) return "node(s) didn't match Pod's node affinity/selector";
  }
  if (!task.placement.required.empty()) {
    bool any = false;
    for (const auto& term : task.placement.required) any = any || term_matches(term, node);
    if (!any) return "node(s) didn't match Pod's node affinity/selector";
  }
  return {};
}

// PredicateByNodeResourcesType (node_info.go).
std::string resources_type(const model::Task& task, const model::Node& node) {
  if (task.legacy_mig) return "legacy MIG jobs cannot be scheduled";
  if (task.is_cpu_only()) return {};
  if (task.gpu.gpus() > 0 && node.dra_gpus) return "device-plugin GPU requests cannot be scheduled on DRA-only nodes";
  const bool mig_node = node.is_mig_enabled();
  if (!mig_node && task.is_mig_candidate()) return "MIG job cannot be scheduled on non-MIG node";
  if (mig_node) {
    if (task.is_mig_candidate() && node.legacy_mig_tasks > 0) return "MIG job cannot be scheduled on node with legacy MIG jobs";
    const std::string strategy = node.mig_strategy();
    if (strategy == "single" && !task.is_regular_gpu_request()) return "only whole gpu jobs can run on a node with MigStrategy='single'";
    if (strategy == "mixed" && !task.is_mig_candidate()) return "non MIG jobs cant run on a node with MigStrategy='mixed'";
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
  bool needs_new = true;
  std::optional<GpuChoice> now = preferable_gpus(ssn, node, task, false, false);
  if (now && !now->releasing) {
    needs_new = now->needs_new_group || contains_new_group(now->groups);
  } else if (std::optional<GpuChoice> later = preferable_gpus(ssn, node, task, true, false)) {
    needs_new = later->needs_new_group || contains_new_group(later->groups);
  }
  return !needs_new || available >= 2;
}

double free_resource(const model::Node& node, int index) { return node.idle[index] + node.releasing[index]; }

}  // namespace

std::string describe_node(const model::Node& node) { return node.name; }

bool tolerates(const model::Toleration& t, const model::Taint& taint) {
  if (!t.effect.empty() && t.effect != taint.effect) return false;
  if (t.key.empty() && t.op == "Exists") return true;
  if (t.key != taint.key) return false;
  return t.op == "Exists" || t.value == taint.value;
}

bool fitting_node(Session& ssn, TaskId task_id, NodeId node_id, std::string* why) {
  const model::Task& task = ssn.state.tasks[task_id];
  const model::Node& node = ssn.state.nodes[node_id];
  auto fail = [&](std::string reason) {
    if (why) *why = "node " + node.name + ": " + reason;
    return false;
  };
  if (!node.task_fits(task, node.non_allocated(), true)) {
    if (!why) return false;
    const std::string lacking = node.lacking(task, node.non_allocated(), true);
    return fail(lacking.empty() ? "not enough free resources" : "not enough free resources: " + lacking);
  }
  // The dynamicresources and numa plugins' predicates run after the predicates plugin's, with or
  // without it.
  auto numa = [&] {
    if (ssn.config.plugins.dynamic_resources && !task.claims.empty()) {
      if (std::string r = dra_filter(ssn, task, node); !r.empty()) return fail(r);
    }
    return numa_admits(ssn, task, node, nullptr) || fail(kNumaFitError);
  };
  if (!ssn.config.predicates_enabled) return numa();
  if (CapacityVerdict over = task_on_node_over_capacity(ssn, task_id, node_id)) {
    return fail("node does not have enough capacity: " + *over);
  }
  if (std::string r = resources_type(task, node); !r.empty()) return fail(r);
  if (task.gpu.memory_mib > 0 && !node.gpu_memory_synced) {
    return fail("node is not a gpu node or its gpu memory label is missing");
  }
  if (!enough_pod_slots(ssn, task, node)) return fail("node(s) exceed max pod count");
  if (node.unschedulable) return fail("node(s) were unschedulable");
  if (!node.conditions_ok) return fail("node(s) were not ready");
  if (std::string r = k8s_filters(task, node); !r.empty()) return fail(r);
  if (std::string r = pod_affinity_filter(ssn, task, node); !r.empty()) return fail(r);
  return numa();
}

std::vector<std::string> fitting_gpus(const Session& ssn, const model::Node& node, const model::Task& task) {
  std::vector<std::string> candidates;
  for (const auto& [group, used] : node.used_shared_mib) {
    if (node.task_fits_on_group(task.gpu, group)) candidates.push_back(group);
  }
  const double idle = node.idle[kGpu], releasing = node.releasing[kGpu];
  if (idle > 0 || releasing > 0) {
    // All markers are alike and sort together; the caller takes at most gpu.count of them, so
    // listing more (KAI lists one per whole GPU) changes nothing but the work.
    const std::int64_t whole = std::min<std::int64_t>(static_cast<std::int64_t>(idle) + static_cast<std::int64_t>(releasing),
                                                      std::max<std::int64_t>(task.gpu.count, 1));
    for (std::int64_t i = 0; i < whole; ++i) candidates.emplace_back(kWholeGpu);
  }
  // gpupack (default): whole GPUs score 0, groups their used portion; gpuspread the reverse;
  // neither plugin: every candidate 0. Equal scores keep candidate order (groups by id, whole
  // GPUs last).
  const bool scored = ssn.config.plugins.gpu_device_order;
  const bool pack = ssn.config.gpu_device_pack();
  std::map<double, std::vector<std::string>, std::greater<>> by_score;
  for (const std::string& c : candidates) {
    double score = 0;
    if (c == kWholeGpu) {
      score = !scored || pack ? 0 : 1;
    } else {
      if (node.gpu_memory_mib < model::kDefaultGpuMemoryMib || node.gpu_memory_mib == 0) continue;
      auto used = node.used_shared_mib.find(c);
      const double portion = static_cast<double>(used->second) / static_cast<double>(node.gpu_memory_mib);
      score = !scored ? 0 : pack ? portion : 1 - portion;
    }
    by_score[score].push_back(c);
  }
  std::vector<std::string> sorted;
  for (auto& [score, ids] : by_score) sorted.insert(sorted.end(), ids.begin(), ids.end());
  return sorted;
}

std::optional<GpuChoice> preferable_gpus(Session& ssn, const model::Node& node, const model::Task& task,
                                         bool pipeline_only, bool assign_new_ids) {
  GpuChoice choice;
  const auto count = static_cast<std::size_t>(task.gpu.count);
  for (const std::string& gpu : fitting_gpus(ssn, node, task)) {
    if (gpu == kWholeGpu) {
      // findGpuForSharingOnNode: a new group; releasing unless the task fits idle now.
      const bool releasing = pipeline_only || !node.task_fits(task, node.idle, false);
      choice.releasing = choice.releasing || releasing;
      choice.needs_new_group = true;
      choice.groups.push_back(assign_new_ids ? ssn.new_gpu_group_id(node) : std::string("new"));
    } else {
      choice.releasing = choice.releasing || !node.enough_idle_on_group(task.gpu, gpu) ||
                         !node.task_fits(task, node.idle, false);
      choice.groups.push_back(gpu);
    }
    if (choice.groups.size() == count) return choice;
  }
  return std::nullopt;
}

NodeOrder ordered_nodes(Session& ssn, TaskId task_id, const std::vector<NodeId>& nodes) {
  const model::Task& task = ssn.state.tasks[task_id];
  const bool cpu_task = task.is_cpu_only();
  const int resource = cpu_task ? kCpu : kGpu;
  const bool binpack = cpu_task ? ssn.config.cpu_binpack : ssn.config.gpu_binpack;

  // setBinpackPreOrder: min/max free resource over every node offered (fitting or not).
  double min_free = std::numeric_limits<double>::max(), max_free = 0;
  if (binpack) {
    for (NodeId id : nodes) {
      const model::Node& node = ssn.state.nodes[id];
      if (node.allocatable[resource] == 0) continue;
      const double free = free_resource(node, resource);
      min_free = std::min(min_free, free);
      max_free = std::max(max_free, free);
    }
  }

  // podaffinity: PreScore once per ordering (NodePreOrderFn); a task skipped once stays at 0.
  std::optional<PreferredAffinityScores> affinity;
  if (ssn.config.plugins.pod_affinity) {
    affinity = PreferredAffinityScores::prescore(ssn, task);
    if (affinity->skip()) ssn.pod_affinity_skipped.insert(task_id);
    if (ssn.pod_affinity_skipped.contains(task_id)) affinity.reset();
  }

  std::vector<std::pair<double, NodeId>> scored;
  scored.reserve(nodes.size());
  for (NodeId id : nodes) {
    const model::Node& node = ssn.state.nodes[id];
    double score = 0;
    if (ssn.topology) {
      const std::optional<double> topology = ssn.topology->node_score(ssn, task, id);
      if (!topology) continue;  // scoring failed: KAI leaves the node out (session.go scoreNodes)
      score += *topology;
    }
    if (affinity) score += kK8sPlugins * static_cast<double>(affinity->score(node));
    const model::SchedulerConfig::Plugins& plugins = ssn.config.plugins;
    if (plugins.nominated_node && !task.nominated_node.empty() && task.nominated_node == node.name) {
      score += kNominatedNode;
    }
    if (ssn.config.gpu_sharing_order()) {
      // gpusharingorder: any in-use shared group this task fits (CPU pods need 0 MiB, so fit too).
      for (const auto& [group, used] : node.used_shared_mib) {
        if (node.task_fits_on_group(task.gpu, group)) {
          score += kGpuSharing;
          break;
        }
      }
    }
    if (plugins.node_availability && node.task_fits(task, node.idle, false)) score += kAvailability;
    if (plugins.resource_type && cpu_task && node.is_cpu_only_node()) score += kResourceType;
    if (!plugins.node_placement) {
      // no nodeplacement plugin: no binpack or spread term
    } else if (binpack) {
      const double overall = node.allocatable[resource];
      const double free = free_resource(node, resource);
      if (overall != 0 && max_free != 0) {
        score += min_free == max_free ? kMaxHighDensity
                                      : kMaxHighDensity * (1 - (free - min_free) / (max_free - min_free));
      }
    } else {
      const double capacity = cpu_task ? node.allocatable[kCpu] : static_cast<double>(node.gpu_count());
      if (capacity != 0) score += free_resource(node, resource) / capacity;
    }
    scored.emplace_back(score, id);
  }
  return NodeOrder(std::move(scored), ssn.node_name_ranks());
}

bool NodeOrder::next(NodeId& node) {
  if (handed_ == scored_.size()) return false;
  if (handed_ == sorted_) {
    // Highest score first, ties by node name (ranks are unique, so the order is total): the
    // next few (twice as many each time) sorted out of the rest.
    const std::vector<std::uint32_t>& rank = *ranks_;
    auto better = [&](const auto& a, const auto& b) {
      if (a.first != b.first) return a.first > b.first;
      return rank[a.second.index()] < rank[b.second.index()];
    };
    const std::size_t upto = std::min(scored_.size(), std::max<std::size_t>(8, 2 * sorted_));
    const auto begin = scored_.begin() + static_cast<std::ptrdiff_t>(sorted_);
    std::partial_sort(begin, scored_.begin() + static_cast<std::ptrdiff_t>(upto), scored_.end(), better);
    sorted_ = upto;
  }
  node = scored_[handed_++].second;
  return true;
}

}  // namespace sim::sched
