#pragma once
// Reading a whole input file (or standard input for "-") with a clear error when that fails.

#include <string>

namespace kaisim::cli {

/// Contents of `path`, or of standard input when `path` is "-", within the input size limit
/// (sim::io::read_input_file: a directory, a device or a file over the limit is refused at once).
/// Throws sim::Error (IO) naming the file and the reason.
std::string read_input(const std::string& path);

/// The name messages use for `path`: "<stdin>" for "-", else the path itself.
std::string display_name(const std::string& path);

}  // namespace kaisim::cli
