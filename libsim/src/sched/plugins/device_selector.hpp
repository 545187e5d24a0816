#pragma once
// Private to sched: evaluates a CEL device selector on one device, with CEL's rules for the
// subset kaisim reads (sim/model/device_selector.hpp): `&&` and `||` absorb an error when the
// other side decides, `==` across types is false, a missing attribute is a runtime error.

#include <string>

#include "sim/model/dra.hpp"

namespace sim::sched {

/// A selector's verdict on a device; `error` (a CEL runtime error) makes the allocation fail, as
/// the structured allocator's does.
struct SelectorOutcome {
  bool matches = false;
  std::string error;
};

SelectorOutcome evaluate(const model::DeviceSelector& selector, const std::string& driver,
                         const model::SliceDevice& device);

}  // namespace sim::sched
