// KAI's dynamicresources plugin (plugins/dynamicresources/dynamicresources.go) with the device
// choice of Kubernetes' structured allocator reduced to what kaisim models: requests for a count
// of devices (or all of them) of a device class, devices taken in ResourceSlice order.

#include "dra.hpp"

#include <algorithm>
#include <set>

namespace sim::sched {
namespace {

using model::DraDevice;
using model::ResourceClaim;

constexpr const char* kQueueLabel = "kai.scheduler/queue";  // SchedulerParams.QueueLabelKey default

const model::DeviceClass* find_class(const Session& ssn, const std::string& name) {
  for (const model::DeviceClass& c : ssn.state.device_classes) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

// GatherAllocatedState: every device some claim holds.
std::set<std::tuple<std::string, std::string, std::string>> allocated_devices(const Session& ssn) {
  std::set<std::tuple<std::string, std::string, std::string>> out;
  for (const ResourceClaim& c : ssn.state.claims) {
    if (!c.allocation) continue;
    for (const DraDevice& d : c.allocation->devices) out.emplace(d.driver, d.pool, d.name);
  }
  return out;
}

// The devices the node can reach (its slices and the all-node ones), in slice order.
std::vector<std::pair<DraDevice, bool>> devices_on(const Session& ssn, const model::Node& node) {
  std::vector<std::pair<DraDevice, bool>> out;  // device, node-local
  for (const model::DraSlice& s : ssn.state.resource_slices) {
    if (!s.all_nodes && s.node != node.name) continue;
    for (const std::string& d : s.devices) out.push_back({DraDevice{s.driver, s.pool, d}, !s.all_nodes});
  }
  return out;
}

// Allocate: devices for every request of `claims` on `node`, none taken twice. Returns false
// when some request cannot be met; `results` then holds what was chosen so far.
bool choose_devices(const Session& ssn, const model::Node& node, const std::vector<const ResourceClaim*>& claims,
                    std::vector<std::vector<DraDevice>>& results, std::vector<bool>& node_local) {
  auto taken = allocated_devices(ssn);
  const auto reachable = devices_on(ssn, node);
  for (const ResourceClaim* claim : claims) {
    results.emplace_back();
    node_local.push_back(false);
    for (const model::DraRequest& r : claim->requests) {
      const model::DeviceClass* cls = find_class(ssn, r.device_class);
      if (!cls) return false;
      std::int64_t got = 0;
      for (const auto& [device, local] : reachable) {
        if (!r.all && got == r.count) break;
        if (!cls->matches(device) || taken.contains({device.driver, device.pool, device.name})) continue;
        taken.emplace(device.driver, device.pool, device.name);
        results.back().push_back(device);
        node_local.back() = node_local.back() || local;
        ++got;
      }
      if (r.all ? got == 0 : got < r.count) return false;
    }
  }
  return true;
}

}  // namespace

std::string dra_pre_filter(const Session& ssn, const model::Task& task) {
  if (task.claims.empty()) return {};
  const std::string pod = task.ns + "/" + task.name;
  for (const model::PodClaim& pc : task.claims) {
    if (pc.claim < 0) return "failed to get resource claim " + task.ns + "/" + pc.claim_name;
    const ResourceClaim& claim = ssn.state.claims[static_cast<std::size_t>(pc.claim)];
    if (claim.reserved_for.size() >= model::kClaimMaxConsumers) {
      return "resource claim " + task.ns + "/" + claim.name + " has reached its maximum number of consumers (" +
             std::to_string(model::kClaimMaxConsumers) + ")";
    }
    // validateSharedGpuClaimQueueLabel: a GPU claim shared by pods must name the pod's queue.
    if (!pc.from_template && claim.is_gpu_claim()) {
      const std::string& queue = ssn.state.jobs[task.job].queue_name;
      auto label = claim.labels.find(kQueueLabel);
      if (label == claim.labels.end() || label->second.empty()) {
        return "pod " + pod + " cannot be scheduled: DRA claim " + claim.name +
               " is a shared GPU claim but does not have a queue label (" + kQueueLabel + ")";
      }
      if (label->second != queue) {
        return "pod " + pod + " cannot be scheduled: DRA claim " + claim.name +
               " is a shared GPU claim with wrong queue label (expected queue: " + queue +
               ", claim queue label: " + label->second + ")";
      }
    }
    if (claim.allocation) continue;
    for (const model::DraRequest& r : claim.requests) {
      if (!find_class(ssn, r.device_class)) {
        return "device class " + r.device_class + " does not exist for claim " + task.ns + "/" + claim.name +
               " request " + r.name;
      }
    }
  }
  return {};
}

std::string dra_filter(const Session& ssn, const model::Task& task, const model::Node& node) {
  std::vector<const ResourceClaim*> to_allocate;
  for (const model::PodClaim& pc : task.claims) {
    if (pc.claim < 0) return "failed to get resource claim " + task.ns + "/" + pc.claim_name;
    const ResourceClaim& claim = ssn.state.claims[static_cast<std::size_t>(pc.claim)];
    if (claim.allocation) {
      if (!claim.allocation->node.empty() && claim.allocation->node != node.name) {
        return "claim " + claim.ns + "/" + claim.name + " node selector does not match node " + node.name;
      }
      continue;
    }
    to_allocate.push_back(&claim);
  }
  if (to_allocate.empty()) return {};
  std::vector<std::vector<DraDevice>> results;
  std::vector<bool> local;
  if (!choose_devices(ssn, node, to_allocate, results, local)) return "cannot allocate DRA claims on node " + node.name;
  return {};
}

void dra_allocate(Session& ssn, TaskId id) {
  model::Task& task = ssn.state.tasks[id];
  if (task.claims.empty() || !task.node.valid()) return;
  const model::Node& node = ssn.state.nodes[task.node];
  for (const model::PodClaim& pc : task.claims) {
    if (pc.claim < 0) continue;  // KAI logs the missing claim and goes on
    ResourceClaim& claim = ssn.state.claims[static_cast<std::size_t>(pc.claim)];
    if (std::find(claim.reserved_for.begin(), claim.reserved_for.end(), task.uid) == claim.reserved_for.end()) {
      claim.reserved_for.push_back(task.uid);  // UpsertReservedFor
    }
    // A claim this pod held before (its eviction was virtual) gets the same devices back.
    auto memory = task.claim_memory.find(pc.name);
    if (memory != task.claim_memory.end() && memory->second) claim.allocation = memory->second;
    if (!claim.allocation) {
      std::vector<std::vector<DraDevice>> results;
      std::vector<bool> local;
      if (!choose_devices(ssn, node, {&claim}, results, local)) continue;  // KAI logs the failure
      claim.allocation = model::DraAllocation{results.front(), local.front() ? node.name : std::string()};
    }
    task.claim_memory[pc.name] = claim.allocation;
  }
}

void dra_deallocate(Session& ssn, TaskId id) {
  model::Task& task = ssn.state.tasks[id];
  for (const model::PodClaim& pc : task.claims) {
    if (pc.claim < 0) continue;
    ResourceClaim& claim = ssn.state.claims[static_cast<std::size_t>(pc.claim)];
    std::erase(claim.reserved_for, task.uid);  // RemoveReservedFor
    if (claim.reserved_for.empty()) claim.allocation.reset();
    auto memory = task.claim_memory.find(pc.name);
    if (memory != task.claim_memory.end()) memory->second = claim.allocation;
  }
}

}  // namespace sim::sched
