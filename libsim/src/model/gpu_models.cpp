#include "sim/model/gpu_models.hpp"

namespace sim::model {

// Memory is the total nvidia-smi and the GPU Operator report, in MiB. MIG profiles and their
// slices are those of NVIDIA's MIG user guide. KAI counts an instance of profile "Ng.*" as N GPUs
// in queue accounting (GetGpusQuota; GpuRequirement::gpus_quota here).
const std::vector<GpuModel>& gpu_models() {
  static const std::vector<GpuModel> models{
      {"A100-40GB",
       40960,
       7,
       8,
       {{"1g.5gb", 1, 1, 7},
        {"1g.10gb", 1, 2, 4},
        {"2g.10gb", 2, 2, 3},
        {"3g.20gb", 3, 4, 2},
        {"4g.20gb", 4, 4, 1},
        {"7g.40gb", 7, 8, 1}}},
      {"A100-80GB",
       81920,
       7,
       8,
       {{"1g.10gb", 1, 1, 7},
        {"1g.20gb", 1, 2, 4},
        {"2g.20gb", 2, 2, 3},
        {"3g.40gb", 3, 4, 2},
        {"4g.40gb", 4, 4, 1},
        {"7g.80gb", 7, 8, 1}}},
      {"H100-80GB",
       81559,
       7,
       8,
       {{"1g.10gb", 1, 1, 7},
        {"1g.20gb", 1, 2, 4},
        {"2g.20gb", 2, 2, 3},
        {"3g.40gb", 3, 4, 2},
        {"4g.40gb", 4, 4, 1},
        {"7g.80gb", 7, 8, 1}}},
      {"H200-141GB",
       143771,
       7,
       8,
       {{"1g.18gb", 1, 1, 7},
        {"1g.35gb", 1, 2, 4},
        {"2g.35gb", 2, 2, 3},
        {"3g.71gb", 3, 4, 2},
        {"4g.71gb", 4, 4, 1},
        {"7g.141gb", 7, 8, 1}}},
      {"L40S", 46068, 0, 0, {}},
      {"RTX-PRO-6000",
       97887,
       4,
       4,
       {{"1g.24gb", 1, 1, 4}, {"2g.48gb", 2, 2, 2}, {"4g.96gb", 4, 4, 1}}},
  };
  return models;
}

const MigProfile* GpuModel::profile(std::string_view profile_name) const {
  for (const MigProfile& p : mig_profiles) {
    if (p.name == profile_name) return &p;
  }
  return nullptr;
}

const GpuModel* find_gpu_model(std::string_view name) {
  for (const GpuModel& m : gpu_models()) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

std::string gpu_model_names(bool mig_only) {
  std::string out;
  for (const GpuModel& m : gpu_models()) {
    if (mig_only && !m.mig_capable()) continue;
    out += (out.empty() ? "" : ", ") + m.name;
  }
  return out;
}

}  // namespace sim::model
