#pragma once
// One translator from libsim's exceptions to the Python hierarchy in kaisim/errors.py.

#include <pybind11/pybind11.h>

namespace kaisim::python {

/// Registers the translator: sim::InputError -> kaisim.ScenarioError (file, line, column, field,
/// detail), sim::Error(IO) -> kaisim.KaisimIOError, any other exception from libsim (including a
/// dependency's) -> kaisim.InternalError.
void register_error_translation();

}  // namespace kaisim::python
