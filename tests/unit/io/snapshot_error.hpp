#pragma once
// What loading a snapshot text says: its error message, or "no error".
#include <string>

#include "sim/io/snapshot.hpp"

inline std::string snapshot_error(const std::string& text, const std::string& file) {
  sim::Diagnostics d;
  try {
    (void)sim::io::load_snapshot({{text, file}}, {}, d);
  } catch (const sim::InputError& e) {
    return e.what();
  }
  return "no error";
}
