#pragma once
// Private: what the numa plugin reads (KAI api/node_info/numa_topology.go, plugins/numa): a
// node's NodeResourceTopology (topology.node.k8s.io/v1alpha2), a pod's QoS class and alignment
// units, and persisted placements (annotations, BindRequest spec.predictedNUMAZones).

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "io/yaml_field.hpp"
#include "sim/model/numa.hpp"

namespace sim::io {

/// BuildNumaTopology: the node's name and its NUMA-node zones; nullopt when it reports none.
std::optional<std::pair<std::string, model::NumaTopology>> read_node_resource_topology(
    const Field& obj);

/// A pod's QoS class as the API server sets it (status.qosClass, else computed from its
/// containers' cpu and memory requests and limits) is Guaranteed.
bool is_guaranteed(const Field& pod);

/// requestUnits: the pod's requests as a whole and per container (every resource, milli-units).
model::NumaUnits read_numa_units(const Field& spec);

/// A BindRequest's [{zone, amount}] list; nullopt when absent or empty. Throws InputError on a
/// value of the wrong shape.
std::optional<std::vector<model::ZoneAmounts>> read_numa_record(const Field& list);
/// The same list as an annotation's JSON text; nullopt also when malformed (KAI ignores it).
std::optional<std::vector<model::ZoneAmounts>> parse_numa_annotation(const std::string& text);

}  // namespace sim::io
