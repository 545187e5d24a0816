#include "sim/sched/framework/node_misses.hpp"

#include <algorithm>

#include "sim/sched/framework/session.hpp"

namespace sim::sched {
namespace {

constexpr int kGpu = index_of(Resource::GPU);

// The most of one GPU free on the node for a shared-GPU pod: a whole idle GPU, else the free part
// of the emptiest shared GPU (gpu_sharing_node_info.go's allocated MiB per group).
double largest_free_portion(const model::Node& node) {
  if (node.non_allocated()[kGpu] >= 1) return 1;
  double best = 0;
  for (const auto& [group, mib] : node.allocated_shared_mib) {
    best = std::max(best, 1 - static_cast<double>(mib) / static_cast<double>(std::max<std::int64_t>(
                                                             node.gpu_memory_mib, 1)));
  }
  return std::max(best, 0.0);
}

// Free GPU on the node in the pod's terms: whole devices, or the summed free parts of its GPUs.
double total_free_portion(const model::Node& node) {
  double free = node.non_allocated()[kGpu];
  for (const auto& [group, mib] : node.allocated_shared_mib) {
    free += std::max(0.0, 1 - static_cast<double>(mib) / static_cast<double>(std::max<std::int64_t>(
                                                             node.gpu_memory_mib, 1)));
  }
  return free;
}

}  // namespace

std::string_view wait_cause_name(WaitCause cause) {
  switch (cause) {
    case WaitCause::OverLimit:
      return "OverLimit";
    case WaitCause::NonPreemptibleOverQuota:
      return "NonPreemptibleOverQuota";
    case WaitCause::OverQuota:
      return "OverQuota";
    case WaitCause::NotEnoughGpus:
      return "NotEnoughGpus";
    case WaitCause::NotEnoughGpuMemory:
      return "NotEnoughGpuMemory";
    case WaitCause::Fragmentation:
      return "Fragmentation";
    case WaitCause::NotEnoughResources:
      return "NotEnoughResources";
    case WaitCause::NodeRules:
      return "NodeRules";
    case WaitCause::Gang:
      return "Gang";
    case WaitCause::Topology:
      return "Topology";
    case WaitCause::Queue:
      return "Queue";
    case WaitCause::Other:
      break;
  }
  return "Other";
}

void NodeMisses::note(const Session& ssn, TaskId task_id, NodeId node_id) {
  const model::Task& task = ssn.state.tasks[task_id];
  const model::Node& node = ssn.state.nodes[node_id];
  ++nodes_;
  const std::vector<std::string> short_of = node.shortfalls(task, node.non_allocated(), true);
  if (short_of.empty()) {
    // A predicate refused the node; the first of them is the capacity check on the node.
    if (!capacity_) {
      if (CapacityVerdict over = ssn.task_on_node_over_capacity(task_id, node_id)) {
        capacity_ = std::move(over);
        return;
      }
    }
    ++ruled_out_;
    return;
  }
  const bool gpu = std::find(short_of.begin(), short_of.end(), "gpu") != short_of.end();
  if (!gpu) {
    ++short_other_;
    if (other_resource_.empty()) other_resource_ = short_of.front();
    return;
  }
  ++short_gpu_;
  if (task.is_fraction_candidate()) {
    requested_ = std::max(requested_, node.gpu_portion_of(task.gpu));
    largest_free_ = std::max(largest_free_, largest_free_portion(node));
    total_free_ += total_free_portion(node);
  } else {
    requested_ = std::max(requested_, static_cast<double>(task.gpu.count + task.gpu.dra));
    largest_free_ = std::max(largest_free_, node.non_allocated()[kGpu]);
    total_free_ += node.non_allocated()[kGpu];
  }
}

WaitReason NodeMisses::reason(const model::Task& task) const {
  WaitReason why;
  why.nodes = nodes_;
  if (short_gpu_ > 0) {
    why.resource = Resource::GPU;
    why.requested = requested_;
    why.largest_free = largest_free_;
    why.total_free = total_free_;
    if (total_free_ + 1e-9 >= requested_) {
      why.cause = WaitCause::Fragmentation;
    } else {
      why.cause =
          task.is_fraction_candidate() ? WaitCause::NotEnoughGpuMemory : WaitCause::NotEnoughGpus;
    }
  } else if (capacity_) {
    why = *capacity_;
    why.nodes = nodes_;
  } else if (short_other_ > 0) {
    why.cause = WaitCause::NotEnoughResources;
    why.short_resource = other_resource_;
  } else {
    why.cause = WaitCause::NodeRules;
  }
  why.shortage = why.cause;
  return why;
}

}  // namespace sim::sched
