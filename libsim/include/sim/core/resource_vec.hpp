#pragma once
// Resource quantities as a fixed-layout Eigen array with named indices (style guide rule 3).

#include <Eigen/Core>
#include <array>
#include <string_view>

namespace sim {

/// Resources that queues have quota for, in KAI's `AllResources` order (CPU, Memory, GPU).
/// GPU_MEMORY is room for GPU-memory requests; it has no queue quota.
enum class Resource : int { CPU = 0, MEMORY = 1, GPU = 2, GPU_MEMORY = 3 };

inline constexpr int kResourceCount = 4;
/// The three resources that carry quota, limit, weight and fair share, in KAI's order.
inline constexpr std::array<Resource, 3> kQuotaResources = {Resource::CPU, Resource::MEMORY,
                                                            Resource::GPU};

/// CPU in millicores, memory in bytes, GPU in devices (fractions allowed), GPU memory in MiB.
using ResourceVec = Eigen::Array<double, kResourceCount, 1>;

constexpr int index_of(Resource r) { return static_cast<int>(r); }
inline double& at(ResourceVec& v, Resource r) { return v[index_of(r)]; }
inline double at(const ResourceVec& v, Resource r) { return v[index_of(r)]; }

/// Lower-case name used in output keys: "cpu", "memory", "gpu", "gpu-memory".
std::string_view resource_name(Resource r);

/// KAI's "unlimited" marker for quota and limit (pkg/common/constants UnlimitedResourceQuantity).
inline constexpr double kUnlimited = -1.0;

}  // namespace sim
