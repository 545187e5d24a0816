#pragma once
// A job as the scheduler's algorithms see it: KAI often works on partial clones of a PodGroup (a
// victim job minus the pods already taken, a reclaimer holding only the pods of one probe); a
// JobView is that. Pods are shared with the session, so status changes are seen through every
// view.

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "sim/core/resource_vec.hpp"
#include "sim/model/subgroups.hpp"
#include "sim/model/task.hpp"

namespace sim::sched {

/// What the job orders worked out for a view (tasks_to_allocate_quantities and
/// allocated_quantities in job_order.hpp, min_available_state in gang.hpp), keyed by everything
/// they read that can change within a session: the view's pods and tree, and each pod's status. The
/// job orders ask at every heap comparison, mostly of views that have not changed. The views that
/// share a memo (copies of one view, full views of one job) hold the same pods.
struct AllocationMemo {
  const void* session = nullptr;
  const model::SubGroupTree* groups = nullptr;
  std::vector<TaskId> tasks;
  std::vector<std::uint8_t> states;  ///< per pod: status, and 0x80 when virtual
  /// The session's status epoch when the memo was last found to hold: while no pod of the job
  /// has changed since (Session::job_status_epoch), it holds without reading the pods again.
  std::uint64_t epoch = 0;
  /// The answers for that key, each worked out when first asked for.
  std::optional<ResourceVec> quantities;
  std::optional<ResourceVec> allocated;
  std::optional<int> min_state;
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
