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
    if (!ssn.state.tasks[task].is_cpu_only()) return;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      if (ssn.state.nodes[nodes[i]].is_cpu_only_node()) scores[i] += kResourceType;
    }
  }
};

}  // namespace

std::unique_ptr<Plugin> make_resourcetype(const model::PluginOption&) {
  return std::make_unique<ResourceType>();
}

}  // namespace sim::sched::plugins
