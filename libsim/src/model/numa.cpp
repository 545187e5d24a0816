#include "sim/model/numa.hpp"

#include <algorithm>
#include <optional>

namespace sim::model {
namespace {

// numaNodeID: the trailing decimal number of a zone name such as "node-3".
std::optional<long long> node_number(const std::string& name) {
  std::size_t start = name.size();
  while (start > 0 && name[start - 1] >= '0' && name[start - 1] <= '9') --start;
  if (start == name.size() || name.size() - start > 18) return std::nullopt;
  return std::stoll(name.substr(start));
}

}  // namespace

void finish_numa_topology(NumaTopology& topology) {
  // numa_topology.go sortZones: the kubelet prefers the lowest NUMA node among equal hints.
  std::stable_sort(topology.zones.begin(), topology.zones.end(),
                   [](const NumaZone& a, const NumaZone& b) {
                     const std::optional<long long> x = node_number(a.id), y = node_number(b.id);
                     if (x && y && *x != *y) return *x < *y;
                     if (x.has_value() != y.has_value()) return x.has_value();
                     return a.id < b.id;
                   });
  topology.resources.clear();
  for (const NumaZone& z : topology.zones) {
    for (const auto& [name, amount] : z.available) topology.resources.insert(name);
  }
}

}  // namespace sim::model
