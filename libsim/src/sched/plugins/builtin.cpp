#include "sim/sched/plugins/builtin.hpp"

#include "builders.hpp"

namespace sim::sched {

void register_builtin_plugins(PluginRegistry& registry) {
  using namespace plugins;
  registry.add("predicates", make_predicates);
  registry.add("proportion", make_proportion);
  registry.add("priority", make_priority);
  registry.add("elastic", make_elastic);
  registry.add("kubeflow", make_kubeflow);
  registry.add("ray", make_ray);
  registry.add("taskorder", make_taskorder);
  registry.add("subgrouporder", make_subgrouporder);
  registry.add("nodeavailability", make_nodeavailability);
  registry.add("gpusharingorder", make_gpusharingorder);
  registry.add("gpupack", make_gpupack);
  registry.add("gpuspread", make_gpuspread);
  registry.add("resourcetype", make_resourcetype);
  registry.add("nominatednode", make_nominatednode);
  registry.add("nodeplacement", make_nodeplacement);
  registry.add("dynamicresources", make_dynamicresources);
  registry.add("minruntime", make_minruntime);
  registry.add("topology", make_topology);
  registry.add("podaffinity", make_podaffinity);
  registry.add("numa", make_numa);
  for (const char* name : {"snapshot", "sg-nodelocalgreedy", "sg-multinodegang"})
    registry.add(name, make_no_op);
}

}  // namespace sim::sched
