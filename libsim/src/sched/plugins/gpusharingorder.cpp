// The gpusharingorder plugin (plugins/gpusharingorder): a node with an in-use shared GPU the task
// fits on scores kGpuSharing, so fractions fill shared GPUs before opening new ones (a CPU pod
// needs 0 MiB and fits too).

#include "builders.hpp"
#include "scores.hpp"

namespace sim::sched::plugins {
namespace {

class GpuSharingOrder final : public Plugin, public NodeScorer {
 public:
  std::string_view name() const override { return "gpusharingorder"; }
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
    bool fits = false;
    node.for_each_fitting_group(task.gpu, [&](const std::string&) {
      fits = true;
      return true;
    });
    return fits ? kGpuSharing : 0;
  }
};

}  // namespace

std::unique_ptr<Plugin> make_gpusharingorder(const model::PluginOption&) {
  return std::make_unique<GpuSharingOrder>();
}

}  // namespace sim::sched::plugins
