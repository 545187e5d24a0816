#include "sim/model/gpu_requirement.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string_view>

namespace sim::model {
namespace {

constexpr double kRoundingFactor = 100;  // portions are whole percent
constexpr double kMinGpus = 0.01;

// getExtendedResourceGpus: whole percent times the count. In doubles, which hold the product
// exactly for every real request (below 2^53) and cannot overflow for absurd ones.
double extended_resource_gpus(double portion, std::int64_t count) {
  const double percent = std::round(portion * kRoundingFactor);
  return percent * static_cast<double>(count) / kRoundingFactor;
}

}  // namespace

GpuRequirement GpuRequirement::with_gpus(double gpus, std::int64_t memory_mib) {
  GpuRequirement g;
  g.portion = gpus;
  g.memory_mib = memory_mib;
  if (gpus >= 1) {
    g.count = static_cast<std::int64_t>(gpus);
    g.portion = 1;
  } else if (gpus > 0 || memory_mib > 0) {
    g.count = 1;
  }
  return g;
}

GpuRequirement GpuRequirement::multi_fraction(std::int64_t count, double portion,
                                              std::int64_t memory_mib) {
  GpuRequirement g;
  g.count = count;
  g.portion = portion;
  g.memory_mib = memory_mib;
  return g;
}

double GpuRequirement::gpus() const { return extended_resource_gpus(portion, count); }

double GpuRequirement::gpus_quota() const {
  double total = 0;
  for (const auto& [name, n] : mig)
    total += static_cast<double>(mig_profile_gpus(name)) * static_cast<double>(n);
  total += static_cast<double>(dra);  // GetGpusQuota: MIG, then DRA, then extended resources
  return total + extended_resource_gpus(portion, count);
}

double GpuRequirement::memory_as_fraction(std::int64_t device_memory_mib) const {
  if (memory_mib <= 0 || device_memory_mib <= 0) return 0;
  return static_cast<double>(count) *
         (static_cast<double>(memory_mib) / static_cast<double>(device_memory_mib));
}

bool GpuRequirement::is_empty() const {
  if (extended_resource_gpus(portion, count) > kMinGpus || dra > 0) return false;
  for (const auto& [name, n] : mig) {
    if (n > 0) return false;
  }
  return true;
}

bool is_mig_resource(const std::string& resource_name) {
  return resource_name.rfind("nvidia.com/mig-", 0) == 0;
}

std::int64_t mig_profile_gpus(const std::string& resource_name) {
  if (!is_mig_resource(resource_name)) return 0;
  // Read in place, without copying the profile: the victim search asks this of every node's
  // MIG resources in every scenario.
  constexpr std::size_t kPrefix = std::string_view("nvidia.com/mig-").size();
  const char* profile = resource_name.c_str() + kPrefix;
  const std::size_t g = resource_name.find('g', kPrefix);
  if (g == kPrefix || g == std::string::npos) return 0;
  const char* at_g = resource_name.c_str() + g;
  long long n = 0;
  // from_chars reads plain digits as strtoll does, without its locale (strtoll was 1% of a
  // cycle); anything else, and a number out of range, takes strtoll's reading.
  if (profile[0] >= '0' && profile[0] <= '9') {
    const auto [end, error] = std::from_chars(profile, at_g, n);
    if (error == std::errc()) return end == at_g ? n : 0;
  }
  char* end = nullptr;
  n = std::strtoll(profile, &end, 10);
  return end == at_g ? n : 0;
}

}  // namespace sim::model
