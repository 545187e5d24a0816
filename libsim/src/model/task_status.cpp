#include "sim/model/task_status.hpp"

namespace sim::model {

bool is_active_allocated(TaskStatus s) {
  switch (s) {
    case TaskStatus::ALLOCATED:
    case TaskStatus::PIPELINED:
    case TaskStatus::BINDING:
    case TaskStatus::BOUND:
    case TaskStatus::RUNNING:
      return true;
    default:
      return false;
  }
}

bool is_alive(TaskStatus s) {
  return s == TaskStatus::PENDING || s == TaskStatus::GATED || is_active_allocated(s);
}

bool is_active_used(TaskStatus s) {
  return is_active_allocated(s) || s == TaskStatus::RELEASING ||
         s == TaskStatus::STUCK_IN_RELEASING;
}

bool is_allocated(TaskStatus s) {
  switch (s) {
    case TaskStatus::ALLOCATED:
    case TaskStatus::BINDING:
    case TaskStatus::BOUND:
    case TaskStatus::RUNNING:
      return true;
    default:
      return false;
  }
}

std::string_view to_string(TaskStatus s) {
  switch (s) {
    case TaskStatus::PENDING:
      return "Pending";
    case TaskStatus::GATED:
      return "Gated";
    case TaskStatus::ALLOCATED:
      return "Allocated";
    case TaskStatus::PIPELINED:
      return "Pipelined";
    case TaskStatus::BINDING:
      return "Binding";
    case TaskStatus::BOUND:
      return "Bound";
    case TaskStatus::RUNNING:
      return "Running";
    case TaskStatus::RELEASING:
      return "Releasing";
    case TaskStatus::STUCK_IN_RELEASING:
      return "StuckInReleasing";
    case TaskStatus::SUCCEEDED:
      return "Succeeded";
    case TaskStatus::FAILED:
      return "Failed";
    case TaskStatus::UNKNOWN:
      return "Unknown";
    case TaskStatus::DELETED:
      return "Deleted";
  }
  return "Unknown";
}

}  // namespace sim::model
