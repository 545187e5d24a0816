#pragma once
// A PodGroup (pkg/scheduler/api/podgroup_info): its queue, priority, gang minimum and pods.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/model/subgroups.hpp"
#include "sim/model/task.hpp"

namespace sim::model {

struct Job {
  std::string name;  ///< PodGroup name = its UID inside KAI
  std::string ns;
  QueueId queue = QueueId::invalid();
  std::string queue_name;
  int priority = 50;
  bool preemptible = true;
  /// Gang structure: PodSets and the sets above them. Shared and never changed once built.
  std::shared_ptr<const SubGroupTree> groups = SubGroupTree::single(1);
  std::int64_t created_ns = 0;
  std::optional<std::int64_t> last_start_ns;   ///< kai.scheduler/last-start-timestamp
  std::optional<std::int64_t> stale_since_ns;  ///< kai.scheduler/stale-podgroup-timestamp
  std::vector<TaskId> tasks;                   ///< in pod-creation order
  std::string problem;  ///< why the job can never run (e.g. its queue is missing)
};

}  // namespace sim::model
