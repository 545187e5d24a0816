// The GPU model table: memory labels, and MIG profiles that fit their GPU; what a MIG resource
// name counts against quota.

#include "sim/model/gpu_models.hpp"

#include <catch2/catch.hpp>

#include "sim/model/gpu_requirement.hpp"

TEST_CASE(
    "every MIG profile fits its GPU at its maximum instance count and counts its compute slices as "
    "GPUs") {
  for (const sim::model::GpuModel& m : sim::model::gpu_models()) {
    CAPTURE(m.name);
    CHECK(m.memory_mib > 0);
    for (const sim::model::MigProfile& p : m.mig_profiles) {
      CAPTURE(p.name);
      CHECK(p.compute_slices * p.max_instances <= m.compute_slices);
      CHECK(p.memory_slices * p.max_instances <= m.memory_slices);
      // The profile name's leading "Ng" is what KAI counts against quota (GetGpusQuota).
      CHECK(sim::model::mig_profile_gpus("nvidia.com/mig-" + p.name) == p.compute_slices);
    }
  }
}

TEST_CASE("the runbook's L40S has no MIG: the A100 40GB splits into seven 1g.5gb instances") {
  const sim::model::GpuModel* l40s = sim::model::find_gpu_model("L40S");
  REQUIRE(l40s != nullptr);
  CHECK(l40s->memory_mib == 46068);
  CHECK(!l40s->mig_capable());
  const sim::model::GpuModel* a100 = sim::model::find_gpu_model("A100-40GB");
  REQUIRE(a100 != nullptr);
  REQUIRE(a100->profile("1g.5gb") != nullptr);
  CHECK(a100->profile("1g.5gb")->max_instances == 7);
  CHECK(a100->profile("1g.10gb")->memory_slices == 2);
  CHECK(a100->profile("9g.99gb") == nullptr);
  CHECK(sim::model::find_gpu_model("V100") == nullptr);
  CHECK(sim::model::gpu_model_names(true).find("L40S") == std::string::npos);
}

TEST_CASE("a MIG resource counts the GPUs its profile name leads with, any other resource none") {
  using sim::model::mig_profile_gpus;
  CHECK(mig_profile_gpus("nvidia.com/mig-3g.20gb") == 3);
  CHECK(mig_profile_gpus("nvidia.com/mig-12g") == 12);
  CHECK(mig_profile_gpus("nvidia.com/gpu") == 0);
  CHECK(mig_profile_gpus("nvidia.com/mig-") == 0);
  CHECK(mig_profile_gpus("nvidia.com/mig-7") == 0);               // no "g"
  CHECK(mig_profile_gpus("nvidia.com/mig-g.5gb") == 0);           // no number before it
  CHECK(mig_profile_gpus("nvidia.com/mig-1x.5gb") == 0);          // the number does not end at it
  CHECK(mig_profile_gpus("example.com/nvidia.com/mig-1g") == 0);  // not the prefix
  // Beyond plain digits, read as strtoll reads them (a sign; a number out of range clamped).
  CHECK(mig_profile_gpus("nvidia.com/mig-+2g.10gb") == 2);
  CHECK(mig_profile_gpus("nvidia.com/mig-99999999999999999999g") == 9223372036854775807LL);
}
