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
    const std::string& nominated = ssn.state.tasks[task].nominated_node;
    if (nominated.empty()) return;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      if (ssn.state.nodes[nodes[i]].name == nominated) scores[i] += kNominatedNode;
    }
  }
};

}  // namespace

std::unique_ptr<Plugin> make_nominatednode(const model::PluginOption&) {
  return std::make_unique<NominatedNode>();
}

}  // namespace sim::sched::plugins
