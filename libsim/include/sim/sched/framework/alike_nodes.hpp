#pragma once
// Node orders kept for alike pods. KAI scores every offered node for every pod it places
// (framework/session.go OrderedNodesByTask). For a pod whose fit and every score depend only on
// its requests and the node itself (a plain whole-GPU or CPU pod under node-local scorers,
// hooks.hpp), the order for the next pod with the same requests differs only at the nodes that
// changed since (the session's node change log) and where binpack's range of free resources
// moved. So the allocate action keeps a few such orders and judges again only those nodes:
// thousands of alike pending pods cost about one scoring of each node per change, not one per pod.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/sched/framework/node_misses.hpp"
#include "sim/sched/framework/session.hpp"

namespace sim::sched {

class AlikeNodeOrders {
 public:
  /// Orders for pods placed in `ssn` while this lives (the allocate action's): the session's
  /// node change log is on meanwhile.
  explicit AlikeNodeOrders(Session& ssn);
  ~AlikeNodeOrders();
  AlikeNodeOrders(const AlikeNodeOrders&) = delete;
  AlikeNodeOrders& operator=(const AlikeNodeOrders&) = delete;

  enum class Outcome : std::uint8_t {
    kNotKept,   ///< no order is kept for the pod (not alike-able, or the first of its kind):
                ///< the caller orders the nodes itself
    kFound,     ///< `node` is the first node of the order that passes FittingNode
    kNoneFits,  ///< no offered node passes FittingNode
  };
  /// What walking ordered_nodes(ssn, task, offered) with fitting_node would find first. Debug
  /// builds compare the kept order with one worked out afresh.
  Outcome first_fitting(TaskId task, const std::vector<NodeId>& offered, NodeId& node);

  /// Why no offered node took a pod: FittingNode's worded reasons (allocate.cpp) and the misses.
  struct Refusal {
    std::vector<std::string> reasons;
    NodeMisses misses;
  };
  /// The refusal kept (keep_refusal) for a pod alike to this one (same requests, same queue and
  /// preemptibility, no node rules or DRA claims of its own, no pod anti-affinity in the session,
  /// no NUMA alignment) while no node has changed since; nullptr when there is none. A pod
  /// refused everywhere is then judged once for the alike pods that follow it.
  const Refusal* kept_refusal(TaskId task, const std::vector<NodeId>& offered);
  /// Keeps the refusal just worded for `task` (first_fitting said kNoneFits for it).
  void keep_refusal(TaskId task, const std::vector<NodeId>& offered, Refusal refusal);

 private:
  struct Order;
  Order* order_for(const model::Task& task, const std::vector<NodeId>& offered);
  Order* kept_order(const model::Task& task, const std::vector<NodeId>& offered);

  Session& ssn_;
  std::vector<std::unique_ptr<Order>> orders_;
  // Pods seen once, with what they were offered: an order is kept from the second alike pod on,
  // as building one costs more than one plain ordering.
  std::vector<std::pair<TaskId, std::vector<NodeId>>> seen_once_;
  std::uint64_t uses_ = 0;
};

}  // namespace sim::sched
