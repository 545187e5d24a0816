#pragma once
// kaisim._core's planner bindings (bind_plan.cpp).

#include <pybind11/pybind11.h>

namespace kaisim::python {

/// Adds plan_run, plan_replay_job, plan_write and PlanSession to the module.
void bind_plan(pybind11::module_& m);

}  // namespace kaisim::python
