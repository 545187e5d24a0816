#pragma once
// Private: Kubernetes label matching shared by the node filters (node selector requirements) and
// inter-pod affinity (label selectors).

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "sim/model/placement_rules.hpp"

namespace sim::sched {

/// One requirement against a label's value (`nullptr`: the label is absent).
inline bool requirement_matches(const model::SelectorRequirement& r, const std::string* value) {
  if (r.op == "Exists") return value != nullptr;
  if (r.op == "DoesNotExist") return value == nullptr;
  if (r.op == "In")
    return value && std::find(r.values.begin(), r.values.end(), *value) != r.values.end();
  if (r.op == "NotIn")
    return !value || std::find(r.values.begin(), r.values.end(), *value) == r.values.end();
  if ((r.op == "Gt" || r.op == "Lt") && value && r.values.size() == 1) {
    char* end1 = nullptr;
    char* end2 = nullptr;
    const long long have = std::strtoll(value->c_str(), &end1, 10);
    const long long want = std::strtoll(r.values[0].c_str(), &end2, 10);
    if (*end1 != '\0' || *end2 != '\0' || value->empty()) return false;
    return r.op == "Gt" ? have > want : have < want;
  }
  return false;
}

/// Every requirement holds on `labels` (an empty list matches everything).
inline bool selector_matches(const std::vector<model::SelectorRequirement>& selector,
                             const model::Labels& labels) {
  for (const model::SelectorRequirement& r : selector) {
    auto it = labels.find(r.key);
    if (!requirement_matches(r, it == labels.end() ? nullptr : &it->second)) return false;
  }
  return true;
}

}  // namespace sim::sched
