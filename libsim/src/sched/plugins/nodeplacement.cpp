// The nodeplacement plugin (plugins/nodeplacement pack.go, spread.go): GPU pods by free GPUs and
// CPU pods by free CPU, packed (binpack, the default) or spread as the placement strategy says.
// Binpack scores up to kMaxHighDensity by where the node's free amount lies between the least and
// the most free node offered (its NodePreOrderFn); spread scores the free share of the node.

#include "builders.hpp"
#include "scores.hpp"

namespace sim::sched::plugins {
namespace {

constexpr int kGpu = index_of(Resource::GPU);
constexpr int kCpu = index_of(Resource::CPU);

double free_resource(const model::Node& node, int index) {
  return node.idle[index] + node.releasing[index];
}

// What the plugin reads of a task: CPU pods are placed by CPU, others by GPUs.
struct Placement {
  bool cpu_task;
  int resource;
  bool binpack;
  Placement(const Session& ssn, const model::Task& task)
      : cpu_task(task.is_cpu_only()),
        resource(cpu_task ? kCpu : kGpu),
        binpack(cpu_task ? ssn.config.cpu_binpack : ssn.config.gpu_binpack) {}

  std::optional<double> range_value(const model::Node& node) const {
    if (!binpack || node.allocatable[resource] == 0) return std::nullopt;
    return free_resource(node, resource);
  }
  double score(const model::Node& node, const ScoreRange& range) const {
    if (!binpack) {
      const double capacity =
          cpu_task ? node.allocatable[kCpu] : static_cast<double>(node.gpu_count());
      return capacity != 0 ? free_resource(node, resource) / capacity : 0;
    }
    if (node.allocatable[resource] == 0 || range.most == 0) return 0;
    const double free = free_resource(node, resource);
    return range.least == range.most
               ? kMaxHighDensity
               : kMaxHighDensity * (1 - (free - range.least) / (range.most - range.least));
  }
};

class NodePlacement final : public Plugin, public NodeScorer {
 public:
  std::string_view name() const override { return "nodeplacement"; }
  void on_session_open(Session& ssn) override { ssn.hooks.node_scorers.push_back(this); }
  void score(Session& ssn, TaskId task_id, const std::vector<NodeId>& offered,
             const std::vector<NodeId>& nodes, std::vector<double>& scores,
             std::vector<char>&) override {
    if (nodes.empty()) return;
    const Placement placement(ssn, ssn.state.tasks[task_id]);
    // setBinpackPreOrder: min/max free resource over every node offered (fitting or not).
    // Read from the session's dense table of free resources, not the nodes' scattered books:
    // the same values as range_value(), for every offered node of every placement.
    ScoreRange range;
    if (placement.binpack) {
      ssn.free_capacity.for_each_free(offered, placement.resource,
                                      [&](double free) { range.add(free); });
#ifndef NDEBUG
      ScoreRange from_books;
      for (NodeId id : offered) {
        if (const auto value = placement.range_value(ssn.state.nodes[id])) from_books.add(*value);
      }
      SIM_ASSERT(range == from_books);
#endif
    }
    for (std::size_t i = 0; i < nodes.size(); ++i)
      scores[i] += placement.score(ssn.state.nodes[nodes[i]], range);
  }

  bool node_local(const Session&, const model::Task&) const override { return true; }
  std::optional<double> range_value(const Session& ssn, const model::Task& task,
                                    const model::Node& node) const override {
    return Placement(ssn, task).range_value(node);
  }
  double local_score(const Session& ssn, const model::Task& task, const model::Node& node,
                     const ScoreRange& range) const override {
    return Placement(ssn, task).score(node, range);
  }
};

}  // namespace

std::unique_ptr<Plugin> make_nodeplacement(const model::PluginOption&) {
  return std::make_unique<NodePlacement>();
}

}  // namespace sim::sched::plugins
