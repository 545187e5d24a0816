#include "sim/fairshare/resource_share.hpp"

#include <algorithm>

#include "sim/core/resource_vec.hpp"

namespace sim::fairshare {

double ResourceShare::requestable() const {
  if (max_allowed == kUnlimited) return request;
  return std::min(max_allowed, request);
}

double ResourceShare::allocatable() const {
  if (deserved == kUnlimited) return max_allowed;
  double value = std::max(deserved, fair_share);
  if (max_allowed != kUnlimited) value = std::min(max_allowed, value);
  return value;
}

}  // namespace sim::fairshare
