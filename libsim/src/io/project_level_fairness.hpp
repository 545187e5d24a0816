#pragma once
// Private: KAI's queues when its fullHierarchyFairness flag is false ("project-level fairness",
// cache/cluster_info/queue.go snapshotQueues).

#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/model/queue.hpp"

namespace sim::io {

/// The name of the top-level queue KAI puts every other queue below.
inline constexpr const char* kProjectLevelParent = "default";

/// KAI's queue list without full-hierarchy fairness: a synthetic top-level queue "default" (quota
/// and limit unlimited, over-quota weight 1, created now) with every queue that has a parent
/// hung directly below it; the top-level queues themselves are dropped, so departments divide
/// nothing and every project shares the cluster as a sibling of every other. `paths` (each
/// spec's field path, for messages) is filtered alike. A queue named "default" that has a
/// parent would become its own parent in KAI: an InputError at that queue. A top-level queue
/// with no child (its jobs then have no queue) is a warning, unless it is named "default" (KAI's
/// own queue of that name takes its jobs).
void apply_project_level_fairness(std::vector<model::QueueSpec>& specs,
                                  std::vector<std::string>& paths, Diagnostics& diagnostics);

}  // namespace sim::io
