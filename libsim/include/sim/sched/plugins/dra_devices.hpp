#pragma once
// The DRA devices a session works with, indexed for the dynamicresources plugin's per-node filter:
// which devices each node reaches (its ResourceSlices and the all-node ones) and which devices
// claims hold. A pod is checked against every node, so both are built once; the held devices
// follow each claim's allocation as the plugin changes it.

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "sim/model/cluster.hpp"

namespace sim::sched {

class DraDevices {
 public:
  using Key = std::tuple<std::string, std::string, std::string>;  ///< driver, pool, device
  /// A device, the slice entry selectors read, and whether it comes from a slice of the node itself
  /// (not an all-node slice).
  struct Reachable {
    model::DraDevice device;
    const model::SliceDevice* source;
    bool local;
  };

  /// GatherAllocatedState: the devices the claims of `state` hold.
  explicit DraDevices(const model::ClusterState& state);

  /// The devices `node` can reach, in slice order.
  const std::vector<Reachable>& on(const model::Node& node) const;
  /// Whether some claim holds the device.
  bool held(const Key& device) const { return held_.contains(device); }
  /// Sets a claim's allocation, keeping the held devices in step.
  void set_allocation(model::ResourceClaim& claim, std::optional<model::DraAllocation> allocation);

  /// Device -> claims holding it, as kept in step, and as counted afresh from `state`'s claims (the
  /// invariant checker compares the two).
  const std::map<Key, int>& held_counts() const { return held_; }
  static std::map<Key, int> count_held(const model::ClusterState& state);

 private:
  const model::ClusterState& state_;
  // Filled per node on first use, behind a const query: a session runs on one thread.
  mutable std::unordered_map<std::string, std::vector<Reachable>> on_node_;
  std::map<Key, int> held_;  // device -> claims holding it (more than one only in odd input)
};

}  // namespace sim::sched
