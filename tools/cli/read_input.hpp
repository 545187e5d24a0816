#pragma once
// Reading a whole input file (or standard input for "-") with a clear error when that fails.

#include <string>

namespace kaisim::cli {

/// Contents of `path`, or of standard input when `path` is "-". Throws sim::Error (IO) naming the
/// file and the system's reason.
std::string read_input(const std::string& path);

/// The name messages use for `path`: "<stdin>" for "-", else the path itself.
std::string display_name(const std::string& path);

}  // namespace kaisim::cli
