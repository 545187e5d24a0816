#pragma once
// Node orders kept through a victim search. Every scenario of one probe is offered the probe's
// nodes, which stay put, then the few nodes of its own victims; between two scenarios only the
// nodes a scenario touched differ, and its statement puts most of them back. KAI scores every
// offered node for every pod each scenario places (framework/session.go OrderedNodesByTask), so a
// failing reclaimer's search scores the cluster's free nodes tens of thousands of times. For a
// CPU pod or a GPU fraction whose scorers score node by node (hooks.hpp), the order of the
// probe's nodes is kept in a sorted array, with the nodes that differ from it since judged again
// beside it (the session's node change log), per range of the scorers (binpack's least and most
// free node over everything offered). Whole-GPU pods find their few fitting nodes in the index of
// nodes by free GPUs, which costs less than an order kept.

#include <cstdint>
#include <memory>
#include <vector>

#include "sim/sched/framework/session.hpp"

namespace sim::sched {

class SearchNodeOrders {
 public:
  /// Probes of fewer nodes order them afresh: what a scenario changes (its victims' nodes, about
  /// as many as its own nodes) is then about as many nodes as an ordering scores, and kept orders
  /// made one cycle at 100 nodes with 10 pending pods per node 8% slower.
  static constexpr std::size_t kFewestProbeNodes = 128;
  /// Building an order costs about two plain orderings, and a probe may place a shape only a few
  /// times: an order is kept from the eighth placement with the same requests, probe nodes and
  /// ranges (kept from the fourth, one cycle of the generated 4,000-node cluster took 58.6 s,
  /// from the eighth 55.7 s).
  static constexpr int kSightingsToKeep = 8;

  /// Orders for placements in `ssn` while this lives (one solve): the session's node change log
  /// is on meanwhile.
  explicit SearchNodeOrders(Session& ssn, std::size_t fewest_probe_nodes = kFewestProbeNodes);
  ~SearchNodeOrders();
  SearchNodeOrders(const SearchNodeOrders&) = delete;
  SearchNodeOrders& operator=(const SearchNodeOrders&) = delete;

  /// A scenario starts: the lists offered next start with `probe_nodes` (kept orders cover
  /// them), then the scenario's own nodes. The probe's nodes are now as every scenario of the
  /// probe starts, which the orders take as their base at their next use.
  void at_base(const std::vector<NodeId>& probe_nodes);

  /// The nodes of `offered` the task fits, in the order ordered_nodes(ssn, task, offered, true)
  /// hands them out. Valid until the next call of walk().
  class Walk {
   public:
    bool next(NodeId& node);

    struct Entry {
      double score;
      std::uint32_t rank;  // the node's place in name order (unique)
      NodeId node;
      bool operator<(const Entry& o) const {
        if (score != o.score) return score > o.score;
        return rank < o.rank;
      }
    };

   private:
    friend class SearchNodeOrders;
    const std::vector<Entry>* kept_ = nullptr;  // the order's, dirty nodes skipped
    const std::vector<char>* dirty_ = nullptr;  // by the order's place of a node
    const std::vector<std::uint32_t>* place_ = nullptr;
    std::size_t next_kept_ = 0;
    std::vector<Entry> beside_;  // the dirty and the scenario's own nodes, the next best first
    std::size_t next_beside_ = 0;
  };
  /// A walk for the task, or nullptr when no order is kept for it (not a CPU pod or fraction of
  /// node-local scorers, or not seen often enough yet): the caller orders the nodes itself.
  /// Debug builds compare the walk with ordered_nodes'.
  Walk* walk(TaskId task, const std::vector<NodeId>& offered);

 private:
  struct Order;
  struct Sighting;

  Session& ssn_;
  std::size_t fewest_probe_nodes_;
  std::vector<NodeId> probe_nodes_;  // the current probe's
  std::uint64_t probe_ = 0;          // names probe_nodes_
  std::uint64_t probes_ = 0;
  // Where the node change log stood as the scenario started.
  std::uint64_t base_generation_ = 0;
  std::size_t base_changes_ = 0;
  std::vector<std::unique_ptr<Order>> orders_;
  std::vector<Sighting> sightings_;
  std::uint64_t uses_ = 0;
  Walk walk_;
  std::vector<std::uint32_t> own_places_;
};

}  // namespace sim::sched
