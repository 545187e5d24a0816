#pragma once
// The topology plugin (KAI pkg/scheduler/plugins/topology): splits the nodes a subgroup may use
// into the domains that can hold all its pods (SubsetNodesFn) and scores nodes by the order of
// their preferred-level domain (NodeOrderFn).
//
// A topology is a tree: the root holds every node that has a label for each level, below it one
// domain per distinct value of the outermost level, and so on. Domain ids join the values from
// the outermost level down with "." (topology_structs.go calcDomainId).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/model/cluster.hpp"
#include "sim/sched/framework/session.hpp"

namespace sim::sched {

class TopologyPlugin final : public Plugin, public NodeScorer {
 public:
  std::string_view name() const override { return "topology"; }
  /// Builds the domain trees of the state's Topologies and adds the hooks.
  void on_session_open(Session& ssn) override;
  /// NodeOrderFn over the nodes offered to a task: node_score() each; a node it cannot score is
  /// dropped.
  void score(Session& ssn, TaskId task, const std::vector<NodeId>& offered,
             const std::vector<NodeId>& nodes, std::vector<double>& scores,
             std::vector<char>& dropped) override;
  /// A job without a preferred level leaves no scores: every node scores 0.
  bool node_local(const Session&, const model::Task&) const override { return scores_.empty(); }

  /// subSetNodesFn: the node sets to try in order for `tasks` of `scope` within `nodes`. One set
  /// (`nodes`) without a constraint; none when no domain can hold the pods (`why` says why);
  /// nullopt on a configuration error (an unknown level), which fails the allocation.
  std::optional<std::vector<std::vector<NodeId>>> subset_nodes(const Session& ssn, JobId job,
                                                               const SubgroupScope& scope,
                                                               const std::vector<TaskId>& tasks,
                                                               const std::vector<NodeId>& nodes,
                                                               std::string& why);

  /// preJobAllocationFn: forget the node scores of the previous job.
  void clear_scores() { scores_.clear(); }

  /// nodeOrderFn: the score of `node` for `task` from its PodSet's or nearest ancestor's
  /// preferred-level order; 0 when none has one; nullopt when that order lacks the node (KAI then
  /// leaves the node out).
  std::optional<double> node_score(const Session& ssn, const model::Task& task, NodeId node) const;

 private:
  struct Domain {
    std::string id;
    int depth = 0;  ///< 0 for the root, 1 for the outermost level, ...
    std::vector<int> children;
    std::vector<NodeId> nodes;
    std::int64_t allocatable_pods = -1;  ///< -1: not counted for this call
    ResourceVec free = ResourceVec::Zero();
    std::map<std::string, double> free_scalars;
  };
  struct Tree {
    const model::Topology* topology = nullptr;
    std::vector<Domain> domains;                              ///< [0] is the root
    std::vector<std::vector<int>> by_depth;                   ///< domain indices per depth
    std::vector<std::unordered_map<std::string, int>> by_id;  ///< per depth: domain id -> index
    std::vector<std::vector<int>> path;  ///< per node: its domain at each depth, empty if outside
    int depth_of(const std::string& level) const;  ///< -1 if the topology has no such level
  };
  struct Demand;

  static void add_node(Tree& tree, const model::Node& node, NodeId id);
  void sum_free(Tree& tree, int domain, const Session& ssn);
  std::int64_t count_pods(Tree& tree, int domain, const Session& ssn, const Demand& d);
  void sort_children(Tree& tree, int domain, int max_depth, const Demand& d);
  bool fits(const Tree& tree, int domain, const Demand& d) const;
  std::vector<int> level_domains(const Tree& tree, int domain, int depth) const;

  std::vector<Tree> trees_;
  /// Node scores per subgroup name, for the job being placed.
  std::unordered_map<std::string, std::unordered_map<NodeId, double>> scores_;
};

}  // namespace sim::sched
