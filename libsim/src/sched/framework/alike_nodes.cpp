#include "sim/sched/framework/alike_nodes.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include "sim/core/assert.hpp"
#include "sim/core/lru_slot.hpp"
#include "sim/sched/framework/node_fit.hpp"

namespace sim::sched {
namespace {

// Orders kept at once: pending pods of a few shapes take turns in the job queue.
constexpr std::size_t kKeptOrders = 8;
constexpr std::uint32_t kNotOffered = 0xFFFFFFFFu;

// Whether the pod's fit and scores read nothing of it but its requests: a whole-GPU or CPU
// request with no MIG, DRA or scalar resources and no nominated node, under scorers that score
// node by node.
bool kept_for(const Session& ssn, const model::Task& task) {
  if (!task.is_regular_gpu_request() || task.gpu.dra != 0 || !task.gpu.mig.empty() ||
      !task.scalars.empty() || !task.nominated_node.empty())
    return false;
  return std::all_of(ssn.hooks.node_scorers.begin(), ssn.hooks.node_scorers.end(),
                     [&](const NodeScorer* s) { return s->node_local(ssn, task); });
}

}  // namespace

struct AlikeNodeOrders::Order {
  // One fitting node's place in the order: best score first, ties by node name, as NodeOrder.
  struct Entry {
    double score;
    std::uint32_t rank;   // the node's place in name order (unique)
    std::uint32_t place;  // in `offered`
    bool operator<(const Entry& o) const {
      if (score != o.score) return score > o.score;
      return rank < o.rank;
    }
  };
  // One scorer's range: each offered node's value and their multiset, and the range the kept
  // scores were worked out with.
  struct Range {
    std::vector<std::optional<double>> value;  // by place
    std::multiset<double> values;
    ScoreRange used;
    ScoreRange now() const {
      ScoreRange r;
      if (!values.empty()) {
        r.add(*values.begin());
        r.add(*values.rbegin());
      }
      return r;
    }
  };

  TaskId sample;  // a pod with these requests (any alike pod reads the same)
  std::vector<NodeId> offered;
  std::uint64_t generation = 0;
  std::size_t seen = 0;  // node changes read
  std::uint64_t last_use = 0;
  std::vector<std::uint32_t> place;  // by node index
  std::vector<double> score;         // by place, for fitting nodes
  std::vector<char> fits;            // by place
  std::vector<char> dirty;           // by place
  std::vector<std::uint32_t> dirty_places;
  std::vector<Range> ranges;  // by scorer
  std::set<Entry> order;      // the fitting nodes
  // The last refusal of a pod of this order in one queue, for a preemptible job or not (the
  // capacity check reads both), and the node change log as it was then.
  struct KeptRefusal {
    QueueId queue;
    bool preemptible = false;
    std::uint64_t generation = 0;
    std::size_t changes = 0;
    Refusal refusal;
  };
  std::vector<KeptRefusal> refusals;  // one per queue and preemptibility at most

  double score_of(const Session& ssn, const model::Task& task, const model::Node& node) const {
    // Summed in plugin order from 0, as ordered_nodes sums the scorers' additions.
    double total = 0;
    for (std::size_t s = 0; s < ranges.size(); ++s)
      total += ssn.hooks.node_scorers[s]->local_score(ssn, task, node, ranges[s].used);
    return total;
  }

  void judge(const Session& ssn, const model::Task& task, std::uint32_t p,
             const std::vector<std::uint32_t>& ranks) {
    const model::Node& node = ssn.state.nodes[offered[p]];
    fits[p] = node.task_fits(task, node.non_allocated(), true) ? 1 : 0;
    if (!fits[p]) return;
    score[p] = score_of(ssn, task, node);
    order.insert({score[p], ranks[offered[p].index()], p});
  }

  void take_range_value(const Session& ssn, const model::Task& task, std::size_t s,
                        std::uint32_t p) {
    Range& r = ranges[s];
    const std::optional<double> v =
        ssn.hooks.node_scorers[s]->range_value(ssn, task, ssn.state.nodes[offered[p]]);
    if (v == r.value[p]) return;
    if (r.value[p]) r.values.erase(r.values.find(*r.value[p]));
    if (v) r.values.insert(*v);
    r.value[p] = v;
  }

  void rebuild(Session& ssn, const model::Task& task) {
    const auto n = static_cast<std::uint32_t>(offered.size());
    place.assign(ssn.state.nodes.size(), kNotOffered);
    for (std::uint32_t p = 0; p < n; ++p) place[offered[p].index()] = p;
    ranges.assign(ssn.hooks.node_scorers.size(), Range{});
    for (std::size_t s = 0; s < ranges.size(); ++s) {
      ranges[s].value.assign(n, std::nullopt);
      for (std::uint32_t p = 0; p < n; ++p) take_range_value(ssn, task, s, p);
    }
    score.assign(n, 0);
    fits.assign(n, 0);
    dirty.assign(n, 0);
    dirty_places.clear();
    rejudge_all(ssn, task);
    generation = ssn.node_change_generation();
    seen = ssn.node_changes().size();
  }

  void rejudge_all(Session& ssn, const model::Task& task) {
    for (Range& r : ranges) r.used = r.now();
    order.clear();
    const std::vector<std::uint32_t>& ranks = ssn.node_name_ranks();
    for (std::uint32_t p = 0; p < offered.size(); ++p) judge(ssn, task, p, ranks);
  }

  // Reads the node changes since the last use and judges again what they touched: the changed
  // nodes, or every node when a range moved (binpack's scores are relative to it).
  void bring_up_to_date(Session& ssn, const model::Task& task) {
    if (generation != ssn.node_change_generation()) {
      rebuild(ssn, task);
      return;
    }
    const std::vector<NodeId>& changes = ssn.node_changes();
    for (std::size_t i = seen; i < changes.size(); ++i) {
      const std::uint32_t p = place[changes[i].index()];
      if (p == kNotOffered || dirty[p]) continue;
      dirty[p] = 1;
      dirty_places.push_back(p);
    }
    seen = changes.size();
    if (dirty_places.empty()) return;
    bool moved = false;
    for (std::size_t s = 0; s < ranges.size(); ++s) {
      for (std::uint32_t p : dirty_places) take_range_value(ssn, task, s, p);
      moved = moved || !(ranges[s].now() == ranges[s].used);
    }
    if (moved) {
      rejudge_all(ssn, task);
    } else {
      const std::vector<std::uint32_t>& ranks = ssn.node_name_ranks();
      for (std::uint32_t p : dirty_places) {
        if (fits[p]) order.erase({score[p], ranks[offered[p].index()], p});
        judge(ssn, task, p, ranks);
      }
    }
    for (std::uint32_t p : dirty_places) dirty[p] = 0;
    dirty_places.clear();
  }
};

AlikeNodeOrders::AlikeNodeOrders(Session& ssn) : ssn_(ssn) { ssn_.log_node_changes(true); }
AlikeNodeOrders::~AlikeNodeOrders() { ssn_.log_node_changes(false); }

AlikeNodeOrders::Order* AlikeNodeOrders::kept_order(const model::Task& task,
                                                    const std::vector<NodeId>& offered) {
  for (const auto& o : orders_) {
    if (o->offered == offered && ssn_.state.tasks[o->sample].same_requests(task)) return o.get();
  }
  return nullptr;
}

AlikeNodeOrders::Order* AlikeNodeOrders::order_for(const model::Task& task,
                                                   const std::vector<NodeId>& offered) {
  ++uses_;
  if (Order* o = kept_order(task, offered)) {
    o->last_use = uses_;
    o->sample = task.id;
    o->bring_up_to_date(ssn_, task);
    return o;
  }
  auto seen = std::find_if(seen_once_.begin(), seen_once_.end(), [&](const auto& s) {
    return s.second == offered && ssn_.state.tasks[s.first].same_requests(task);
  });
  if (seen == seen_once_.end()) {
    if (seen_once_.size() == kKeptOrders) seen_once_.erase(seen_once_.begin());
    seen_once_.emplace_back(task.id, offered);
    return nullptr;
  }
  seen_once_.erase(seen);
  // A new order, in the place of the one least recently used once there are enough.
  std::unique_ptr<Order>& slot = lru_slot(orders_, kKeptOrders);
  slot = std::make_unique<Order>();
  Order& o = *slot;
  o.sample = task.id;
  o.offered = offered;
  o.last_use = uses_;
  o.rebuild(ssn_, task);
  return &o;
}

AlikeNodeOrders::Outcome AlikeNodeOrders::first_fitting(TaskId task_id,
                                                        const std::vector<NodeId>& offered,
                                                        NodeId& node) {
  Session& ssn = ssn_;
  const model::Task& task = ssn.state.tasks[task_id];
  if (!kept_for(ssn, task)) return Outcome::kNotKept;
  const Order* kept = order_for(task, offered);
  if (kept == nullptr) return Outcome::kNotKept;
  const Order& order = *kept;
#ifndef NDEBUG
  // The proof: the kept order is the one ordered_nodes works out now.
  std::vector<NodeId> in_order;
  for (const Order::Entry& e : order.order) in_order.push_back(offered[e.place]);
  SIM_ASSERT(in_order == ordered_nodes(ssn, task_id, offered, true).rest());
#endif
  for (const Order::Entry& e : order.order) {
    if (fitting_node(ssn, task_id, offered[e.place])) {
      node = offered[e.place];
      return Outcome::kFound;
    }
  }
  return Outcome::kNoneFits;
}

namespace {

// Whether every pod alike to `task` in its queue is refused for the same reasons while no node
// changes: it has no node rules and no DRA claims, nobody's pod anti-affinity can name it, and
// no NUMA alignment reads its QoS. The predicates then read its requests, its queue and the nodes
// (the capacity check reads the queue, whose charges come with a change of a node).
bool refusal_kept_for(const Session& ssn, const model::Task& task) {
  return task.placement->empty() && task.devices->claims.empty() && !ssn.any_pod_anti_affinity() &&
         !ssn.hooks.numa_placement;
}

}  // namespace

const AlikeNodeOrders::Refusal* AlikeNodeOrders::kept_refusal(TaskId task_id,
                                                              const std::vector<NodeId>& offered) {
  const Session& ssn = ssn_;
  const model::Task& task = ssn.state.tasks[task_id];
  if (!kept_for(ssn, task) || !refusal_kept_for(ssn, task)) return nullptr;
  const Order* order = kept_order(task, offered);
  if (order == nullptr) return nullptr;
  const model::Job& job = ssn.state.jobs[task.job];
  for (const Order::KeptRefusal& r : order->refusals) {
    if (r.queue == job.queue && r.preemptible == job.preemptible &&
        r.generation == ssn.node_change_generation() && r.changes == ssn.node_changes().size())
      return &r.refusal;
  }
  return nullptr;
}

void AlikeNodeOrders::keep_refusal(TaskId task_id, const std::vector<NodeId>& offered,
                                   Refusal refusal) {
  const Session& ssn = ssn_;
  const model::Task& task = ssn.state.tasks[task_id];
  if (!kept_for(ssn, task) || !refusal_kept_for(ssn, task)) return;
  Order* order = kept_order(task, offered);
  if (order == nullptr) return;
  const model::Job& job = ssn.state.jobs[task.job];
  auto same = std::find_if(order->refusals.begin(), order->refusals.end(), [&](const auto& r) {
    return r.queue == job.queue && r.preemptible == job.preemptible;
  });
  Order::KeptRefusal& kept = same != order->refusals.end() ? *same : order->refusals.emplace_back();
  kept.queue = job.queue;
  kept.preemptible = job.preemptible;
  kept.generation = ssn.node_change_generation();
  kept.changes = ssn.node_changes().size();
  kept.refusal = std::move(refusal);
}

}  // namespace sim::sched
