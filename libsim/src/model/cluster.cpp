#include "sim/model/cluster.hpp"

#include <algorithm>

namespace sim::model {

std::vector<PluginOption> enabled_plugins(const SchedulerConfig& config) {
  const SchedulerConfig::Plugins& p = config.plugins;
  std::vector<PluginOption> list;
  auto add = [&](const char* name, bool on = true) {
    if (on) list.push_back({name, {}});
  };
  if (config.plugin_list) {
    list = *config.plugin_list;
    auto has = [&](const char* name) {
      return std::any_of(list.begin(), list.end(),
                         [&](const PluginOption& o) { return o.name == name; });
    };
    if (p.pod_affinity && !has("podaffinity")) add("podaffinity");
    if (p.numa && !has("numa")) add("numa");
    return list;
  }
  add("predicates", config.predicates_enabled);
  add("proportion");
  add("priority");
  add("elastic");
  add("kubeflow");
  add("ray");
  add("nodeavailability", p.node_availability);
  add("gpusharingorder", config.gpu_sharing_order());
  add(config.gpu_device_pack() ? "gpupack" : "gpuspread", p.gpu_device_order);
  add("resourcetype", p.resource_type);
  add("podaffinity", p.pod_affinity);
  add("subgrouporder");
  add("taskorder");
  add("nominatednode", p.nominated_node);
  add("dynamicresources", p.dynamic_resources);
  add("nodeplacement", p.node_placement);
  add("minruntime");
  add("topology", p.topology);
  add("numa", p.numa);
  return list;
}

NodeId ClusterState::find_node(const std::string& name) const {
  auto it = node_by_name.find(name);
  return it == node_by_name.end() ? NodeId::invalid() : it->second;
}

void apply_plugin_list(SchedulerConfig& config, const std::vector<PluginOption>& plugins) {
  config.plugin_list = plugins;
  SchedulerConfig::Plugins& p = config.plugins;
  p = {};
  p.node_placement = p.node_availability = p.resource_type = p.nominated_node = false;
  p.gpu_sharing_order = false;
  p.gpu_device_order = false;
  p.topology = false;
  p.dynamic_resources = false;
  config.predicates_enabled = false;
  for (const PluginOption& plugin : plugins) {
    const std::string& name = plugin.name;
    if (name == "nodeplacement") {
      p.node_placement = true;
      auto arg = [&](const char* key) {
        auto it = plugin.arguments.find(key);
        return it == plugin.arguments.end() || it->second != "spread";
      };
      config.gpu_binpack = arg("gpu");
      config.cpu_binpack = arg("cpu");
    } else if (name == "gpupack" || name == "gpuspread") {
      p.gpu_device_order = true;
      p.gpu_pack = name == "gpupack";
    } else if (name == "gpusharingorder") {
      p.gpu_sharing_order = true;
    } else if (name == "nodeavailability") {
      p.node_availability = true;
    } else if (name == "resourcetype") {
      p.resource_type = true;
    } else if (name == "nominatednode") {
      p.nominated_node = true;
    } else if (name == "topology") {
      p.topology = true;
    } else if (name == "dynamicresources") {
      p.dynamic_resources = true;
    } else if (name == "podaffinity") {
      p.pod_affinity = true;
    } else if (name == "numa") {
      p.numa = true;
      // GetBool (strconv.ParseBool): only its false spellings turn it off; anything else, or
      // nothing, keeps the default true.
      auto reconstruct = plugin.arguments.find("reconstructAvailable");
      static const std::set<std::string> kFalse = {"0", "f", "F", "false", "FALSE", "False"};
      p.numa_reconstruct_available =
          reconstruct == plugin.arguments.end() || !kFalse.contains(reconstruct->second);
      auto ignore = plugin.arguments.find("ignoreList");
      if (ignore != plugin.arguments.end()) {
        std::string item;
        for (char c : ignore->second + ",") {
          if (c == ',') {
            while (!item.empty() && item.back() == ' ') item.pop_back();
            if (!item.empty()) p.numa_ignore.insert(item);
            item.clear();
          } else if (c != ' ' || !item.empty()) {
            item += c;
          }
        }
      }
    } else if (name == "predicates") {
      config.predicates_enabled = true;
    }
  }
}

void apply_placement_strategy(SchedulerConfig& config, bool gpu_binpack, bool cpu_binpack) {
  config.gpu_binpack = gpu_binpack;
  config.cpu_binpack = cpu_binpack;
  config.plugins.gpu_sharing_order.reset();  // follow the GPU strategy
  config.plugins.gpu_pack.reset();
  if (!gpu_binpack || !cpu_binpack) std::erase(config.actions, std::string("consolidation"));
}

std::vector<PriorityClass> default_priority_classes() {
  return {{"train", 50, false},
          {"build-preemptible", 75, false},
          {"build", 100, false},
          {"inference", 125, false}};
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
