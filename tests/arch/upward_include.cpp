// Must not compile: a plugin (sched/plugins) including an action (sched/actions). The module map
// in docs/architecture.md puts the two side by side, and the build enforces it; CTest's
// architecture_upward_include builds this file and passes only when the build fails.
#include "sim/sched/actions/solver.hpp"

int probe() { return 0; }
