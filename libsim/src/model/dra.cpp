#include "sim/model/dra.hpp"

#include <algorithm>
#include <cctype>

namespace sim::model {

bool is_gpu_device_class(const std::string& name) {
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower.find("gpu") != std::string::npos;
}

bool ResourceClaim::is_gpu_claim() const {
  return std::any_of(requests.begin(), requests.end(),
                     [](const DraRequest& r) { return is_gpu_device_class(r.device_class); });
}

std::int64_t ResourceClaim::gpu_devices() const {
  std::int64_t n = 0;
  for (const DraRequest& r : requests) {
    if (!is_gpu_device_class(r.device_class)) continue;
    n += r.all ? 1 : std::max<std::int64_t>(r.count, 1);  // "All" is booked as one device
  }
  return n;
}

}  // namespace sim::model
