#include "sim/core/resource_vec.hpp"

namespace sim {

std::string_view resource_name(Resource r) {
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

}  // namespace sim
