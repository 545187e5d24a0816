#pragma once
// NUMA zones of a node as its NodeResourceTopology reports them (KAI
// api/node_info/numa_topology.go) and the alignment units of a pod (plugins/numa/requests.go).
// Amounts are Kubernetes quantities in milli-units ("2" cpu is 2000, "1Gi" memory is
// 1073741824000), keyed by resource name.

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace sim::model {

using Amounts = std::map<std::string, std::int64_t>;

/// a + b, held at the int64 limits instead of overflowing (amounts come from user input).
inline std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (!__builtin_add_overflow(a, b, &out)) return out;
  return b > 0 ? INT64_MAX : INT64_MIN;
}

/// The kubelet Topology Manager policy of a node.
enum class NumaPolicy { NONE, BEST_EFFORT, RESTRICTED, SINGLE_NUMA_NODE };

struct NumaZone {
  std::string id;  ///< the NRT zone name, e.g. "node-0"
  Amounts allocatable;
  Amounts available;
};

struct NumaTopology {
  NumaPolicy policy = NumaPolicy::NONE;
  bool pod_scope = false;           ///< Topology Manager scope pod (else container)
  std::vector<NumaZone> zones;      ///< by ascending NUMA node id (the name's numeric suffix)
  std::set<std::string> resources;  ///< resources some zone reports
};

/// BuildNumaTopology's last steps: zones by ascending NUMA node id (the trailing number of the
/// zone name; numbered zones first, then by name), and the set of resources the zones report.
void finish_numa_topology(NumaTopology& topology);

/// What the kubelet aligns for a pod: the whole pod under pod scope; under container scope the
/// app containers and native sidecars (running together) and each ordinary init container alone.
struct NumaUnits {
  Amounts pod;
  std::vector<Amounts> concurrent;
  std::vector<Amounts> serial;
};

/// A pod's amounts in one zone: by zone index in a session (placement), by zone id when
/// persisted (annotations, BindRequests).
struct ZoneAmounts {
  int zone = -1;
  std::string zone_id;
  Amounts amount;
  bool operator==(const ZoneAmounts&) const = default;
};

}  // namespace sim::model
