#pragma once
// Resource quantities as a fixed-layout Eigen array with named indices (style guide rule 3).

#include <Eigen/Core>
#include <array>
#include <string_view>

namespace sim {

/// Resources that queues have quota for, in KAI's `AllResources` order (CPU, Memory, GPU), then
/// the pod count a node allows. GPU memory and MIG profiles travel beside the vector
/// (GpuRequirement, Scalars) because they are per device, not per node.
enum class Resource : int { CPU = 0, MEMORY = 1, GPU = 2, PODS = 3 };

inline constexpr int kResourceCount = 4;
/// The three resources that carry quota, limit, weight and fair share, in KAI's order.
inline constexpr std::array<Resource, 3> kQuotaResources = {Resource::CPU, Resource::MEMORY,
                                                            Resource::GPU};

/// CPU in millicores, memory in bytes, GPU in devices (fractions allowed), pods as a count.
using ResourceVec = Eigen::Array<double, kResourceCount, 1>;

/// True when every entry of `a` is <= the matching entry of `b` (KAI ResourceVector.LessEqual).
inline bool less_equal(const ResourceVec& a, const ResourceVec& b) { return (a <= b).all(); }

constexpr int index_of(Resource r) { return static_cast<int>(r); }
inline double& at(ResourceVec& v, Resource r) { return v[index_of(r)]; }
inline double at(const ResourceVec& v, Resource r) { return v[index_of(r)]; }

/// Lower-case name used in output keys: "cpu", "memory", "gpu", "pods". Inline: a node's fit
/// check names each resource a pod lacks, tens of millions of times in one large cycle.
constexpr std::string_view resource_name(Resource r) {
  switch (r) {
    case Resource::CPU:
      return "cpu";
    case Resource::MEMORY:
      return "memory";
    case Resource::GPU:
      return "gpu";
    case Resource::PODS:
      return "pods";
  }
  return "?";
}

/// KAI's "unlimited" marker for quota and limit (pkg/common/constants UnlimitedResourceQuantity).
inline constexpr double kUnlimited = -1.0;

}  // namespace sim
