#pragma once
// Private to the plugins: one builder per KAI plugin kaisim models (register_builtin_plugins in
// builtin.cpp adds them to a registry under their KAI names).

#include <memory>

#include "sim/sched/framework/session.hpp"

namespace sim::sched::plugins {

std::unique_ptr<Plugin> make_predicates(const model::PluginOption&);
std::unique_ptr<Plugin> make_proportion(const model::PluginOption&);
std::unique_ptr<Plugin> make_priority(const model::PluginOption&);
std::unique_ptr<Plugin> make_elastic(const model::PluginOption&);
std::unique_ptr<Plugin> make_kubeflow(const model::PluginOption&);
std::unique_ptr<Plugin> make_ray(const model::PluginOption&);
std::unique_ptr<Plugin> make_taskorder(const model::PluginOption&);
std::unique_ptr<Plugin> make_subgrouporder(const model::PluginOption&);
std::unique_ptr<Plugin> make_nodeavailability(const model::PluginOption&);
std::unique_ptr<Plugin> make_gpusharingorder(const model::PluginOption&);
std::unique_ptr<Plugin> make_gpupack(const model::PluginOption&);
std::unique_ptr<Plugin> make_gpuspread(const model::PluginOption&);
std::unique_ptr<Plugin> make_resourcetype(const model::PluginOption&);
std::unique_ptr<Plugin> make_nominatednode(const model::PluginOption&);
std::unique_ptr<Plugin> make_nodeplacement(const model::PluginOption&);
std::unique_ptr<Plugin> make_dynamicresources(const model::PluginOption&);
std::unique_ptr<Plugin> make_minruntime(const model::PluginOption&);
std::unique_ptr<Plugin> make_topology(const model::PluginOption&);
std::unique_ptr<Plugin> make_podaffinity(const model::PluginOption&);
std::unique_ptr<Plugin> make_numa(const model::PluginOption&);
/// A plugin kaisim knows by name whose work lives elsewhere or has no effect on decisions
/// (snapshot: a debug HTTP endpoint; sg-nodelocalgreedy and sg-multinodegang: the victim
/// solver's scenario generators, which the solver always runs).
std::unique_ptr<Plugin> make_no_op(const model::PluginOption&);

}  // namespace sim::sched::plugins
