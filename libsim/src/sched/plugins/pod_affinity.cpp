#include "pod_affinity.hpp"

#include <algorithm>
#include <unordered_set>

#include "builders.hpp"
#include "label_match.hpp"
#include "scores.hpp"

namespace sim::sched {
namespace {

// The term's namespaces hold `pod`, and its selector matches `pod`'s labels.
bool term_matches_pod(const model::PodAffinityTerm& term, const std::string& owner_ns,
                      const model::Task& pod) {
  if (!term.selector) return false;
  if (!term.all_namespaces) {
    const bool listed = term.namespaces.empty()
                            ? pod.ns == owner_ns
                            : std::find(term.namespaces.begin(), term.namespaces.end(), pod.ns) !=
                                  term.namespaces.end();
    if (!listed) return false;
  }
  return selector_matches(*term.selector, pod.labels);
}

const std::string* label(const model::Node& node, const std::string& key) {
  auto it = node.labels.find(key);
  return it == node.labels.end() ? nullptr : &it->second;
}

// satisfyPodAffinity: the node has every term's topology label and a matching pod in each of
// those domains; or no matching pod exists anywhere and the pod matches its own terms (the first
// pod of a group with affinity to itself).
bool affinity_satisfied(const model::Task& task, const model::Node& node,
                        const std::vector<bool>& met, bool pods_exist) {
  const auto& affinity = task.placement->pod_affinity;
  for (const model::PodAffinityTerm& term : affinity) {
    if (label(node, term.topology_key) == nullptr) return false;
  }
  if (std::all_of(met.begin(), met.end(), [](bool m) { return m; })) return true;
  bool self = true;
  for (const model::PodAffinityTerm& term : affinity)
    self = self && term_matches_pod(term, task.ns, task);
  return !pods_exist && self;
}

}  // namespace

std::string pod_affinity_filter(const Session& ssn, const model::Task& task,
                                const model::Node& node, bool any_pod_anti_affinity) {
  const auto& affinity = task.placement->pod_affinity;
  const auto& anti = task.placement->pod_anti_affinity;
  if (affinity.empty() && anti.empty() && !any_pod_anti_affinity) return {};  // nothing to check
  bool affinity_pods_exist = false;  // some pod matches all affinity terms anywhere
  std::vector<bool> affinity_met(affinity.size(),
                                 false);  // per term: such a pod in the node's domain
  bool anti_conflict = false, existing_conflict = false;
  for (const model::Task& other : ssn.state.tasks) {
    if (other.id == task.id || !other.node.valid() || !model::is_active_used(other.status))
      continue;
    const model::Node& where = ssn.state.nodes[other.node];
    // Existing pods' anti-affinity against this pod, in the node's domain of each term.
    for (const model::PodAffinityTerm& term : other.placement->pod_anti_affinity) {
      const std::string* value = label(where, term.topology_key);
      const std::string* mine = label(node, term.topology_key);
      if (value && mine && *value == *mine && term_matches_pod(term, other.ns, task))
        existing_conflict = true;
    }
    for (const model::PodAffinityTerm& term : anti) {
      const std::string* value = label(where, term.topology_key);
      const std::string* mine = label(node, term.topology_key);
      if (value && mine && *value == *mine && term_matches_pod(term, task.ns, other))
        anti_conflict = true;
    }
    // Affinity counts only pods matching every term (filtering.go getAffinityCounts).
    if (affinity.empty()) continue;
    bool all = true;
    for (const model::PodAffinityTerm& term : affinity)
      all = all && term_matches_pod(term, task.ns, other);
    if (!all) continue;
    for (std::size_t i = 0; i < affinity.size(); ++i) {
      const std::string* value = label(where, affinity[i].topology_key);
      if (value == nullptr) continue;
      affinity_pods_exist = true;
      const std::string* mine = label(node, affinity[i].topology_key);
      if (mine && *mine == *value) affinity_met[i] = true;
    }
  }
  // Filter's order: the pod's affinity, its anti-affinity, then the existing pods' anti-affinity.
  if (!affinity_satisfied(task, node, affinity_met, affinity_pods_exist))
    return "node(s) didn't match pod affinity rules";
  if (anti_conflict) return "node(s) didn't match pod anti-affinity rules";
  if (existing_conflict) return "node(s) didn't satisfy existing pods anti-affinity rules";
  return {};
}

// scoring.go PreScore / processExistingPod. Pods on nodes without labels count for nothing.
PreferredAffinityScores PreferredAffinityScores::prescore(const Session& ssn,
                                                          const model::Task& task,
                                                          bool any_preferred_pod_affinity) {
  PreferredAffinityScores out;
  const auto& affinity = task.placement->preferred_pod_affinity;
  const auto& anti = task.placement->preferred_pod_anti_affinity;
  if (affinity.empty() && anti.empty() && !any_preferred_pod_affinity)
    return out;  // no term anywhere
  for (const model::Task& other : ssn.state.tasks) {
    if (other.id == task.id || !other.node.valid() || !model::is_active_used(other.status))
      continue;
    const model::Node& where = ssn.state.nodes[other.node];
    if (where.labels.empty()) continue;
    out.add(affinity, task.ns, other, where, 1);
    out.add(anti, task.ns, other, where, -1);
    out.add(other.placement->preferred_pod_affinity, other.ns, task, where, 1);
    out.add(other.placement->preferred_pod_anti_affinity, other.ns, task, where, -1);
  }
  return out;
}

void PreferredAffinityScores::add(const std::vector<model::WeightedPodAffinityTerm>& terms,
                                  const std::string& owner_ns, const model::Task& pod,
                                  const model::Node& where, int sign) {
  for (const model::WeightedPodAffinityTerm& w : terms) {
    if (!term_matches_pod(w.term, owner_ns, pod)) continue;
    if (const std::string* value = label(where, w.term.topology_key))
      by_key_[w.term.topology_key][*value] += w.weight * sign;
  }
}

std::int64_t PreferredAffinityScores::score(const model::Node& node) const {
  std::int64_t sum = 0;
  for (const auto& [key, domains] : by_key_) {
    const std::string* value = label(node, key);
    if (value == nullptr) continue;
    auto it = domains.find(*value);
    if (it != domains.end()) sum += it->second;
  }
  return sum;
}

namespace plugins {
namespace {

// The podaffinity plugin (plugins/podaffinity/podaffinity.go): the preferred terms' weights as
// node scores, PreScore once per ordering (NodePreOrderFn); a task whose PreScore skipped once
// scores 0 from then on (skipOrderFn).
class PodAffinity final : public Plugin, public NodeScorer {
 public:
  std::string_view name() const override { return "podaffinity"; }
  void on_session_open(Session& ssn) override {
    any_preferred_ = ssn.open_sums().any_preferred_pod_affinity;
    ssn.hooks.node_scorers.push_back(this);
  }
  void score(Session& ssn, TaskId task, const std::vector<NodeId>& /*offered*/,
             const std::vector<NodeId>& nodes, std::vector<double>& scores,
             std::vector<char>&) override {
    const PreferredAffinityScores affinity =
        PreferredAffinityScores::prescore(ssn, ssn.state.tasks[task], any_preferred_);
    if (affinity.skip()) skipped_.insert(task);
    if (skipped_.contains(task)) return;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      scores[i] += kK8sPlugins * static_cast<double>(affinity.score(ssn.state.nodes[nodes[i]]));
    }
  }
  /// No preferred term in the task or anywhere in the session: PreScore skips, whatever the
  /// nodes hold, and every node scores 0 (the skip it would note changes no later answer).
  bool node_local(const Session&, const model::Task& task) const override {
    return !any_preferred_ && task.placement->preferred_pod_affinity.empty() &&
           task.placement->preferred_pod_anti_affinity.empty();
  }

 private:
  bool any_preferred_ = false;
  std::unordered_set<TaskId> skipped_;
};

}  // namespace

std::unique_ptr<Plugin> make_podaffinity(const model::PluginOption&) {
  return std::make_unique<PodAffinity>();
}

}  // namespace plugins
}  // namespace sim::sched
