#pragma once
// A job as the scheduler's algorithms see it: KAI often works on partial clones of a PodGroup (a
// victim job minus the pods already taken, a reclaimer holding only the pods of one probe); a
// JobView is that. Pods are shared with the session, so status changes are seen through every
// view.

#include <cstdint>
#include <memory>
#include <vector>

#include "sim/core/resource_vec.hpp"
#include "sim/model/subgroups.hpp"
#include "sim/model/task.hpp"

namespace sim::sched {

/// What tasks_to_allocate_quantities (job_order.hpp) worked out for a view, with everything it
/// read that can change within a session: the view's pods and tree, and each pod's status. The
/// job orders ask for it at every heap comparison, mostly of views that have not changed.
/// The views that share a memo (copies of one view, full views of one job) hold the same pods.
struct AllocationMemo {
  const void* session = nullptr;
  const model::SubGroupTree* groups = nullptr;
  std::vector<TaskId> tasks;
  std::vector<std::uint8_t> states;  ///< per pod: status, and 0x80 when virtual
  ResourceVec quantities = ResourceVec::Zero();
  /// The session's status epoch when the memo was last found to hold: at that same epoch no pod
  /// has changed, so it holds without reading the pods again.
  std::uint64_t epoch = 0;
  /// min_available_state of the view (its pods and tree), at min_state_epoch of that session.
  const void* min_state_session = nullptr;
  const model::SubGroupTree* min_state_groups = nullptr;
  std::size_t min_state_pods = 0;
  std::uint64_t min_state_epoch = 0;
  int min_state = 0;
};

/// The view's pods in the session's task order (task_before reads only what a session does not
/// change: labels, task priority, creation time, UID), sorted once for the view and its copies.
struct TaskOrderMemo {
  const void* session = nullptr;
  std::vector<TaskId> tasks;   ///< the view's pods when sorted
  std::vector<TaskId> sorted;  ///< the same, in task order
  bool strict = false;         ///< no two of them tie (else the memo is not used)
};

struct JobView {
  JobId id = JobId::invalid();
  std::vector<TaskId> tasks;
  std::shared_ptr<const model::SubGroupTree> groups;  ///< the job's, or a copy with lower minimums
  /// Shared by copies of the view; checked against the view before it is used.
  mutable std::shared_ptr<AllocationMemo> allocation_memo;
  /// Set (even empty) on a view that is ordered many times, as a probe's preemptor; then shared
  /// by its copies and refilled when the view's pods differ.
  mutable std::shared_ptr<TaskOrderMemo> order_memo;
  bool valid() const { return id.valid(); }
};

}  // namespace sim::sched
