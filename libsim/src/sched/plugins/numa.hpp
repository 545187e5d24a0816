#pragma once
// Private to sched: KAI's numa plugin (plugins/numa), which keeps Guaranteed pods on nodes whose
// kubelet Topology Manager (single-numa-node or restricted) would admit them, and keeps a per-zone
// ledger of what the session placed. Not in KAI's default plugin list; on with `numa` in a config.

#include <vector>

#include "sim/sched/framework/session.hpp"

namespace sim::sched {

/// The predicate's rejection reason (numa.go fitErrorMessage).
inline constexpr const char* kNumaFitError =
    "node cannot NUMA-align the pod's resources under its Topology Manager policy";

/// OnSessionOpen: placed pods get their placement from their persisted record, and (with
/// reconstructAvailable) every zone's available is rebuilt as allocatable minus those records.
void open_numa(Session& ssn);

/// evaluate: whether the kubelet would admit `task` on `node`, and the zones it would use. A pod
/// the plugin does not constrain is admitted with no placement.
bool numa_admits(const Session& ssn, const model::Task& task, const model::Node& node,
                 std::vector<model::ZoneAmounts>* placement);

/// The allocate (sign -1) and deallocate (+1) event handlers: charge or credit the placement.
void numa_charge(model::Node& node, const std::vector<model::ZoneAmounts>& placement, int sign);

}  // namespace sim::sched
