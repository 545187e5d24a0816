// GPU quantities of a request (pod_info getExtendedResourceGpus): whole percent times the count.
#include "sim/model/gpu_requirement.hpp"

#include <catch2/catch.hpp>

TEST_CASE("GPU quantities round the portion to whole percent and stay finite for absurd counts",
          "[model]") {
  using sim::model::GpuRequirement;
  CHECK(GpuRequirement::with_gpus(3, 0).gpus() == 3);
  CHECK(GpuRequirement::multi_fraction(2, 0.333, 0).gpus() == Approx(0.66));
  // A fuzzed pod asked for about 5e17 GPUs; 100 x count once overflowed a 64-bit integer.
  const double huge = GpuRequirement::with_gpus(497674033525482368.0, 0).gpus();
  CHECK(huge == Approx(497674033525482368.0));
}
