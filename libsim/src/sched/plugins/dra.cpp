// KAI's dynamicresources plugin (plugins/dynamicresources/dynamicresources.go) with the device
// choice of Kubernetes' structured allocator reduced to what kaisim models: requests for a count
// of devices (or all of them) of a device class, filtered by the class's and the request's CEL
// selectors, devices taken in ResourceSlice order.

#include "dra.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include "builders.hpp"
#include "device_selector.hpp"

namespace sim::sched {
namespace {

using model::DraDevice;
using model::ResourceClaim;

const model::DeviceClass* find_class(const Session& ssn, const std::string& name) {
  for (const model::DeviceClass& c : ssn.state.device_classes) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

// Allocate: devices for every request of `claims` on `node`, none taken twice, as the structured
// allocator finds them: requests in order, each device slot trying the free matching devices in
// slice order and backtracking when a later slot finds none; an `All` request takes every matching
// device and needs each one free. The search is bounded (a few thousand steps per request is
// plenty for real nodes); giving up counts as no fit.
class DeviceSearch {
 public:
  DeviceSearch(const Session& ssn, const DraDevices& devices, const model::Node& node,
               const std::vector<const ResourceClaim*>& claims)
      : devices_(devices), reachable_(devices.on(node)) {
    for (std::size_t c = 0; c < claims.size(); ++c) {
      for (const model::DraRequest& r : claims[c]->requests) {
        if (!r.refused.empty()) {
          error_ = "claim " + claims[c]->ns + "/" + claims[c]->name + ", request " + r.name + ": " +
                   r.refused;
          feasible_ = false;
          return;
        }
        const model::DeviceClass* cls = find_class(ssn, r.device_class);
        if (!cls) {
          feasible_ = false;
          return;
        }
        std::vector<std::size_t> candidates;
        for (std::size_t d = 0; d < reachable_.size(); ++d) {
          if (selected(*cls, r, reachable_[d])) candidates.push_back(d);
        }
        if (!error_.empty()) {
          feasible_ = false;
          return;
        }
        if (r.all) {  // every matching device, each free
          if (candidates.empty()) feasible_ = false;
          for (std::size_t d : candidates) {
            if (is_taken(d)) feasible_ = false;
          }
          fixed_.push_back({c, candidates});
        } else {
          for (std::int64_t k = 0; k < r.count; ++k) slots_.push_back({c, candidates});
        }
      }
    }
    claims_ = claims.size();
  }

  /// A CEL runtime error of a selector, which fails the search (empty: none).
  const std::string& error() const { return error_; }

  /// The devices of each claim and whether one of them is node-local; nullopt if none fit.
  std::optional<std::vector<std::pair<std::vector<DraDevice>, bool>>> run() {
    if (!feasible_) return std::nullopt;
    for (const auto& [claim, devices] : fixed_) {
      for (std::size_t d : devices) taken_.insert(key(d));
    }
    chosen_.assign(slots_.size(), 0);
    if (!fill(0)) return std::nullopt;
    std::vector<std::pair<std::vector<DraDevice>, bool>> out(claims_);
    auto add = [&](std::size_t claim, std::size_t d) {
      out[claim].first.push_back(reachable_[d].device);
      out[claim].second = out[claim].second || reachable_[d].local;
    };
    for (const auto& [claim, devices] : fixed_) {
      for (std::size_t d : devices) add(claim, d);
    }
    for (std::size_t i = 0; i < slots_.size(); ++i) add(slots_[i].first, chosen_[i]);
    return out;
  }

 private:
  using Key = DraDevices::Key;
  Key key(std::size_t d) const {
    const DraDevice& dev = reachable_[d].device;
    return {dev.driver, dev.pool, dev.name};
  }
  // The class's selectors, then the request's (structured allocator selectorsMatch); the first
  // runtime error ends the search.
  bool selected(const model::DeviceClass& cls, const model::DraRequest& r,
                const DraDevices::Reachable& d) {
    for (const auto* selectors : {&cls.selectors, &r.selectors}) {
      for (std::size_t i = 0; i < selectors->size(); ++i) {
        const SelectorOutcome o = evaluate((*selectors)[i], d.device.driver, *d.source);
        if (!o.error.empty() && error_.empty()) {
          error_ = (selectors == &cls.selectors ? "class " + cls.name : "request " + r.name) +
                   ": selector #" + std::to_string(i) + ": CEL runtime error: " + o.error;
        }
        if (!o.matches) return false;
      }
    }
    return true;
  }
  bool is_taken(std::size_t d) const {
    const Key k = key(d);
    return devices_.held(k) || taken_.contains(k);
  }
  bool fill(std::size_t slot) {
    if (slot == slots_.size()) return true;
    for (std::size_t d : slots_[slot].second) {
      if (++steps_ > kMaxSteps) return false;
      if (is_taken(d)) continue;
      taken_.insert(key(d));
      chosen_[slot] = d;
      if (fill(slot + 1)) return true;
      taken_.erase(key(d));
    }
    return false;
  }

  static constexpr std::size_t kMaxSteps = 100'000;
  const DraDevices& devices_;  // held by claims before this search
  std::set<Key> taken_;        // by this search
  const std::vector<DraDevices::Reachable>& reachable_;
  std::vector<std::pair<std::size_t, std::vector<std::size_t>>> slots_;  // claim, candidate devices
  std::vector<std::pair<std::size_t, std::vector<std::size_t>>> fixed_;  // `All` requests
  std::vector<std::size_t> chosen_;
  std::size_t claims_ = 0;
  std::size_t steps_ = 0;
  bool feasible_ = true;
  std::string error_;
};

}  // namespace

std::string dra_pre_filter(const Session& ssn, const model::Task& task) {
  if (task.devices->claims.empty()) return {};
  const std::string pod = task.ns + "/" + task.name;
  for (const model::PodClaim& pc : task.devices->claims) {
    if (pc.claim < 0) return "failed to get resource claim " + task.ns + "/" + pc.claim_name;
    const ResourceClaim& claim = ssn.state.claims[static_cast<std::size_t>(pc.claim)];
    if (claim.reserved_for.size() >= model::kClaimMaxConsumers) {
      return "resource claim " + task.ns + "/" + claim.name +
             " has reached its maximum number of consumers (" +
             std::to_string(model::kClaimMaxConsumers) + ")";
    }
    // validateSharedGpuClaimQueueLabel: a GPU claim shared by pods must name the pod's queue.
    if (!pc.from_template && claim.is_gpu_claim()) {
      const std::string& queue = ssn.state.jobs[task.job].queue_name;
      const std::string& key = ssn.config.queue_label_key;  // SchedulerParams.QueueLabelKey
      auto label = claim.labels.find(key);
      if (label == claim.labels.end() || label->second.empty()) {
        return "pod " + pod + " cannot be scheduled: DRA claim " + claim.name +
               " is a shared GPU claim but does not have a queue label (kai.scheduler/queue)";
      }
      if (label->second != queue) {
        return "pod " + pod + " cannot be scheduled: DRA claim " + claim.name +
               " is a shared GPU claim with wrong queue label (expected queue: " + queue +
               ", claim queue label: " + label->second + ")";
      }
    }
    if (claim.allocation) continue;
    for (const model::DraRequest& r : claim.requests) {
      if (r.first_available) continue;  // only `exactly` requests name a class here
      if (!find_class(ssn, r.device_class)) {
        return "device class " + r.device_class + " does not exist for claim " + task.ns + "/" +
               claim.name + " request " + r.name;
      }
    }
  }
  return {};
}

std::string dra_filter(const Session& ssn, const DraDevices& devices, const model::Task& task,
                       const model::Node& node) {
  std::vector<const ResourceClaim*> to_allocate;
  for (const model::PodClaim& pc : task.devices->claims) {
    if (pc.claim < 0) return "failed to get resource claim " + task.ns + "/" + pc.claim_name;
    const ResourceClaim& claim = ssn.state.claims[static_cast<std::size_t>(pc.claim)];
    if (claim.allocation) {
      if (!claim.allocation->node.empty() && claim.allocation->node != node.name) {
        return "claim " + claim.ns + "/" + claim.name + " node selector does not match node " +
               node.name;
      }
      continue;
    }
    to_allocate.push_back(&claim);
  }
  if (to_allocate.empty()) return {};
  DeviceSearch search(ssn, devices, node, to_allocate);
  if (!search.run()) {
    return "cannot allocate DRA claims on node " + node.name +
           (search.error().empty() ? "" : ": " + search.error());
  }
  return {};
}

void dra_allocate(Session& ssn, DraDevices& held_devices, TaskId id) {
  model::Task& task = ssn.state.tasks[id];
  if (task.devices->claims.empty() || !task.node.valid()) return;
  const model::Node& node = ssn.state.nodes[task.node];
  for (const model::PodClaim& pc : task.devices->claims) {
    if (pc.claim < 0) continue;  // KAI logs the missing claim and goes on
    ResourceClaim& claim = ssn.state.claims[static_cast<std::size_t>(pc.claim)];
    // A claim this pod held before (its eviction was virtual) gets the same devices back.
    std::optional<model::DraAllocation> allocation = claim.allocation;
    const auto& held = task.devices->claim_memory;
    auto memory = held.find(pc.name);
    if (memory != held.end() && memory->second) allocation = memory->second;
    if (!allocation) {
      const auto found = DeviceSearch(ssn, held_devices, node, {&claim}).run();
      if (!found) continue;  // KAI logs the failure and leaves the claim as it was
      allocation = model::DraAllocation{found->front().first,
                                        found->front().second ? node.name : std::string()};
    }
    // AssumeClaimAfterAPICall: reserved and allocated together, once the allocation is known.
    if (std::find(claim.reserved_for.begin(), claim.reserved_for.end(), task.uid) ==
        claim.reserved_for.end()) {
      claim.reserved_for.push_back(task.uid);  // UpsertReservedFor
    }
    held_devices.set_allocation(claim, allocation);
    task.devices.edit().claim_memory[pc.name] = claim.allocation;
  }
}

void dra_deallocate(Session& ssn, DraDevices& held_devices, TaskId id) {
  model::Task& task = ssn.state.tasks[id];
  for (const model::PodClaim& pc : task.devices->claims) {
    if (pc.claim < 0) continue;
    ResourceClaim& claim = ssn.state.claims[static_cast<std::size_t>(pc.claim)];
    std::erase(claim.reserved_for, task.uid);  // RemoveReservedFor
    if (claim.reserved_for.empty()) held_devices.set_allocation(claim, std::nullopt);
    auto& held = task.devices.edit().claim_memory;  // it has claims, so it is present
    auto memory = held.find(pc.name);
    if (memory != held.end()) memory->second = claim.allocation;
  }
}

const std::vector<DraDevices::Reachable>& DraDevices::on(const model::Node& node) const {
  auto [it, added] = on_node_.try_emplace(node.name);
  if (added) {
    for (const model::DraSlice& s : state_.resource_slices) {
      if (!s.all_nodes && s.node != node.name) continue;
      for (const model::SliceDevice& d : s.devices)
        it->second.push_back({DraDevice{s.driver, s.pool, d.name}, &d, !s.all_nodes});
    }
  }
  return it->second;
}

DraDevices::DraDevices(const model::ClusterState& state)
    : state_(state), held_(count_held(state)) {}

std::map<DraDevices::Key, int> DraDevices::count_held(const model::ClusterState& state) {
  std::map<Key, int> held;
  for (const ResourceClaim& c : state.claims) {
    if (!c.allocation) continue;
    for (const DraDevice& d : c.allocation->devices) ++held[{d.driver, d.pool, d.name}];
  }
  return held;
}

void DraDevices::set_allocation(ResourceClaim& claim,
                                std::optional<model::DraAllocation> allocation) {
  if (claim.allocation) {
    for (const DraDevice& d : claim.allocation->devices) {
      auto it = held_.find({d.driver, d.pool, d.name});
      if (it != held_.end() && --it->second == 0) held_.erase(it);
    }
  }
  claim.allocation = std::move(allocation);
  if (claim.allocation) {
    for (const DraDevice& d : claim.allocation->devices) ++held_[{d.driver, d.pool, d.name}];
  }
}

void DynamicResourcesPlugin::on_session_open(Session& ssn) {
  devices_.emplace(ssn.state);
  ssn.hooks.pre_predicates.push_back(
      [](Session& s, const model::Task& task) { return dra_pre_filter(s, task); });
  ssn.hooks.predicates.push_back([this](Session& s, TaskId id, NodeId node, std::string* why) {
    const model::Task& task = s.state.tasks[id];
    if (task.devices->claims.empty()) return true;
    std::string reason = dra_filter(s, *devices_, task, s.state.nodes[node]);
    if (reason.empty()) return true;
    if (why) *why = std::move(reason);
    return false;
  });
  // The allocate and deallocate event handlers: reserve or release the pod's claims.
  ssn.hooks.on_allocate.push_back([this](Session& s, const model::Task& task) {
    if (!task.devices->claims.empty()) dra_allocate(s, *devices_, task.id);
  });
  ssn.hooks.on_deallocate.push_back([this](Session& s, const model::Task& task) {
    if (!task.devices->claims.empty()) dra_deallocate(s, *devices_, task.id);
  });
  ssn.hooks.invariants.push_back(
      [this](const Session& s, const InvariantContext&, std::vector<std::string>& out) {
        if (devices_->held_counts() != DraDevices::count_held(s.state)) {
          out.push_back(
              "DRA: the session's held devices differ from those its claims' allocations name");
        }
      });
}

namespace plugins {
std::unique_ptr<Plugin> make_dynamicresources(const model::PluginOption&) {
  return std::make_unique<DynamicResourcesPlugin>();
}
}  // namespace plugins

}  // namespace sim::sched
