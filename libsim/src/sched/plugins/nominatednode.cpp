// The nominatednode plugin (plugins/nominatednode): the node a pod was nominated to (its
// status.nominatedNodeName) scores kNominatedNode.

#include "builders.hpp"
#include "scores.hpp"

namespace sim::sched::plugins {
namespace {

class NominatedNode final : public Plugin, public NodeScorer {
 public:
  std::string_view name() const override { return "nominatednode"; }
  void on_session_open(Session& ssn) override { ssn.hooks.node_scorers.push_back(this); }
  void score(Session& ssn, TaskId task, const std::vector<NodeId>& /*offered*/,
             const std::vector<NodeId>& nodes, std::vector<double>& scores,
             std::vector<char>&) override {
    const model::Task& t = ssn.state.tasks[task];
    if (t.nominated_node.empty()) return;
    for (std::size_t i = 0; i < nodes.size(); ++i)
      scores[i] += local_score(ssn, t, ssn.state.nodes[nodes[i]], {});
  }

  bool node_local(const Session&, const model::Task&) const override { return true; }
  double local_score(const Session&, const model::Task& task, const model::Node& node,
                     const ScoreRange&) const override {
    return !task.nominated_node.empty() && node.name == task.nominated_node ? kNominatedNode : 0;
  }
};

}  // namespace

std::unique_ptr<Plugin> make_nominatednode(const model::PluginOption&) {
  return std::make_unique<NominatedNode>();
}

}  // namespace sim::sched::plugins
