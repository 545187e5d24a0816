#pragma once
// A job as the scheduler's algorithms see it: KAI often works on partial clones of a PodGroup (a
// victim job minus the pods already taken, a reclaimer holding only the pods of one probe); a
// JobView is that. Pods are shared with the session, so status changes are seen through every
// view.

#include <memory>
#include <vector>

#include "sim/model/task.hpp"
#include "sim/model/subgroups.hpp"

namespace sim::sched {

struct JobView {
  JobId id = JobId::invalid();
  std::vector<TaskId> tasks;
  std::shared_ptr<const model::SubGroupTree> groups;  ///< the job's, or a copy with lower minimums
  bool valid() const { return id.valid(); }
};

}  // namespace sim::sched
