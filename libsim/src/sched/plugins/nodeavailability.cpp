// The nodeavailability plugin (plugins/nodeavailability): a node whose idle resources fit the task
// now (no waiting for releasing pods) scores kAvailability.

#include "builders.hpp"
#include "scores.hpp"

namespace sim::sched::plugins {
namespace {

class NodeAvailability final : public Plugin, public NodeScorer {
 public:
  std::string_view name() const override { return "nodeavailability"; }
  void on_session_open(Session& ssn) override { ssn.hooks.node_scorers.push_back(this); }
  void score(Session& ssn, TaskId task_id, const std::vector<NodeId>& /*offered*/,
             const std::vector<NodeId>& nodes, std::vector<double>& scores,
             std::vector<char>&) override {
    const model::Task& task = ssn.state.tasks[task_id];
    for (std::size_t i = 0; i < nodes.size(); ++i)
      scores[i] += local_score(ssn, task, ssn.state.nodes[nodes[i]], {});
  }

  bool node_local(const Session&, const model::Task&) const override { return true; }
  double local_score(const Session&, const model::Task& task, const model::Node& node,
                     const ScoreRange&) const override {
    return node.task_fits(task, node.idle, false) ? kAvailability : 0;
  }
};

}  // namespace

std::unique_ptr<Plugin> make_nodeavailability(const model::PluginOption&) {
  return std::make_unique<NodeAvailability>();
}

}  // namespace sim::sched::plugins
