// The resourcetype plugin (plugins/resourcetype): a CPU-only pod prefers a CPU-only node.

#include "builders.hpp"
#include "scores.hpp"

namespace sim::sched::plugins {
namespace {

class ResourceType final : public Plugin, public NodeScorer {
 public:
  std::string_view name() const override { return "resourcetype"; }
  void on_session_open(Session& ssn) override { ssn.hooks.node_scorers.push_back(this); }
  void score(Session& ssn, TaskId task, const std::vector<NodeId>& /*offered*/,
             const std::vector<NodeId>& nodes, std::vector<double>& scores,
             std::vector<char>&) override {
    const model::Task& t = ssn.state.tasks[task];
    if (!t.is_cpu_only()) return;
    for (std::size_t i = 0; i < nodes.size(); ++i)
      scores[i] += cpu_node_score(ssn.state.nodes[nodes[i]]);
  }

  bool node_local(const Session&, const model::Task&) const override { return true; }
  double local_score(const Session&, const model::Task& task, const model::Node& node,
                     const ScoreRange&) const override {
    return task.is_cpu_only() ? cpu_node_score(node) : 0;
  }

 private:
  // A CPU-only pod's score of a node (asked once per pod, then node by node).
  static double cpu_node_score(const model::Node& node) {
    return node.is_cpu_only_node() ? kResourceType : 0;
  }
};

}  // namespace

std::unique_ptr<Plugin> make_resourcetype(const model::PluginOption&) {
  return std::make_unique<ResourceType>();
}

}  // namespace sim::sched::plugins
