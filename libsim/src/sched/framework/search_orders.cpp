#include "sim/sched/framework/search_orders.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "sim/core/assert.hpp"
#include "sim/core/lru_slot.hpp"
#include "sim/sched/framework/node_fit.hpp"

namespace sim::sched {
namespace {

// Orders kept at once: a probe places a few shapes of pods, each with a few ranges. (32 kept
// orders were built half as often at 1,000 nodes, but ran 7% more instructions on the seed-3
// cluster, looking through more orders at each placement.)
constexpr std::size_t kKeptOrders = 8;

constexpr std::uint32_t kNotKept = 0xFFFFFFFFu;

// A CPU pod or a fraction whose fit and scores read nothing of it but its requests: no MIG, DRA
// or scalar resources, no nominated node, under scorers that score node by node. (A fraction's
// fit reads the node's shared GPUs, which change with the node.)
bool kept_for(const Session& ssn, const model::Task& task) {
  if (!task.is_cpu_only() && !task.is_fraction_candidate()) return false;
  if (task.gpu.dra != 0 || !task.gpu.mig.empty() || !task.scalars.empty() ||
      !task.nominated_node.empty())
    return false;
  return std::all_of(ssn.hooks.node_scorers.begin(), ssn.hooks.node_scorers.end(),
                     [&](const NodeScorer* s) { return s->node_local(ssn, task); });
}

// Whether `a` and `b` start with the same `count` nodes.
bool same_nodes(const std::vector<NodeId>& a, const std::vector<NodeId>& b, std::size_t count) {
  static_assert(std::is_trivially_copyable_v<NodeId> && sizeof(NodeId) == sizeof(std::uint32_t));
  return a.size() >= count && b.size() >= count &&
         (count == 0 || std::memcmp(a.data(), b.data(), count * sizeof(NodeId)) == 0);
}

}  // namespace

struct SearchNodeOrders::Sighting {
  TaskId task;
  std::uint64_t probe;  // the probe's nodes (SearchNodeOrders::probe_)
  std::vector<ScoreRange> ranges;
  int times = 0;
};

// One pod shape's order of the probe's nodes, its scores worked out with fixed scorer ranges
// (`used`). What the nodes were when it was last rebased is its base; a node changed since, whose
// fit, score or range values differ from the base, is dirty and judged beside the order. The
// scenarios' own nodes are kept after the probe's (places from `kept` on), judged as they are.
struct SearchNodeOrders::Order {
  using Entry = Walk::Entry;
  TaskId sample;              // a pod with these requests (any alike pod reads the same)
  std::uint64_t probe = 0;    // the probe's nodes (SearchNodeOrders::probe_)
  std::vector<NodeId> nodes;  // the probe's (`kept` of them), then scenarios' own
  std::size_t kept = 0;
  std::vector<ScoreRange> used;  // by scorer
  std::uint64_t generation = 0;
  std::size_t seen = 0;  // node changes read
  std::uint64_t last_use = 0;
  std::uint32_t reads = 0;
  std::vector<std::uint32_t> place;     // by node index: in `nodes`, or kNotKept
  std::vector<std::uint32_t> read_at;   // by place: the read that last judged it
  std::vector<std::size_t> changed_at;  // by kept place: its last change in the log, plus one
  // The base, by kept place (range values by place * scorers + scorer).
  std::vector<char> fits;
  std::vector<double> score;
  std::vector<std::optional<double>> value;
  std::vector<Entry> order;  // the base's fitting nodes, best first
  // By scorer: the base's range values with their places, ascending.
  std::vector<std::vector<std::pair<double, std::uint32_t>>> by_value;
  std::vector<char> dirty;  // by kept place
  std::vector<std::uint32_t> dirty_places;
  // The nodes as they are now, by place: for dirty places and the scenarios' own.
  std::vector<char> now_fits;
  std::vector<double> now_score;
  std::vector<std::optional<double>> now_value;

  std::size_t scorers() const { return used.size(); }

  // The node's fit, score and range values now.
  void judge(const Session& ssn, const model::Task& task, std::uint32_t p, char& fit, double& total,
             std::optional<double>* values) const {
    const model::Node& node = ssn.state.nodes[nodes[p]];
    for (std::size_t s = 0; s < scorers(); ++s)
      values[s] = ssn.hooks.node_scorers[s]->range_value(ssn, task, node);
    fit = node.task_fits(task, node.non_allocated(), true) ? 1 : 0;
    total = 0;
    // Summed in plugin order from 0, as ordered_nodes sums the scorers' additions.
    if (fit) {
      for (std::size_t s = 0; s < scorers(); ++s)
        total += ssn.hooks.node_scorers[s]->local_score(ssn, task, node, used[s]);
    }
  }
  void judge_now(const Session& ssn, const model::Task& task, std::uint32_t p) {
    judge(ssn, task, p, now_fits[p], now_score[p], &now_value[p * scorers()]);
  }

  Entry entry(const std::vector<std::uint32_t>& ranks, std::uint32_t p, double with_score) const {
    return {with_score, ranks[nodes[p].index()], nodes[p]};
  }

  // The probe's nodes judged afresh as the base; the scenarios' own dropped.
  void build(Session& ssn, const model::Task& task) {
    nodes.resize(kept);
    const auto n = static_cast<std::uint32_t>(kept);
    place.assign(ssn.state.nodes.size(), kNotKept);
    for (std::uint32_t p = 0; p < n; ++p) place[nodes[p].index()] = p;
    read_at.assign(n, 0);
    changed_at.assign(n, 0);
    reads = 0;
    fits.assign(n, 0);
    score.assign(n, 0);
    value.assign(scorers() * n, std::nullopt);
    order.clear();
    const std::vector<std::uint32_t>& ranks = ssn.node_name_ranks();
    for (std::uint32_t p = 0; p < n; ++p) {
      judge(ssn, task, p, fits[p], score[p], &value[p * scorers()]);
      if (fits[p]) order.push_back(entry(ranks, p, score[p]));
    }
    std::sort(order.begin(), order.end());
    by_value.assign(scorers(), {});
    for (std::size_t s = 0; s < scorers(); ++s) {
      for (std::uint32_t p = 0; p < n; ++p) {
        if (const auto& v = value[p * scorers() + s]) by_value[s].emplace_back(*v, p);
      }
      std::sort(by_value[s].begin(), by_value[s].end());
    }
    dirty.assign(n, 0);
    dirty_places.clear();
    now_fits.assign(n, 0);
    now_score.assign(n, 0);
    now_value.assign(scorers() * n, std::nullopt);
    generation = ssn.node_change_generation();
    seen = ssn.node_changes().size();
  }

  // The place of a scenario's own node, judged when first met.
  std::uint32_t own_place(const Session& ssn, const model::Task& task, NodeId node) {
    std::uint32_t& p = place[node.index()];
    if (p != kNotKept) return p;
    p = static_cast<std::uint32_t>(nodes.size());
    nodes.push_back(node);
    read_at.push_back(reads);
    now_fits.push_back(0);
    now_score.push_back(0);
    now_value.resize(now_value.size() + scorers());
    judge_now(ssn, task, p);
    return p;
  }

  // Judges the nodes changed since the last read; a probe's node back as it is in the base is
  // clean.
  void read_changes(Session& ssn, const model::Task& task) {
    if (generation != ssn.node_change_generation()) {
      build(ssn, task);
      return;
    }
    const std::vector<NodeId>& changes = ssn.node_changes();
    if (seen == changes.size()) return;
    ++reads;
    const std::size_t k = scorers();
    for (std::size_t i = seen; i < changes.size(); ++i) {
      const std::uint32_t p = place[changes[i].index()];
      if (p == kNotKept) continue;
      if (p < kept) changed_at[p] = i + 1;
      if (read_at[p] == reads) continue;
      read_at[p] = reads;
      judge_now(ssn, task, p);
      if (p >= kept) continue;
      bool same = now_fits[p] == fits[p] && (!fits[p] || now_score[p] == score[p]);
      for (std::size_t s = 0; same && s < k; ++s) same = now_value[p * k + s] == value[p * k + s];
      if (same && dirty[p]) {
        dirty[p] = 0;
        dirty_places.erase(std::find(dirty_places.begin(), dirty_places.end(), p));
      } else if (!same && !dirty[p]) {
        dirty[p] = 1;
        dirty_places.push_back(p);
      }
    }
    seen = changes.size();
  }

  // The dirty nodes last changed before the log's position `start` made the base as they are
  // now (read_changes judged them). At a scenario's start the probe's nodes are as every
  // scenario of the probe starts: most of what a scenario changes comes back when it is
  // discarded, and what does not is judged beside the order no more.
  void rebase(Session& ssn, std::size_t start) {
    const std::vector<std::uint32_t>& ranks = ssn.node_name_ranks();
    const std::size_t k = scorers();
    std::size_t left = 0;
    for (std::uint32_t p : dirty_places) {
      if (changed_at[p] > start) {
        dirty_places[left++] = p;
        continue;
      }
      if (fits[p]) {
        const Entry old = entry(ranks, p, score[p]);
        order.erase(std::lower_bound(order.begin(), order.end(), old));
      }
      if (now_fits[p]) {
        const Entry now = entry(ranks, p, now_score[p]);
        order.insert(std::upper_bound(order.begin(), order.end(), now), now);
      }
      for (std::size_t s = 0; s < k; ++s) {
        auto& values = by_value[s];
        if (const auto& v = value[p * k + s])
          values.erase(std::lower_bound(values.begin(), values.end(), std::pair(*v, p)));
        if (const auto& v = now_value[p * k + s]) {
          const std::pair now(*v, p);
          values.insert(std::upper_bound(values.begin(), values.end(), now), now);
        }
        value[p * k + s] = now_value[p * k + s];
      }
      fits[p] = now_fits[p];
      score[p] = now_score[p];
      dirty[p] = 0;
    }
    dirty_places.resize(left);
  }

  // The scorers' ranges over the probe's nodes and `own` places (the scenario's nodes) now.
  std::vector<ScoreRange> ranges_now(const std::vector<std::uint32_t>& own) const {
    std::vector<ScoreRange> now(scorers());
    const std::size_t k = scorers();
    for (std::size_t s = 0; s < k; ++s) {
      const auto& values = by_value[s];
      for (auto it = values.begin(); it != values.end(); ++it) {
        if (!dirty[it->second]) {
          now[s].add(it->first);
          break;
        }
      }
      for (auto it = values.rbegin(); it != values.rend(); ++it) {
        if (!dirty[it->second]) {
          now[s].add(it->first);
          break;
        }
      }
      for (std::uint32_t p : dirty_places) {
        if (const auto& v = now_value[p * k + s]) now[s].add(*v);
      }
      for (std::uint32_t p : own) {
        if (const auto& v = now_value[p * k + s]) now[s].add(*v);
      }
    }
    return now;
  }
};

// A probe's scenarios change the same few nodes back and forth: a longer log than the allocate
// action's (a quarter of a megabyte at least), so that the orders are built again less often
// when it is cleared.
SearchNodeOrders::SearchNodeOrders(Session& ssn, std::size_t fewest_probe_nodes)
    : ssn_(ssn), fewest_probe_nodes_(fewest_probe_nodes) {
  ssn_.log_node_changes(true, 64, std::size_t{1} << 16);
}
SearchNodeOrders::~SearchNodeOrders() { ssn_.log_node_changes(false); }

void SearchNodeOrders::at_base(const std::vector<NodeId>& probe_nodes) {
  base_generation_ = ssn_.node_change_generation();
  base_changes_ = ssn_.node_changes().size();
  // The probe's nodes named once per scenario, not compared at each placement: the last probe's,
  // an earlier one an order was kept for, or new.
  if (same_nodes(probe_nodes_, probe_nodes, probe_nodes.size()) &&
      probe_nodes_.size() == probe_nodes.size())
    return;
  probe_nodes_ = probe_nodes;
  for (const auto& o : orders_) {
    if (o->kept == probe_nodes.size() && same_nodes(o->nodes, probe_nodes, o->kept)) {
      probe_ = o->probe;
      return;
    }
  }
  probe_ = ++probes_;
}

SearchNodeOrders::Walk* SearchNodeOrders::walk(TaskId task_id, const std::vector<NodeId>& offered) {
  Session& ssn = ssn_;
  const model::Task& task = ssn.state.tasks[task_id];
  const std::size_t kept_first = probe_nodes_.size();
  if (kept_first == 0 || kept_first < fewest_probe_nodes_ || !kept_for(ssn, task)) return nullptr;
  SIM_ASSERT(same_nodes(offered, probe_nodes_, kept_first));
  ++uses_;
  // The scenario's own nodes' places in `o`.
  std::vector<std::uint32_t>& own = own_places_;
  auto own_places = [&](Order& o) {
    own.clear();
    for (std::size_t i = kept_first; i < offered.size(); ++i)
      own.push_back(o.own_place(ssn, task, offered[i]));
  };
  auto bring_up_to_date = [&](Order& o) {
    o.read_changes(ssn, task);
    if (o.generation == base_generation_) o.rebase(ssn, base_changes_);
  };
  // The ranges now, from the first order for these requests (any of them reads the same), then
  // the order kept for them, brought up to date.
  std::vector<ScoreRange> want;
  Order* found = nullptr;
  Order* first = nullptr;
  for (const auto& o : orders_) {
    if (o->probe != probe_ || !ssn.state.tasks[o->sample].same_requests(task)) continue;
    if (first == nullptr) {
      first = o.get();
      bring_up_to_date(*first);
      own_places(*first);
      want = first->ranges_now(own);
    }
    if (o->used == want) {
      found = o.get();
      break;
    }
  }
  if (found != nullptr && found != first) bring_up_to_date(*found);
  if (found == nullptr) {
    const auto kept_end = offered.begin() + static_cast<std::ptrdiff_t>(kept_first);
    // Kept from the kSightingsToKeep-th placement with these requests, nodes and ranges. With no
    // order for these requests yet, the ranges are worked out only when one is built (each
    // costs a pass over the nodes): the sightings count the requests alone.
    auto sighting = std::find_if(sightings_.begin(), sightings_.end(), [&](const Sighting& s) {
      return s.probe == probe_ && s.ranges == want && ssn.state.tasks[s.task].same_requests(task);
    });
    if (sighting == sightings_.end()) {
      if (sightings_.size() == kKeptOrders) sightings_.erase(sightings_.begin());
      sightings_.push_back({task_id, probe_, want, 1});
      return nullptr;
    }
    if (++sighting->times < kSightingsToKeep) return nullptr;
    sightings_.erase(sighting);
    if (want.empty()) {
      want.assign(ssn.hooks.node_scorers.size(), ScoreRange{});
      for (std::size_t s = 0; s < want.size(); ++s) {
        for (NodeId id : offered) {
          if (const auto v = ssn.hooks.node_scorers[s]->range_value(ssn, task, ssn.state.nodes[id]))
            want[s].add(*v);
        }
      }
    }
    // A new order, in the place of the one least recently used once there are enough.
    std::unique_ptr<Order>& slot = lru_slot(orders_, kKeptOrders);
    slot = std::make_unique<Order>();
    found = slot.get();
    found->nodes.assign(offered.begin(), kept_end);
    found->kept = kept_first;
    found->probe = probe_;
    found->used = want;
    found->build(ssn, task);
  }
  Order& order = *found;
  order.last_use = uses_;
  order.sample = task_id;
  if (found != first) own_places(order);  // the first order's were found with the ranges
  // Beside the order: its dirty nodes as they are now, and the scenario's own nodes.
  const std::vector<std::uint32_t>& ranks = ssn.node_name_ranks();
  Walk& walk = walk_;
  walk.beside_.clear();
  for (std::uint32_t p : order.dirty_places) {
    if (order.now_fits[p]) walk.beside_.push_back(order.entry(ranks, p, order.now_score[p]));
  }
  for (std::uint32_t p : own) {
    if (order.now_fits[p]) walk.beside_.push_back(order.entry(ranks, p, order.now_score[p]));
  }
  walk.next_beside_ = 0;
  walk.kept_ = &order.order;
  walk.dirty_ = &order.dirty;
  walk.place_ = &order.place;
  walk.next_kept_ = 0;
#ifndef NDEBUG
  // The proof: the walk hands out the order ordered_nodes works out now.
  Walk copy = walk;
  std::vector<NodeId> in_order;
  for (NodeId n; copy.next(n);) in_order.push_back(n);
  SIM_ASSERT(in_order == ordered_nodes(ssn, task_id, offered, true).rest());
#endif
  return &walk;
}

bool SearchNodeOrders::Walk::next(NodeId& node) {
  const std::vector<Entry>& kept = *kept_;
  while (next_kept_ < kept.size() && (*dirty_)[(*place_)[kept[next_kept_].node.index()]])
    ++next_kept_;
  // The best node beside the order, found when asked (most walks stop at the first node).
  if (next_beside_ < beside_.size()) {
    const auto rest = beside_.begin() + static_cast<std::ptrdiff_t>(next_beside_);
    std::iter_swap(rest, std::min_element(rest, beside_.end()));
  }
  const bool kept_left = next_kept_ < kept.size();
  const bool beside_left = next_beside_ < beside_.size();
  if (!kept_left && !beside_left) return false;
  if (kept_left && (!beside_left || kept[next_kept_] < beside_[next_beside_])) {
    node = kept[next_kept_++].node;
  } else {
    node = beside_[next_beside_++].node;
  }
  return true;
}

}  // namespace sim::sched
