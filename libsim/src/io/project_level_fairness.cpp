#include "project_level_fairness.hpp"

#include <cstdint>
#include <set>

namespace sim::io {

void apply_project_level_fairness(std::vector<model::QueueSpec>& specs,
                                  std::vector<std::string>& paths, Diagnostics& diagnostics) {
  // A top-level queue that is nobody's parent holds jobs itself: KAI drops it with the rest of
  // the top level, and its jobs wait for a queue that does not exist. One named "default" is
  // replaced by KAI's own, which takes its jobs.
  std::set<std::string> parents;
  for (const model::QueueSpec& q : specs) parents.insert(q.parent);
  for (std::size_t i = 0; i < specs.size(); ++i) {
    if (!specs[i].parent.empty() || parents.contains(specs[i].name) ||
        specs[i].name == kProjectLevelParent)
      continue;
    diagnostics.warn(specs[i].where, paths[i],
                     "a top-level queue with no child: with fullHierarchyFairness: false KAI "
                     "leaves every top-level queue out, so no job in this one is scheduled");
  }
  // getDefaultParentQueue: -1 (unlimited) quota and limit, weight 1, for GPU, CPU and memory.
  model::QueueSpec parent;
  parent.name = kProjectLevelParent;
  parent.created = model::CreationTime::unknown(static_cast<std::int64_t>(specs.size()));
  for (model::QuotaSpec* q : {&parent.gpu, &parent.cpu, &parent.memory})
    *q = model::QuotaSpec{-1, -1, 1, true};
  std::vector<model::QueueSpec> kept{parent};
  std::vector<std::string> kept_paths{std::string("queue \"") + kProjectLevelParent +
                                      "\" (KAI's, for fullHierarchyFairness: false)"};
  for (std::size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].parent.empty()) continue;  // a top-level queue: not in KAI's snapshot
    if (specs[i].name == kProjectLevelParent) {
      throw InputError(specs[i].where, paths[i] + ".spec.parentQueue",
                       std::string("with fullHierarchyFairness: false KAI hangs every queue "
                                   "that has a parent below its own top-level queue \"") +
                           kProjectLevelParent + "\", which this queue's name replaces");
    }
    specs[i].parent = kProjectLevelParent;
    kept.push_back(std::move(specs[i]));
    kept_paths.push_back(std::move(paths[i]));
  }
  specs = std::move(kept);
  paths = std::move(kept_paths);
}

}  // namespace sim::io
