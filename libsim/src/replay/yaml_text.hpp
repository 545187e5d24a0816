#pragma once
// Private: reading text out of the world's YAML documents without disturbing them.

#include <yaml-cpp/yaml.h>

#include <string>

namespace sim::replay {

/// n[a] (or n[a][b]) as text, empty when absent. Never assigns one YAML::Node variable to another:
/// in yaml-cpp that copies the value into the referenced node instead of rebinding the variable.
inline std::string str(const YAML::Node& n, const char* a, const char* b = nullptr) {
  const YAML::Node x = n[a];
  if (b == nullptr) return x.IsDefined() && x.IsScalar() ? x.Scalar() : std::string();
  if (!x.IsDefined() || !x.IsMap()) return std::string();
  const YAML::Node y = x[b];
  return y.IsDefined() && y.IsScalar() ? y.Scalar() : std::string();
}

}  // namespace sim::replay
