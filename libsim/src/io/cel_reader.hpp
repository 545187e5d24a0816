#pragma once
// Private to io: reads a CEL device selector into the tree kaisim evaluates (the subset in
// sim/model/device_selector.hpp). Kubernetes' own CEL environment is far larger; an expression
// outside the subset is refused with the reason, and the caller reports it.

#include <optional>
#include <string>

#include "sim/model/device_selector.hpp"

namespace sim::io {

/// The selector, or nullopt with `why` set when the expression is outside the subset.
std::optional<model::DeviceSelector> parse_device_selector(const std::string& expression,
                                                           std::string& why);

}  // namespace sim::io
