#pragma once
// Private: the scheduler configuration a KAI snapshot carries next to its objects ("config":
// conf/scheduler_conf.go SchedulerConfiguration; "schedulerParams": SchedulerParams).

#include "io/yaml_field.hpp"
#include "sim/model/cluster.hpp"

namespace sim::io {

/// `config` (actions and plugin tiers) and `params` (either may be null) applied over kaisim's
/// defaults. A parameter the snapshot leaves out keeps kaisim's default; Go omits false and zero
/// values from this JSON, so an absent parameter may also mean false or 0 there.
model::SchedulerConfig read_scheduler_config(const Field& config, const Field& params);

}  // namespace sim::io
