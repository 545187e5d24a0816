#include "sim/sched/actions/solver.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <sstream>
#include <string_view>
#include <unordered_set>

#include "fit_alone.hpp"
#include "sim/core/assert.hpp"
#include "sim/sched/actions/actions.hpp"
#include "topology_gpus_filter.hpp"
#include "victim_order.hpp"

namespace sim::sched {
namespace {

constexpr int kNodeLocalGreedy = 0;
constexpr int kMultiNodeGang = 1;

double gpus_quota_accepted(const model::Task& t) { return t.accepted_gpu.gpus_quota(); }

// AccumulatedIdleGpus (accumulated_scenario_filters/idle_gpus): can the pending GPU demand,
// largest first, fit greedily into the N nodes with the most idle + releasing + freed GPUs
// (N = number of pending pods)? Kept incrementally, since a builder only ever adds victims.
// Like KAI it remembers recorded and potential victims apart, so a pod in both lists frees its
// GPUs twice; and a list that names a pod twice breaks KAI's cache assertions, whose error the
// builder ignores: from then on the filter passes every scenario (pod_scenario_builder.go
// isScenarioValid, idle_gpus.go assertRecordedVictimsState, assertPotentialVictimsState).
class IdleGpusFilter {
 public:
  IdleGpusFilter(Session& ssn, const std::vector<TaskId>& pending)
      : ssn_(ssn), name_rank_(&ssn.node_name_ranks()) {
    for (TaskId t : pending) required_.push_back(ssn.state.tasks[t].gpu.gpus_quota());
    std::sort(required_.begin(), required_.end(), std::greater<>());
    uniform_ = !required_.empty() && required_.front() == required_.back();
    capacity_.resize(ssn.state.nodes.size());
    std::vector<Key> keys;  // sorted first, then each put at the set's end: no search per node
    keys.reserve(capacity_.size());
    for (std::size_t i = 0; i < capacity_.size(); ++i) {
      capacity_[i] = ssn.free_capacity.gpus_with_shared(NodeId(static_cast<NodeId::value_type>(i)));
      keys.push_back(key(i));
    }
    std::sort(keys.begin(), keys.end());
    for (const Key& k : keys) order_.insert(order_.end(), k);
  }

  /// A victim of the scenario's recorded list (`recorded`) or its potential list.
  void add_victim(TaskId id, bool recorded) {
    const model::Task& t = ssn_.state.tasks[id];
    if (!t.node.valid()) return;
    std::vector<char>& seen = recorded ? recorded_seen_ : potential_seen_;
    if (seen.empty()) seen.assign(ssn_.state.tasks.size(), 0);
    if (seen[id.index()]) {
      asserts_fail_ = true;
      return;
    }
    seen[id.index()] = 1;
    // The node's entry moves in the order, reusing its allocation.
    const std::size_t n = t.node.index();
    auto entry = order_.extract(key(n));
    capacity_[n] += gpus_quota_accepted(t);
    entry.value() = key(n);
    order_.insert(std::move(entry));
  }

  // First fit of the pending demand, largest first, into the nodes with the most capacity, at
  // most one node per pod. The nodes are read from the order only as far as the fit gets (it
  // usually needs a few of them): the same answer as over all of the top ones.
  bool passes() const {
    if (asserts_fail_) return true;
    if (uniform_) return passes_uniform();
    std::vector<std::pair<std::size_t, double>>& used = used_;  // top nodes, what was placed
    used.clear();
    auto next = order_.begin();
    for (double need : required_) {
      if (need == 0) return true;
      bool matched = false;
      for (std::size_t i = 0;; ++i) {
        if (i == used.size()) {
          if (used.size() == required_.size() || next == order_.end()) break;
          used.emplace_back(next->second, 0.0);
          ++next;
        }
        auto& [node, taken] = used[i];
        const double cap = capacity_[node];
        if (cap < need) break;
        if (cap - taken >= need) {
          taken += need;
          matched = true;
          break;
        }
      }
      if (!matched) return false;
    }
    return true;
  }

 private:
  // passes() when every pod needs the same: a node that cannot take one more never can later,
  // so first fit fills the nodes one after another (the same additions, node by node), in time
  // linear in the pods instead of quadratic.
  bool passes_uniform() const {
    const double need = required_.front();
    if (need == 0) return true;
    std::size_t left = required_.size();
    std::size_t visited = 0;
    for (auto it = order_.begin(); it != order_.end() && visited < required_.size();
         ++it, ++visited) {
      const double cap = capacity_[it->second];
      if (cap < need) return false;
      double taken = 0;
      while (left > 0 && cap - taken >= need) {
        taken += need;
        --left;
      }
      if (left == 0) return true;
    }
    return false;
  }

  // Most capacity first, then node name (names are unique: a snapshot refuses a duplicate).
  using Key = std::pair<std::pair<double, std::size_t>, std::size_t>;
  Key key(std::size_t n) const { return {{-capacity_[n], (*name_rank_)[n]}, n}; }
  const Session& ssn_;
  std::vector<double> required_;
  std::vector<double> capacity_;
  const std::vector<std::uint32_t>* name_rank_;  ///< the session's node name ranks
  std::set<Key> order_;
  std::vector<char> recorded_seen_, potential_seen_;  ///< per task, made at the first victim
  mutable std::vector<std::pair<std::size_t, double>> used_;  ///< passes()'s scratch
  bool asserts_fail_ = false;                                 ///< a victim list named a pod twice
  bool uniform_ = false;  ///< every pending pod needs the same GPUs
};

// PodAccumulatedScenarioBuilder: grows one "outer" scenario victim slice by victim slice.
class ScenarioBuilder {
 public:
  ScenarioBuilder(Session& ssn, const JobView& preemptor, const std::vector<JobView>& recorded,
                  VictimOrder::Cursor victims, const std::vector<NodeId>& feasible)
      : ssn_(ssn), victims_(std::move(victims)), feasible_(feasible) {
    std::vector<TaskId> pending = tasks_to_allocate(ssn, preemptor, false);
    if (!pending.empty()) {
      auto setup = std::make_shared<ProbeSetup>();
      setup->preemptor = preemptor;
      setup->pending = std::move(pending);
      setup->recorded_jobs = recorded;
      for (const JobView& j : recorded) {
        setup->recorded_tasks.insert(setup->recorded_tasks.end(), j.tasks.begin(), j.tasks.end());
        recorded_set_.insert(j.tasks.begin(), j.tasks.end());
      }
      scenario_ = std::make_unique<Scenario>(ssn, std::move(setup));
      filter_ = std::make_unique<IdleGpusFilter>(ssn, scenario_->pending);
      topology_filter_ = std::make_unique<TopologyGpusFilter>(ssn, preemptor);
      if (!topology_filter_->active()) topology_filter_.reset();
      for (TaskId t : scenario_->recorded_tasks) add_to_filters(t, true);
    }
  }

  Scenario* accumulated(bool advance_first) {
    if (!scenario_) return nullptr;
    bool advance = advance_first;
    for (;;) {
      if (advance) {
        if (victims_.empty()) return nullptr;
        if (!add_next_victims()) continue;
      }
      advance = true;
      if (!filters_pass()) continue;
      return scenario_.get();
    }
  }

  // iterate(): like accumulated() but hands out MultiNodeGang sub-scenarios.
  std::unique_ptr<Scenario> next_for_gang(bool advance_first);

 private:
  bool add_next_victims() {
    const JobView& victim = victims_.pop();
    bool more = false;
    const std::vector<TaskId> tasks = tasks_to_evict(ssn_, victim, more);
    for (TaskId t : tasks) {
      if (recorded_set_.contains(t)) {
        JobView rest{victim.id, {}, victim.groups, {}, {}};
        for (TaskId x : victim.tasks) {
          if (!recorded_set_.contains(x)) rest.tasks.push_back(x);
        }
        if (!rest.tasks.empty()) victims_.push(rest);
        return false;
      }
    }
    if (more && !tasks.empty()) {
      JobView rest{victim.id, {}, victim.groups, {}, {}};
      for (TaskId x : victim.tasks) {
        if (std::find(tasks.begin(), tasks.end(), x) == tasks.end()) rest.tasks.push_back(x);
      }
      victims_.push(rest);
    }
    scenario_->add_potential(ssn_, tasks);
    for (TaskId t : tasks) add_to_filters(t, false);
    return true;
  }

  // The accumulated scenario filters in KAI's order: topology-aware idle GPUs, then idle GPUs.
  void add_to_filters(TaskId t, bool recorded) {
    if (topology_filter_) topology_filter_->add_victim(t);
    filter_->add_victim(t, recorded);
  }
  bool filters_pass() const {
    return (!topology_filter_ || topology_filter_->passes()) && filter_->passes();
  }

  struct Emitter;
  /// Per node (by index), lent to one emitter at a time and left as found: an emitter is made
  /// for every accumulated scenario that passes the filters, and few nodes are its.
  struct EmitterScratch {
    std::vector<std::uint32_t> first_link;    ///< all kNone between emitters
    std::vector<std::size_t> first_seen;      ///< all SIZE_MAX between emitters
    std::vector<double> cap, recorded_freed;  ///< all 0 between emitters
  };
  Session& ssn_;
  VictimOrder::Cursor victims_;
  std::vector<NodeId> feasible_;
  EmitterScratch scratch_;
  std::unique_ptr<Scenario> scenario_;
  std::unordered_set<TaskId> recorded_set_;
  std::unique_ptr<Emitter> emitter_;
  std::unique_ptr<IdleGpusFilter> filter_;
  std::unique_ptr<TopologyGpusFilter> topology_filter_;  ///< only when the job has a required level
};

// subScenarioEmitter: evict every slice on the K nodes that free the most GPUs cheaply, K growing.
struct ScenarioBuilder::Emitter {
  static constexpr std::uint32_t kNone = UINT32_MAX;
  Session& ssn;
  const Scenario& base;
  std::vector<NodeId> sorted;
  /// Each node's batches, linked in order of first appearance: the node's first link (by node
  /// index: scratch.first_link; kNone: none) and the links.
  EmitterScratch& scratch;
  std::vector<NodeId> touched;      // nodes with a batch
  std::vector<NodeId> recorded_on;  // nodes of the recorded victims
  struct Link {
    std::uint32_t batch, next;
  };
  std::vector<Link> links;
  std::vector<std::vector<TaskId>> batches;
  std::size_t next_k = 0;
  std::size_t dk = 1;

  template <typename Fn>
  void for_each_batch(NodeId node, Fn&& fn) const {
    for (std::uint32_t l = scratch.first_link[node.index()]; l != kNone; l = links[l].next)
      fn(links[l].batch);
  }

  Emitter(Session& s, const Scenario& outer, const std::vector<NodeId>& feasible,
          EmitterScratch& lent)
      : ssn(s), base(outer), scratch(lent) {
    double demand = 0, min_task = -1;
    for (TaskId t : base.pending) {
      const double q = ssn.state.tasks[t].gpu.gpus_quota();
      demand += q;
      if (min_task < 0 || q < min_task) min_task = q;
    }
    // Per node (by index): GPUs the recorded victims free, first potential victim, capacity;
    // each as the last emitter left it (cleared), not allocated again.
    const std::size_t nodes = ssn.state.nodes.size();
    std::vector<std::uint32_t>& first_link = scratch.first_link;
    if (first_link.size() != nodes) {
      first_link.assign(nodes, kNone);
      scratch.first_seen.assign(nodes, SIZE_MAX);
      scratch.cap.assign(nodes, 0.0);
      scratch.recorded_freed.assign(nodes, 0.0);
    }
    std::vector<std::size_t>& first_seen = scratch.first_seen;
    std::vector<double>& cap = scratch.cap;
    std::vector<double>& recorded_freed = scratch.recorded_freed;
#ifndef NDEBUG
    for (std::size_t i = 0; i < nodes; ++i) {
      SIM_ASSERT(first_link[i] == kNone && first_seen[i] == SIZE_MAX && cap[i] == 0.0 &&
                 recorded_freed[i] == 0.0);
    }
#endif
    for (TaskId t : base.recorded_tasks) {
      const model::Task& task = ssn.state.tasks[t];
      if (!task.node.valid()) continue;
      recorded_on.push_back(task.node);
      recorded_freed[task.node.index()] += gpus_quota_accepted(task);
    }
    // Batches: one per victim slice (group) in order of first appearance; a slice index names its
    // job too. Every potential victim is in a slice of its own job (add_potential adds one job's
    // pods at a time); the last entry would take a pod in none.
    std::vector<std::uint32_t> batch_of_slice(base.slices.size() + 1, kNone);
    for (std::size_t idx = 0; idx < base.potential.size(); ++idx) {
      const TaskId t = base.potential[idx];
      const model::Task& task = ssn.state.tasks[t];
      const std::uint32_t slice = base.slice_of(task.job, t);
      std::uint32_t& b = batch_of_slice[std::min<std::size_t>(slice, base.slices.size())];
      if (b == kNone) {
        b = static_cast<std::uint32_t>(batches.size());
        batches.emplace_back();
      }
      batches[b].push_back(t);
      if (!task.node.valid()) continue;
      if (first_seen[task.node.index()] == SIZE_MAX) first_seen[task.node.index()] = idx;
      std::uint32_t* link = &first_link[task.node.index()];
      if (*link == kNone) touched.push_back(task.node);
      while (*link != kNone && links[*link].batch != b) link = &links[*link].next;
      if (*link == kNone) {
        *link = static_cast<std::uint32_t>(links.size());
        links.push_back({b, kNone});
      }
    }
    for (NodeId node : touched) {
      double c = recorded_freed[node.index()] + ssn.free_capacity.gpus_with_shared(node);
      for_each_batch(node, [&](std::uint32_t bi) {
        for (TaskId t : batches[bi]) {
          if (ssn.state.tasks[t].node == node) c += gpus_quota_accepted(ssn.state.tasks[t]);
        }
      });
      cap[node.index()] = c;
    }
    for (NodeId node : touched) {
      if (min_task > 0 && cap[node.index()] < min_task) continue;
      sorted.push_back(node);
    }
    // A total order (first_seen differs between nodes), so the order of `touched` is immaterial.
    std::sort(sorted.begin(), sorted.end(), [&](NodeId a, NodeId b) {
      if (cap[a.index()] != cap[b.index()]) return cap[a.index()] < cap[b.index()];
      return first_seen[a.index()] < first_seen[b.index()];
    });
    double baseline = 0;
    for (NodeId n : feasible) {
      if (first_link[n.index()] != kNone) continue;
      baseline += ssn.free_capacity.gpus_with_shared(n) + recorded_freed[n.index()];
    }
    const double remaining = std::max(0.0, demand - baseline);
    next_k = sorted.size() + 1;
    if (remaining <= 0) {
      next_k = 0;
    } else {
      double cumulative = 0;
      for (std::size_t i = 0; i < sorted.size(); ++i) {
        cumulative += cap[sorted[i].index()];
        if (cumulative >= remaining) {
          next_k = i + 1;
          break;
        }
      }
    }
  }

  ~Emitter() {
    for (NodeId node : touched) {
      scratch.first_link[node.index()] = kNone;
      scratch.first_seen[node.index()] = SIZE_MAX;
      scratch.cap[node.index()] = 0.0;
    }
    for (NodeId node : recorded_on) scratch.recorded_freed[node.index()] = 0.0;
  }
  Emitter(const Emitter&) = delete;
  Emitter& operator=(const Emitter&) = delete;

  std::unique_ptr<Scenario> next() {
    if (next_k > sorted.size()) return nullptr;
    const std::size_t k = next_k;
    std::vector<std::uint32_t> picked;  // batch indices, ascending, each once
    for (std::size_t i = 0; i < k; ++i)
      for_each_batch(sorted[i], [&](std::uint32_t bi) { picked.push_back(bi); });
    std::sort(picked.begin(), picked.end());
    picked.erase(std::unique(picked.begin(), picked.end()), picked.end());
    if (k >= sorted.size()) {
      next_k = sorted.size() + 1;
    } else {
      next_k = std::min(k + dk, sorted.size());
      dk *= 2;
    }
    auto sub = std::make_unique<Scenario>(ssn, base.setup);
    for (std::uint32_t bi : picked) sub->add_potential(ssn, batches[bi]);
    return sub;
  }
};

std::unique_ptr<Scenario> ScenarioBuilder::next_for_gang(bool advance_first) {
  if (!scenario_) return nullptr;
  bool advance = advance_first;
  for (;;) {
    if (emitter_) {
      if (std::unique_ptr<Scenario> sub = emitter_->next()) return sub;
      emitter_.reset();
    }
    if (advance) {
      if (victims_.empty()) return nullptr;
      if (!add_next_victims()) continue;
    }
    advance = true;
    if (!filters_pass()) continue;
    if (scenario_->potential.empty()) return std::make_unique<Scenario>(*scenario_);
    emitter_.reset();  // clears its scratch entries before the next emitter takes them
    emitter_ = std::make_unique<Emitter>(ssn_, *scenario_, feasible_, scratch_);
  }
}

// VictimsTasksFromNodes: every slice of every victim job with a potential pod on `node`.
std::vector<TaskId> victims_from_node(const Session& ssn, const Scenario& sc, NodeId node) {
  std::vector<JobId> jobs = sc.potential_jobs_on(node);
  if (jobs.empty()) return {};
  std::sort(jobs.begin(), jobs.end(),
            [&](JobId a, JobId b) { return ssn.state.jobs[a].name < ssn.state.jobs[b].name; });
  std::vector<TaskId> tasks;
  for (JobId j : jobs) {
    sc.for_each_slice(j, [&](std::uint32_t, const VictimSlice& slice) {
      const std::span<const TaskId> pods = sc.pods(slice);
      tasks.insert(tasks.end(), pods.begin(), pods.end());
      return false;
    });
  }
  return tasks;
}

// nodeLocalScenarios: one scenario per node of the latest victim job.
std::vector<std::unique_ptr<Scenario>> node_local_scenarios(const Session& ssn,
                                                            const Scenario& base) {
  std::vector<std::unique_ptr<Scenario>> out;
  if (base.potential.empty()) {
    if (!base.recorded_tasks.empty()) out.push_back(std::make_unique<Scenario>(base));
    return out;
  }
  const JobId latest = ssn.state.tasks[base.potential.back()].job;
  // The job's nodes in name order, each once (node names are unique: a snapshot refuses a
  // duplicate).
  std::vector<NodeId> nodes;
  for (TaskId t : ssn.state.jobs[latest].tasks) {
    const model::Task& task = ssn.state.tasks[t];
    if (task.node.valid()) nodes.push_back(task.node);
  }
  std::sort(nodes.begin(), nodes.end(),
            [&](NodeId a, NodeId b) { return ssn.state.nodes[a].name < ssn.state.nodes[b].name; });
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  // The pods' uids are views into the session's tasks, which outlive this.
  std::set<std::vector<std::string_view>> seen;
  for (NodeId node : nodes) {
    std::vector<TaskId> victims = victims_from_node(ssn, base, node);
    if (victims.empty()) continue;
    std::vector<std::string_view> key;
    key.reserve(victims.size());
    for (TaskId t : victims) key.emplace_back(ssn.state.tasks[t].uid);
    std::sort(key.begin(), key.end());
    if (!seen.insert(std::move(key)).second) continue;
    auto sn = std::make_unique<Scenario>(ssn, base.setup);
    // addPotentialVictimsGroupedByJob: jobs in first-appearance order.
    std::vector<JobId> order;
    std::map<JobId, std::vector<TaskId>> grouped;
    for (TaskId t : victims) {
      const JobId j = ssn.state.tasks[t].job;
      if (!grouped.contains(j)) order.push_back(j);
      grouped[j].push_back(t);
    }
    for (JobId j : order) sn->add_potential(ssn, grouped[j]);
    out.push_back(std::move(sn));
  }
  return out;
}

}  // namespace

JobSolver::JobSolver(Session& ssn, std::vector<NodeId> feasible_nodes, ScenarioValidator validator,
                     VictimQueueFactory victims)
    : ssn_(ssn),
      feasible_(std::move(feasible_nodes)),
      validator_(std::move(validator)),
      victims_(std::move(victims)) {}

const JobView& JobSolver::victim_view(JobId job) {
  auto job_at = [&](std::uint32_t p) { return victim_views_[p].id.value(); };
  std::uint32_t p = victim_view_index_.find(job.value(), job_at);
  if (p == PositionIndex::kNone) {
    p = static_cast<std::uint32_t>(victim_views_.size());
    victim_view_index_.insert(job.value(), p, job_at);
    victim_views_.push_back(full_view(ssn_, job));
  }
  return victim_views_[p];
}

// With unique names: the scenario's own jobs in jobs_to_allocate's order (the victims' jobs and
// the preemptor's partial view; a pending one's pending view), each with how many pending views
// come before it.
const std::vector<std::pair<std::size_t, const JobView*>>& JobSolver::own_jobs(
    const JobView& preemptor, const std::vector<JobId>& victim_jobs) {
  const std::vector<std::uint32_t>& rank = ssn_.job_name_ranks();
  std::vector<JobId>& extra = order_ids_;
  extra.assign(victim_jobs.begin(), victim_jobs.end());
  extra.push_back(preemptor.id);
  std::sort(extra.begin(), extra.end(),
            [&](JobId a, JobId b) { return rank[a.index()] < rank[b.index()]; });
  extra.erase(std::unique(extra.begin(), extra.end()), extra.end());
  own_jobs_.clear();
  for (JobId j : extra) {
    const auto at = std::partition_point(
        pending_views_.begin(), pending_views_.end(),
        [&](const JobView& v) { return rank[v.id.index()] < rank[j.index()]; });
    const auto before = static_cast<std::size_t>(at - pending_views_.begin());
    const bool pending = at != pending_views_.end() && at->id == j;
    const JobView* view = j == preemptor.id ? &preemptor : pending ? &*at : &victim_view(j);
    own_jobs_.emplace_back(before, view);
  }
  return own_jobs_;
}

bool JobSolver::is_pending(JobId job) const {
  auto at = std::lower_bound(pending_index_.begin(), pending_index_.end(),
                             std::pair<JobId, std::size_t>(job, 0));
  return at != pending_index_.end() && at->first == job;
}

void JobSolver::take_pending_keys(std::size_t p) {
  if (pending_keys_taken_[p]) return;
  pending_keys_[p] = order_queue_->keys_of(pending_views_[p]);
  pending_keys_taken_[p] = 1;
}

// GetJobsToAllocate's jobs in the order kaisim pushes them (KAI walks a map: PodGroup name order
// is one it can take): the victims' jobs, every job with a pending pod and the preemptor (its
// partial view), each once. The pending jobs' views are the solve's own, pushed borrowed.
const std::vector<const JobView*>& JobSolver::jobs_to_allocate(
    const JobView& preemptor, const std::vector<JobId>& victim_jobs) {
  if (!ssn_.job_name_ranks().empty()) {
    // Names are unique, and the pending views are in name order already: merge in the few
    // others (the victims' jobs, the preemptor) instead of sorting every job again.
    std::vector<const JobView*>& out = order_views_;
    out.clear();
    std::size_t p = 0;
    for (const auto& [before, view] : own_jobs(preemptor, victim_jobs)) {
      for (; p < before; ++p) out.push_back(&pending_views_[p]);
      if (p < pending_views_.size() && pending_views_[p].id == view->id) ++p;  // its own view
      out.push_back(view);
    }
    for (; p < pending_views_.size(); ++p) out.push_back(&pending_views_[p]);
    return out;
  }
  // Two jobs share a name: std::sort's order, from the same sequence as always.
  std::vector<JobId>& ids = order_ids_;
  ids.assign(victim_jobs.begin(), victim_jobs.end());
  for (const JobView& v : pending_views_) ids.push_back(v.id);
  ids.push_back(preemptor.id);
  std::sort(ids.begin(), ids.end(),
            [&](JobId a, JobId b) { return ssn_.state.jobs[a].name < ssn_.state.jobs[b].name; });
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::vector<const JobView*>& out = order_views_;
  out.clear();
  for (JobId j : ids) {
    auto pending = std::lower_bound(pending_index_.begin(), pending_index_.end(),
                                    std::pair<JobId, std::size_t>(j, 0));
    if (j == preemptor.id)
      out.push_back(&preemptor);
    else if (pending != pending_index_.end() && pending->first == j)
      out.push_back(&pending_views_[pending->second]);
    else
      out.push_back(&victim_view(j));
  }
  return out;
}

JobSolver::Probe JobSolver::solve_scenario(const Scenario& sc, std::vector<NodeId>& feasible) {
  Probe result;
  std::vector<TaskId> all_victims = sc.recorded_tasks;
  all_victims.insert(all_victims.end(), sc.potential.begin(), sc.potential.end());
  if (all_victims.empty()) return result;
  // A victim whose node is not in the snapshot (spec.nodeName names no node) cannot be evicted:
  // KAI's Statement.Evict fails, EvictAllPreemptees stops and the solver discards the scenario
  // (actions/common/solvers/by_pod_solver.go solve).
  for (TaskId t : all_victims) {
    if (!ssn_.state.tasks[t].node.valid()) return result;
  }
  auto stmt = std::make_unique<Statement>(ssn_);
  // The victims' evictions, the pending pods' placements, each maybe undone when discarded.
  stmt->reserve(2 * (all_victims.size() + sc.pending.size()));
  const JobId beneficiary = sc.preemptor.id;
  // Every entry is its own copy of the pod (recorded victims are clones from an earlier probe),
  // each with the status the pod had as the scenario began.
  for (std::size_t e = 0; e < all_victims.size(); ++e) {
    const TaskId t = all_victims[e];
    stmt->declare_copy(t, static_cast<int>(e) + 1, ssn_.state.tasks[t].status);
  }
  // The probe's nodes first, then the victims' own this scenario adds: node_orders_ keeps orders
  // of the first.
  if (node_orders_ != nullptr) node_orders_->at_base(feasible);
  for (std::size_t e = 0; e < all_victims.size(); ++e) {
    stmt->evict(all_victims[e], ssn_.action, beneficiary, static_cast<int>(e) + 1);
  }
  std::vector<NodeId> added;
  for (TaskId t : all_victims) {
    const NodeId n = ssn_.state.tasks[t].node;
    if (n.valid() && !in_feasible_[n.index()]) {
      in_feasible_[n.index()] = 1;
      feasible.push_back(n);
      added.push_back(n);
    }
  }

  // GetJobsToAllocate + TryToVirtuallyAllocatePreemptorAndGetVictims: victim jobs and the
  // partial preemptor get one pipeline-only AllocateJob each, in job-queue order.
  std::vector<JobId>& victim_jobs = victim_jobs_;
  victim_jobs.clear();
  for (TaskId t : all_victims) victim_jobs.push_back(ssn_.state.tasks[t].job);
  std::sort(victim_jobs.begin(), victim_jobs.end());
  victim_jobs.erase(std::unique(victim_jobs.begin(), victim_jobs.end()), victim_jobs.end());
  auto is_victim_job = [&](JobId j) {
    return std::binary_search(victim_jobs.begin(), victim_jobs.end(), j);
  };
  auto fail = [&] {
    for (NodeId n : added) {
      in_feasible_[n.index()] = 0;
      feasible.erase(std::find(feasible.begin(), feasible.end(), n));
    }
    stmt->discard();
    return std::move(result);
  };
  // A preemptor that cannot fit even alone fails in whatever order the queue below would place
  // the scenario's jobs (fit_alone.hpp): most scenarios of a search end so, and then that queue
  // of every pending job is not built. Debug builds build it anyway and check the failure.
  // Not when a victim's job has a fraction pod: placing it sets the pod's GPU groups outside the
  // statement, which outlive the scenario in KAI too (gpu_sharing's allocate), so it must run.
  auto without_fractions = [&](JobId j) {
    const std::vector<TaskId>& tasks = ssn_.state.jobs[j].tasks;
    return std::none_of(tasks.begin(), tasks.end(),
                        [&](TaskId t) { return ssn_.state.tasks[t].is_fraction_candidate(); });
  };
  const bool bound_applies = !alone_tasks_.empty() && !is_victim_job(sc.preemptor.id) &&
                             std::all_of(victim_jobs.begin(), victim_jobs.end(), without_fractions);
  auto cannot_fit = [&] {
    return bound_applies &&
           !may_fit_alone(ssn_, sc.preemptor.id, alone_tasks_, feasible, &in_feasible_);
  };
  bool hopeless = cannot_fit();
#ifdef NDEBUG
  if (hopeless) return fail();
#endif
  if (order_queue_)
    order_queue_->reset();
  else
    order_queue_ = std::make_unique<JobQueue>(ssn_, false, true);
  JobQueue& order = *order_queue_;
  // Only the victims and the preemptor are allocated ("relevant"): once they are all out, the
  // rest of the queue would only be popped and skipped.
  auto is_relevant = [&](JobId j) { return j == sc.preemptor.id || is_victim_job(j); };
  std::vector<const JobView*>& waiting = relevant_views_;  // relevant and pushed, not popped yet
  waiting.clear();
  auto note_waiting = [&](const JobView* view) {
    const QueueId q = ssn_.state.jobs[view->id].queue;
    if (q.valid() && ssn_.state.queue_tree.is_leaf(q)) waiting.push_back(view);
  };
  // The pending jobs every scenario of the solve queues go in as the queue's batch, unless a
  // victim's job is one of them (its pods then differ from the batch's).
  const bool batched = order.batchable() && std::none_of(victim_jobs.begin(), victim_jobs.end(),
                                                         [&](JobId j) { return is_pending(j); });
  if (batched) {
    if (!batch_set_) {
      // The keys jobs_to_allocate's loop below would take now: every pending job but the
      // preemptor is queued without being placed.
      for (std::size_t p = 0; p < pending_views_.size(); ++p) {
        if (pending_views_[p].id != sc.preemptor.id) take_pending_keys(p);
      }
      order.set_batch(pending_views_, pending_keys_, sc.preemptor.id);
      batch_set_ = true;
      batch_skip_ = sc.preemptor.id;
    }
    SIM_ASSERT(batch_skip_ == sc.preemptor.id);
    const auto& own = own_jobs(sc.preemptor, victim_jobs);
    for (const auto& [before, view] : own) note_waiting(view);
    order.push_batch(own);
  } else {
    const JobView* const pending_begin = pending_views_.data();
    const JobView* const pending_end = pending_begin + pending_views_.size();
    for (const JobView* view : jobs_to_allocate(sc.preemptor, victim_jobs)) {
      const bool relevant = is_relevant(view->id);
      if (!relevant && order.keys_at_push() && view >= pending_begin && view < pending_end) {
        // A job this scenario only queues has the pods the solve found: its keys of last time.
        const auto p = static_cast<std::size_t>(view - pending_begin);
        take_pending_keys(p);
        order.push_borrowed(*view, pending_keys_[p]);
      } else {
        order.push_borrowed(*view);
      }
      if (relevant) note_waiting(view);
    }
  }
#ifndef NDEBUG
  // The proof of the batch: a queue of the same jobs pushed one by one hands out the same jobs.
  JobQueue shadow(ssn_, false, true);
  for (const JobView* view : jobs_to_allocate(sc.preemptor, victim_jobs))
    shadow.push_borrowed(*view);
#endif
  auto pop = [&]() -> const JobView* {
    const JobView* job = order.pop_view();
#ifndef NDEBUG
    SIM_ASSERT(job == shadow.pop_view());
#endif
    return job;
  };
  std::size_t relevant = victim_jobs.size() + (is_victim_job(sc.preemptor.id) ? 0 : 1);
  bool preemptor_placed = false;
  bool preemptor_failed = false;
  // Allocates one relevant job; false once the preemptor fails, which ends the scenario.
  auto place = [&](const JobView& job) {
    if (job.id == sc.preemptor.id) {
      if (!allocate_job(ssn_, *stmt, feasible, job, true, nullptr, &in_feasible_, node_orders_)) {
        preemptor_failed = true;
        return false;
      }
      preemptor_placed = true;
    } else {
      // A victim's job placed first may take the room the preemptor needed: then the jobs
      // popped until the preemptor's turn change nothing.
      if (allocate_job(ssn_, *stmt, feasible, job, true, nullptr, &in_feasible_, node_orders_) &&
          !preemptor_placed && !hopeless && cannot_fit()) {
        hopeless = true;
#ifdef NDEBUG
        return false;
#endif
      }
    }
    return true;
  };
  // With unique job names the jobs of one leaf queue come out in job order whatever the other
  // queues do, so once the relevant jobs left all wait in one leaf, they are taken in that order
  // without popping the queues of the others (about 150 pops per scenario at 1,000 nodes, 8 of
  // them relevant).
  const bool total_job_order = !ssn_.job_name_ranks().empty();
  auto one_leaf_left = [&] {
    if (!total_job_order || waiting.empty()) return false;
    const QueueId q = ssn_.state.jobs[waiting.front()->id].queue;
    for (const JobView* v : waiting) {
      if (ssn_.state.jobs[v->id].queue != q) return false;
    }
    return true;
  };
  bool single_leaf = one_leaf_left();  // asked again only when a relevant job leaves `waiting`
  while (relevant > 0 && !order.empty()) {
    if (single_leaf) {
      std::sort(waiting.begin(), waiting.end(),
                [&](const JobView* a, const JobView* b) { return ssn_.job_before(*a, *b); });
#ifndef NDEBUG
      // The proof: the queue hands out those jobs in that order (popped before any is placed,
      // as the queue compares the keys its jobs had when pushed).
      std::size_t next = 0;
      while (next < waiting.size() && !order.empty()) {
        const JobView* job = pop();
        if (job != nullptr && is_relevant(job->id)) SIM_ASSERT(job == waiting[next++]);
      }
      SIM_ASSERT(next == waiting.size());
#endif
      for (const JobView* job : waiting) {
        if (!place(*job)) break;
      }
      break;
    }
    const JobView* job = pop();
    if (job == nullptr) break;
    if (!is_relevant(job->id)) continue;
    --relevant;
    waiting.erase(std::find(waiting.begin(), waiting.end(), job));
    single_leaf = one_leaf_left();
    if (!place(*job)) break;
  }
  SIM_ASSERT(!hopeless || !preemptor_placed || preemptor_failed);
  if (preemptor_placed && !preemptor_failed) {
    std::vector<TaskId> evicted, moved;
    for (std::size_t e = 0; e < all_victims.size(); ++e) {
      const TaskId t = all_victims[e];
      const model::TaskStatus s = stmt->copy_status(t, static_cast<int>(e) + 1);
      if (s == model::TaskStatus::RELEASING)
        evicted.push_back(t);
      else if (s == model::TaskStatus::PIPELINED)
        moved.push_back(t);
    }
    if (!validator_ || validator_(sc)) {
      result.solved = true;
      result.victim_tasks = evicted;
      if (ssn_.config.allow_consolidating_reclaim) {
        result.victim_tasks.insert(result.victim_tasks.end(), moved.begin(), moved.end());
      }
      // Victim job representatives: the slices the victims came from.
      std::set<std::uint32_t> taken;
      for (TaskId t : result.victim_tasks) {
        const JobId j = ssn_.state.tasks[t].job;
        const std::uint32_t s = sc.slice_of(j, t);
        if (s == VictimSlice::kNone || !taken.insert(s).second) continue;
        const std::span<const TaskId> pods = sc.pods(sc.slices[s]);
        result.victim_jobs.push_back(
            JobView{j, {pods.begin(), pods.end()}, ssn_.state.jobs[j].groups, {}, {}});
      }
      result.statement = std::move(stmt);
      return result;
    }
    // The validator said no: KAI returns before feasibleNodesRollback, so the victims' nodes stay
    // feasible for the probe's later scenarios (by_pod_solver.go solve, handleScenarioSolution).
    stmt->discard();
    return result;
  }
  return fail();
}

JobSolver::Probe JobSolver::probe(const JobView& job, const std::vector<TaskId>& to_allocate,
                                  std::size_t k, int generator,
                                  const std::vector<TaskId>& recorded_tasks,
                                  const std::vector<JobView>& recorded_jobs, VictimOrder& victims) {
  // getPartialJobRepresentative: the job's active pods plus the first k pending ones, with the
  // minimum lowered to what the clone holds.
  std::vector<TaskId> held;
  for (TaskId t : job.tasks) {
    if (model::is_active_allocated(ssn_.state.tasks[t].status)) held.push_back(t);
  }
  held.insert(held.end(), to_allocate.begin(),
              to_allocate.begin() + static_cast<std::ptrdiff_t>(k));
  const JobView partial = partial_view(ssn_, job.id, std::move(held));
  // Its scenarios copy the view and order its pods again and again: memos made now are shared
  // by every copy.
  partial.order_memo = std::make_shared<TaskOrderMemo>();
  tasks_to_allocate_quantities(ssn_, partial);

  std::vector<NodeId> feasible = feasible_;
  in_feasible_.assign(ssn_.state.nodes.size(), 0);
  for (NodeId n : feasible) in_feasible_[n.index()] = 1;
  for (TaskId t : recorded_tasks) {
    const NodeId n = ssn_.state.tasks[t].node;
    if (n.valid() && !in_feasible_[n.index()]) {
      in_feasible_[n.index()] = 1;
      feasible.push_back(n);
    }
  }
  alone_tasks_ = alike_pending_tasks(ssn_, partial);
  ScenarioBuilder builder(ssn_, partial, recorded_jobs, victims.cursor(), feasible);
  if (generator == kNodeLocalGreedy) {
    bool first = true;
    for (;;) {
      Scenario* outer = builder.accumulated(!first);
      first = false;
      if (outer == nullptr) break;
      for (auto& sc : node_local_scenarios(ssn_, *outer)) {
        Probe p = solve_scenario(*sc, feasible);
        if (p.solved) return p;
      }
    }
  } else {
    bool first = true;
    for (;;) {
      std::unique_ptr<Scenario> sc = builder.next_for_gang(!first);
      first = false;
      if (!sc) break;
      Probe p = solve_scenario(*sc, feasible);
      if (p.solved) return p;
    }
  }
  return Probe{};
}

SolveResult JobSolver::solve(const JobView& job) {
  SolveResult out;
  const std::int64_t original_active = active_used_count(ssn_, job);
  const std::vector<TaskId> to_allocate = tasks_to_allocate(ssn_, job, false);
  const std::size_t n = to_allocate.size();
  if (n == 0) return out;
  pending_views_.clear();
  pending_index_.clear();
  for (JobId j : ssn_.jobs_by_name()) {
    if (!job_has_pending_pod(ssn_, j)) continue;
    pending_index_.emplace_back(j, pending_views_.size());
    pending_views_.push_back(full_view(ssn_, j));
  }
  std::sort(pending_index_.begin(), pending_index_.end());
  pending_keys_.resize(pending_views_.size());
  pending_keys_taken_.assign(pending_views_.size(), 0);
  batch_set_ = false;
  // Kept while this solve runs: the session's node change log is on meanwhile.
  SearchNodeOrders node_orders(ssn_);
  node_orders_ = &node_orders;
  struct Forget {
    SearchNodeOrders*& orders;
    ~Forget() { orders = nullptr; }
  } forget{node_orders_};
  VictimOrder victims(victims_);
  for (int generator : {kNodeLocalGreedy, kMultiNodeGang}) {
    std::vector<TaskId> recorded_tasks;
    std::vector<JobView> recorded_jobs;
    // Largest solvable k: double until a failure, then binary search; each solved probe's
    // victims are forced into the later probes.
    auto try_k = [&](std::size_t k) {
      Probe p = probe(job, to_allocate, k, generator, recorded_tasks, recorded_jobs, victims);
      if (!p.solved) return false;
      recorded_tasks = p.victim_tasks;
      recorded_jobs = p.victim_jobs;
      p.statement->discard();
      return true;
    };
    std::size_t lo = 0, hi = 0, k = 1;
    for (;;) {
      if (!try_k(k)) {
        hi = k;
        break;
      }
      lo = k;
      if (k == n) break;
      k = std::min(k * 2, n);
    }
    if (lo != n) {
      while (hi - lo > 1) {
        const std::size_t mid = (lo + hi) / 2;
        if (try_k(mid))
          lo = mid;
        else
          hi = mid;
      }
    }
    if (lo == 0) continue;
    Probe final_probe =
        probe(job, to_allocate, n, generator, recorded_tasks, recorded_jobs, victims);
    if (final_probe.solved) {
      out.solved = is_gang_satisfied(ssn_, job) && active_used_count(ssn_, job) > original_active;
      out.victims = final_probe.victim_tasks;
      // When KAI reports failure here it neither commits nor discards the statement: its virtual
      // operations stay in the session for the rest of the cycle (kai-scheduling.md 10.23).
      if (out.solved)
        out.statement = std::move(final_probe.statement);
      else
        final_probe.statement.release();
      return out;
    }
  }
  return out;
}

}  // namespace sim::sched
