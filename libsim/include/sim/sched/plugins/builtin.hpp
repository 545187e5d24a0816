#pragma once
// The plugins kaisim models, under their KAI names (KAI pkg/scheduler/plugins/factory.go).

#include "sim/sched/framework/plugin.hpp"

namespace sim::sched {

/// Adds every built-in plugin's builder to `registry`.
void register_builtin_plugins(PluginRegistry& registry);

}  // namespace sim::sched
