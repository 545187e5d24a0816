#pragma once
// Private to sched: KAI's dynamicresources plugin (plugins/dynamicresources), which checks a pod's
// DRA claims before and while it picks a node, and allocates and reserves them as the session
// places pods. Claims live in the cluster state; every change goes through the allocate and
// deallocate events, so a statement's undo gives them back.

#include <string>

#include "sim/sched/framework/session.hpp"
#include "sim/sched/plugins/dra_devices.hpp"

namespace sim::sched {

/// preFilter: why none of the pod's claims can be used now, or empty.
std::string dra_pre_filter(const Session& ssn, const model::Task& task);

/// filter: why the pod's claims cannot be met on `node`, or empty.
std::string dra_filter(const Session& ssn, const DraDevices& devices, const model::Task& task,
                       const model::Node& node);

/// The allocate and deallocate event handlers: reserve the pod's claims (allocating devices on its
/// node when a claim has none) or release them (a claim nobody holds loses its devices).
void dra_allocate(Session& ssn, DraDevices& held_devices, TaskId task);
void dra_deallocate(Session& ssn, DraDevices& held_devices, TaskId task);

}  // namespace sim::sched
