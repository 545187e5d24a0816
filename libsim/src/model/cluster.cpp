#include "sim/model/cluster.hpp"

#include <algorithm>

namespace sim::model {

NodeId ClusterState::find_node(const std::string& name) const {
  auto it = node_by_name.find(name);
  return it == node_by_name.end() ? NodeId::invalid() : it->second;
}

std::vector<PriorityClass> default_priority_classes() {
  return {{"train", 50, false}, {"build-preemptible", 75, false}, {"build", 100, false}, {"inference", 125, false}};
}

int default_priority(const std::vector<PriorityClass>& classes) {
  for (const PriorityClass& pc : classes) {
    if (pc.global_default) return pc.value;
  }
  return 50;  // DefaultPodGroupPriority
}

void update_gpu_memory_bounds(ClusterState& state) {
  state.min_node_gpu_memory_mib.reset();
  state.max_node_gpu_memory_mib.reset();
  for (const Node& node : state.nodes) {
    if (node.gpu_memory_mib <= kDefaultGpuMemoryMib) continue;
    const std::int64_t mem = node.gpu_memory_mib;
    state.min_node_gpu_memory_mib = std::min(state.min_node_gpu_memory_mib.value_or(mem), mem);
    state.max_node_gpu_memory_mib = std::max(state.max_node_gpu_memory_mib.value_or(mem), mem);
  }
}

}  // namespace sim::model
