#pragma once
// GPU device models kaisim knows by name: the memory the GPU Operator reports in the node label
// `nvidia.com/gpu.memory` (MiB), and for MIG-capable models the MIG profiles with the slices each
// instance takes. Data only; KAI itself reads the node's labels and allocatable resources, so
// this table is how a scenario says "a node of this model" without writing those out.

#include <string>
#include <string_view>
#include <vector>

namespace sim::model {

struct MigProfile {
  std::string name;        ///< e.g. "1g.5gb"; the resource is nvidia.com/mig-<name>
  int compute_slices = 0;  ///< GPU instance compute slices it takes (the leading "Ng")
  int memory_slices = 0;   ///< memory slices it takes
  int max_instances = 0;   ///< most instances of this profile one GPU can hold
};

struct GpuModel {
  std::string name;  ///< kaisim's name, e.g. "A100-40GB"
  int memory_mib = 0;
  int compute_slices = 0;  ///< 0: no MIG
  int memory_slices = 0;
  std::vector<MigProfile> mig_profiles;

  bool mig_capable() const { return !mig_profiles.empty(); }
  const MigProfile* profile(std::string_view profile_name) const;
};

/// Every known model, in name order.
const std::vector<GpuModel>& gpu_models();
/// The model called `name`, or nullptr.
const GpuModel* find_gpu_model(std::string_view name);
/// "A100-40GB, A100-80GB, ..." for messages.
std::string gpu_model_names(bool mig_only = false);

}  // namespace sim::model
