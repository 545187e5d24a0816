#pragma once
// Pod statuses as the scheduler sees them (pkg/scheduler/api/pod_status/pod_status.go) and the
// sets the rest of the code relies on (kai-scheduling.md section 0).

#include <string_view>

namespace sim::model {

enum class TaskStatus {
  PENDING,
  GATED,
  ALLOCATED,  ///< only inside a session
  PIPELINED,  ///< only inside a session: waits for releasing resources
  BINDING,    ///< a usable BindRequest exists
  BOUND,      ///< spec.nodeName set, not running yet
  RUNNING,
  RELEASING,  ///< deleted (or evicted in this session), resources not yet free
  STUCK_IN_RELEASING,
  SUCCEEDED,
  FAILED,
  UNKNOWN,
  DELETED,  ///< gone from the API server (kaisim replay keeps the record for reports)
};

/// Pending, Gated, Allocated, Pipelined, Binding, Bound, Running (not Releasing).
bool is_alive(TaskStatus s);
/// Allocated, Pipelined, Binding, Bound, Running.
bool is_active_allocated(TaskStatus s);
/// Active-allocated plus Releasing and StuckInReleasing: the task occupies node resources.
bool is_active_used(TaskStatus s);
/// Allocated, Binding, Bound, Running (AllocatedStatus): counts as queue "allocated".
bool is_allocated(TaskStatus s);

std::string_view to_string(TaskStatus s);

}  // namespace sim::model
