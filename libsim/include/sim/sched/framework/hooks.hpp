#pragma once
// The points where plugins extend a session: KAI framework/session.go's function lists, which
// each plugin fills in OnSessionOpen (session_plugins.go Add*Fn). Each list runs in plugin order;
// how a list's answers combine follows the Session method KAI calls it through (noted per hook).

#include <algorithm>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/model/cluster.hpp"
#include "sim/sched/framework/wait_reason.hpp"

namespace sim::sched {

class Session;
struct JobView;
struct Scenario;

/// Why a job or task cannot be placed within a capacity; nullopt when it can. The reason names
/// the queue, the resource and the numbers, typed and in its message.
using CapacityVerdict = std::optional<WaitReason>;

/// The least and most of a scorer's range_value() over the nodes offered to a task, folded as
/// nodeplacement's setBinpackPreOrder folds them (nothing offered: the start values).
struct ScoreRange {
  double least = std::numeric_limits<double>::max();
  double most = 0;
  void add(double value) {
    least = std::min(least, value);
    most = std::max(most, value);
  }
  bool operator==(const ScoreRange&) const = default;
};

/// A plugin's NodePreOrderFn and NodeOrderFn over all the nodes offered to one task at once (one
/// call per task and plugin, not per node, so the per-node work stays inlined in the plugin).
class NodeScorer {
 public:
  virtual ~NodeScorer() = default;
  /// Adds the plugin's score of each node in `nodes` to `scores` (same positions); sets
  /// `dropped[i]` for a node it cannot score (KAI's scoreNodes then leaves the node out).
  /// `offered` is every node offered to the task, of which `nodes` are the ones scored (all, or
  /// those the task fits): a score that compares a node with the others compares over `offered`.
  virtual void score(Session& ssn, TaskId task, const std::vector<NodeId>& offered,
                     const std::vector<NodeId>& nodes, std::vector<double>& scores,
                     std::vector<char>& dropped) = 0;

  /// Node by node scoring, which lets the kept orders of alike pods (alike_nodes.hpp) score again
  /// only the nodes that changed. `node_local`: this task's score of a node is local_score() of
  /// that node alone, given the least and most range_value() over the offered nodes (binpack's
  /// range of free resources); such a scorer never drops a node. Others score with score() only.
  virtual bool node_local(const Session& /*ssn*/, const model::Task& /*task*/) const {
    return false;
  }
  /// The node's value in the range its score compares with, or nullopt for none.
  virtual std::optional<double> range_value(const Session& /*ssn*/, const model::Task& /*task*/,
                                            const model::Node& /*node*/) const {
    return std::nullopt;
  }
  /// The score node_local() promises (0 when the plugin gives the node nothing).
  virtual double local_score(const Session& /*ssn*/, const model::Task& /*task*/,
                             const model::Node& /*node*/, const ScoreRange& /*range*/) const {
    return 0;
  }
};

/// A subgroup as SubsetNodesFn sees it: its name, its topology constraint, and the PodSets under
/// it that hold tasks to place.
struct SubgroupScope {
  const std::string& name;
  const model::TopologyConstraint& constraint;
  const std::vector<int>& pod_sets;
};

/// One side of a queue comparison's first steps (SessionHooks::queue_order_key): KAI's
/// GetQueueOrderResult up to the share of its allocation with the head job's next pods.
struct QueueOrderKey {
  bool over = false;      ///< over its fair share: last
  bool starved = false;   ///< within deserved with the head job: first
  int priority = 0;       ///< higher first
  bool violates = false;  ///< asks for a resource the queue may not have: last
  double share = 0;       ///< dominant share with the head job: lower first
  double plain = 0;       ///< dominant share of the allocation: lower first
  /// Negative: `l` first; positive: `r` first; 0: equal so far (queue_order_key_tie decides).
  static int compare(const QueueOrderKey& l, const QueueOrderKey& r) {
    if (l.over != r.over) return l.over ? 1 : -1;
    if (l.starved != r.starved) return l.starved ? -1 : 1;
    if (l.priority != r.priority) return l.priority > r.priority ? -1 : 1;
    if (l.violates != r.violates) return l.violates ? 1 : -1;
    if (l.share < r.share) return -1;
    if (l.share > r.share) return 1;
    if (l.plain < r.plain) return -1;
    if (l.plain > r.plain) return 1;
    return 0;
  }
};

/// What the invariant checker knows of the session's opening (invariants.hpp).
struct InvariantContext {
  const std::vector<bool>& pipelined_at_open;  ///< per task: already Pipelined at session open
};

struct SessionHooks {
  // --- events (framework/event.go): after a task's placement is recorded or undone ---
  std::vector<std::function<void(Session&, const model::Task&)>> on_allocate, on_deallocate;

  // --- orders (first list entry with an opinion decides; else the framework's fallback) ---
  /// JobOrderFn as a sort key of a job (given its view): the lower key first, equal keys no
  /// opinion. KAI's job orders (priority, elastic) each compare one number of either job, so a
  /// queue can take the keys once per job instead of at every heap comparison (JobQueue).
  std::vector<std::int64_t (*)(const Session&, const model::Job&, const JobView&)> job_order;
  /// TaskOrderFn: negative = `a` first, positive = `b` first, 0 = no opinion.
  std::vector<int (*)(const model::Task&, const model::Task&)> task_order;
  /// QueueOrderFn, as task_order: the best pending jobs of each side (null in victim mode) and the
  /// jobs already taken from each side as victims.
  std::vector<
      std::function<int(const Session&, QueueId, QueueId, const JobView*, const JobView*,
                        const std::vector<const JobView*>&, const std::vector<const JobView*>&)>>
      queue_order;
  /// The first steps of queue_order's first entry as a key of one side, for comparisons with no
  /// victims: fields compared in order (QueueOrderKey::compare), the first difference decides as
  /// that entry would; equal keys leave it to queue_order_key_tie. It reads the queue's allocations
  /// (changed only by on_allocate / on_deallocate) and the job's pods, so a queue may keep a key
  /// while neither changes (JobQueue). Empty when no plugin gives one.
  std::function<QueueOrderKey(const Session&, QueueId, const JobView*)> queue_order_key;
  /// The rest of that entry's steps, for two queues whose keys are equal: as queue_order (never
  /// 0 when that entry always decides). Set with queue_order_key.
  std::function<int(const Session&, QueueId, QueueId)> queue_order_key_tie;

  // --- predicates ---
  /// PrePredicateFn: why the task cannot be placed anywhere now, or "" (first failure wins).
  std::vector<std::function<std::string(Session&, const model::Task&)>> pre_predicates;
  /// PredicateFn: false when the task may not go to the node; `why` (when given) gets the reason
  /// (first failure wins).
  std::vector<std::function<bool(Session&, TaskId, NodeId, std::string* why)>> predicates;
  /// GetNumaPlacement: whether the kubelet would admit the task on the node, and the zones it
  /// would take (one plugin; none: admitted, no zones).
  std::function<bool(const Session&, const model::Task&, const model::Node&,
                     std::vector<model::ZoneAmounts>*)>
      numa_placement;

  // --- scores ---
  /// NodePreOrderFn + NodeOrderFn (scores summed in plugin order); the session owns the plugins
  /// these belong to.
  std::vector<NodeScorer*> node_scorers;
  /// GpuOrderFn: a candidate GPU's score (summed); nullopt = an error, the GPU is left out.
  std::vector<std::function<std::optional<double>(const model::Node&, const model::Task&,
                                                  const std::string& gpu)>>
      gpu_order;

  // --- capacity (the first plugin's answer; none: within capacity) ---
  std::function<CapacityVerdict(const Session&, JobId, const std::vector<TaskId>&)>
      job_over_capacity;
  std::function<CapacityVerdict(const Session&, JobId, const std::vector<TaskId>&)>
      non_preemptible_over_quota;
  std::function<CapacityVerdict(const Session&, TaskId, NodeId)> task_on_node_over_capacity;

  // --- victims (reclaim, preempt) ---
  /// CanReclaimResources: the first plugin's answer; none: false.
  std::function<bool(const Session&, const JobView&)> can_reclaim_resources;
  /// OnJobSolutionStart: before the victim search of each job.
  std::vector<std::function<void(const Session&)>> on_job_solution_start;
  /// VictimFilterFn of reclaim: may `victim` lose pods to the reclaimer (all must agree).
  /// `reclaimer_request` is the reclaimer's next pods' request, worked out once per victim queue.
  std::vector<std::function<bool(const Session&, const JobView& reclaimer,
                                 const ResourceVec& reclaimer_request, JobId victim)>>
      reclaim_victim_filters;
  /// A filter of reclaim_victim_filters that reads the victim job only for its queue, asked of
  /// the queue: false when it refuses every job of `victim_queue`. Not KAI's; a reclaimer's
  /// victim queue then skips those jobs instead of asking each.
  std::vector<std::function<bool(const Session&, const JobView& reclaimer,
                                 const ResourceVec& reclaimer_request, QueueId victim_queue)>>
      reclaim_victim_queue_filters;
  /// VictimFilterFn of preempt: may `victim` lose pods to `preemptor` (all must agree).
  std::vector<std::function<bool(const Session&, const JobView& preemptor, JobId victim)>>
      preempt_victim_filters;
  /// ScenarioValidatorFn of reclaim and of preempt: is this victim set acceptable (all must agree).
  std::vector<std::function<bool(const Session&, const Scenario&)>> reclaim_scenario_validators,
      preempt_scenario_validators;

  // --- topology ---
  /// SubsetNodesFn: splits each node set into the sets to try in order; `why` gets a reason when a
  /// split leaves none; nullopt on a configuration error, which fails the allocation.
  std::vector<std::function<std::optional<std::vector<std::vector<NodeId>>>(
      const Session&, JobId, const SubgroupScope&, const std::vector<TaskId>&,
      const std::vector<NodeId>&, std::string& why)>>
      subset_nodes;
  /// PreJobAllocationFn: before AllocateJob places a job.
  std::vector<std::function<void(const Session&, JobId)>> pre_job_allocation;

  // --- checks (Debug and sanitizer builds) ---
  /// What of the plugin's own books does not hold now, one line each.
  std::vector<
      std::function<void(const Session&, const InvariantContext&, std::vector<std::string>&)>>
      invariants;
};

}  // namespace sim::sched
