// The nodeplacement plugin (plugins/nodeplacement pack.go, spread.go): GPU pods by free GPUs and
// CPU pods by free CPU, packed (binpack, the default) or spread as the placement strategy says.
// Binpack scores up to kMaxHighDensity by where the node's free amount lies between the least and
// the most free node offered (its NodePreOrderFn); spread scores the free share of the node.

#include <algorithm>
#include <limits>

#include "builders.hpp"
#include "scores.hpp"

namespace sim::sched::plugins {
namespace {

constexpr int kGpu = index_of(Resource::GPU);
constexpr int kCpu = index_of(Resource::CPU);

double free_resource(const model::Node& node, int index) {
  return node.idle[index] + node.releasing[index];
}

class NodePlacement final : public Plugin, public NodeScorer {
 public:
  std::string_view name() const override { return "nodeplacement"; }
  void on_session_open(Session& ssn) override { ssn.hooks.node_scorers.push_back(this); }
  void score(Session& ssn, TaskId task_id, const std::vector<NodeId>& offered,
             const std::vector<NodeId>& nodes, std::vector<double>& scores,
             std::vector<char>&) override {
    const model::Task& task = ssn.state.tasks[task_id];
    const bool cpu_task = task.is_cpu_only();
    const int resource = cpu_task ? kCpu : kGpu;
    const bool binpack = cpu_task ? ssn.config.cpu_binpack : ssn.config.gpu_binpack;
    if (!binpack) {
      for (std::size_t i = 0; i < nodes.size(); ++i) {
        const model::Node& node = ssn.state.nodes[nodes[i]];
        const double capacity =
            cpu_task ? node.allocatable[kCpu] : static_cast<double>(node.gpu_count());
        if (capacity != 0) scores[i] += free_resource(node, resource) / capacity;
      }
      return;
    }
    // setBinpackPreOrder: min/max free resource over every node offered (fitting or not).
    double min_free = std::numeric_limits<double>::max(), max_free = 0;
    if (nodes.empty()) return;
    for (NodeId id : offered) {
      const model::Node& node = ssn.state.nodes[id];
      if (node.allocatable[resource] == 0) continue;
      const double free = free_resource(node, resource);
      min_free = std::min(min_free, free);
      max_free = std::max(max_free, free);
    }
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const model::Node& node = ssn.state.nodes[nodes[i]];
      const double overall = node.allocatable[resource];
      const double free = free_resource(node, resource);
      if (overall != 0 && max_free != 0) {
        scores[i] += min_free == max_free
                         ? kMaxHighDensity
                         : kMaxHighDensity * (1 - (free - min_free) / (max_free - min_free));
      }
    }
  }
};

}  // namespace

std::unique_ptr<Plugin> make_nodeplacement(const model::PluginOption&) {
  return std::make_unique<NodePlacement>();
}

}  // namespace sim::sched::plugins
