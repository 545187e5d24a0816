// The minruntime plugin (plugins/minruntime/minruntime.go, resolvers.go): a job that started less
// than its queue's min-runtime ago is no victim; an elastic one may lose pods, but only down to
// each PodSet's minimum (validVictimForMinAvailable).

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "builders.hpp"
#include "sim/core/assert.hpp"
#include "sim/sched/framework/gang.hpp"
#include "sim/sched/framework/scenario.hpp"

namespace sim::sched::plugins {
namespace {

// Victim-side protection: true if `victim` started less than its queue's preempt/reclaim
// min-runtime ago. `reclaim` picks reclaimMinRuntime with the LCA rule (reclaimResolveMethod lca,
// the default) or from the victim's queue up; otherwise preemptMinRuntime from the victim's queue
// up; the plugin's defaults where no queue sets one.
bool min_runtime_protected(const Session& ssn, JobId victim, JobId preemptor, bool reclaim) {
  const model::Job& v = ssn.state.jobs[victim];
  if (!v.last_start_ns || !v.queue.valid()) return false;
  const model::QueueTree& tree = ssn.state.queue_tree;
  auto walk_up = [&](QueueId from, bool use_reclaim) -> std::optional<std::int64_t> {
    for (QueueId q = from; q.valid(); q = tree.parent(q)) {
      const auto& spec = ssn.state.queues[q];
      const auto& value = use_reclaim ? spec.reclaim_min_runtime_ms : spec.preempt_min_runtime_ms;
      if (value) return *value * 1'000'000;
    }
    return std::nullopt;
  };
  std::int64_t min_runtime_ns = 0;
  if (!reclaim) {
    min_runtime_ns = walk_up(v.queue, false).value_or(ssn.config.default_preempt_min_runtime_ns);
  } else {
    std::vector<QueueId> vp, rp;
    for (QueueId q = v.queue; q.valid(); q = tree.parent(q)) vp.insert(vp.begin(), q);
    const QueueId rq = ssn.state.jobs[preemptor].queue;
    for (QueueId q = rq; q.valid(); q = tree.parent(q)) rp.insert(rp.begin(), q);
    std::optional<std::int64_t> found;
    if (!ssn.config.reclaim_resolve_lca) {
      found = walk_up(v.queue, true);
    } else if (rp.empty() || vp.front() != rp.front()) {
      const auto& spec = ssn.state.queues[vp.front()];
      if (spec.reclaim_min_runtime_ms) found = *spec.reclaim_min_runtime_ms * 1'000'000;
    } else {
      std::size_t i = 0;
      while (i + 1 < vp.size() && i + 1 < rp.size() && vp[i + 1] == rp[i + 1]) ++i;
      const QueueId start = i + 1 < vp.size() ? vp[i + 1] : vp[i];
      found = walk_up(start, true);
    }
    min_runtime_ns = found.value_or(ssn.config.default_reclaim_min_runtime_ns);
  }
  return ssn.state.now_ns < *v.last_start_ns + min_runtime_ns;
}

// The victims of a PodSet may not take its active-used pods (Releasing ones included) below its
// minimum; PodSets without victims are not checked.
bool scenario_valid(const Session& ssn, const Scenario& sc, bool reclaim) {
  for (const auto& [job, tasks] : sc.victims()) {
    if (!is_elastic(ssn, job) || !min_runtime_protected(ssn, job, sc.preemptor.id, reclaim))
      continue;
    const JobView view = full_view(ssn, job);
    const PodSetCounts counts(ssn, view);
    std::vector<std::int64_t> victims(counts.all.size(), 0);
    for (TaskId t : tasks) {
      const int p = ssn.state.tasks[t].pod_set;
      if (p >= 0 && static_cast<std::size_t>(p) < victims.size())
        ++victims[static_cast<std::size_t>(p)];
    }
    for (std::size_t p = 0; p < victims.size(); ++p) {
      if (victims[p] > 0 &&
          view.groups->pod_sets[p].min_available > counts.active_used[p] - victims[p])
        return false;
    }
  }
  return true;
}

// is_elastic reads only how many pods each PodSet has, which a session does not change: asked for
// every running job by each reclaimer's victim queue, it is worked out once per job.
class ElasticJobs {
 public:
  explicit ElasticJobs(std::size_t jobs) : elastic_(jobs, kUnknown) {}
  bool operator()(const Session& ssn, JobId job) {
    if (job.index() >= elastic_.size()) return is_elastic(ssn, job);
    std::int8_t& e = elastic_[job.index()];
    if (e == kUnknown) e = is_elastic(ssn, job) ? 1 : 0;
    SIM_ASSERT((e == 1) == is_elastic(ssn, job));
    return e == 1;
  }

 private:
  static constexpr std::int8_t kUnknown = -1;
  std::vector<std::int8_t> elastic_;  // by job index
};

class MinRuntime final : public Plugin {
 public:
  std::string_view name() const override { return "minruntime"; }
  void on_session_open(Session& ssn) override {
    SessionHooks& h = ssn.hooks;
    auto elastic = std::make_shared<ElasticJobs>(ssn.state.jobs.size());
    h.reclaim_victim_filters.push_back(
        [elastic](const Session& s, const JobView& reclaimer, const ResourceVec&, JobId victim) {
          return (*elastic)(s, victim) || !min_runtime_protected(s, victim, reclaimer.id, true);
        });
    h.preempt_victim_filters.push_back(
        [elastic](const Session& s, const JobView& preemptor, JobId victim) {
          return (*elastic)(s, victim) || !min_runtime_protected(s, victim, preemptor.id, false);
        });
    h.reclaim_scenario_validators.push_back(
        [](const Session& s, const Scenario& sc) { return scenario_valid(s, sc, true); });
    h.preempt_scenario_validators.push_back(
        [](const Session& s, const Scenario& sc) { return scenario_valid(s, sc, false); });
  }
};

}  // namespace

std::unique_ptr<Plugin> make_minruntime(const model::PluginOption&) {
  return std::make_unique<MinRuntime>();
}

}  // namespace sim::sched::plugins
