#include "read_input.hpp"

#include "sim/io/input_limits.hpp"

namespace kaisim::cli {

std::string display_name(const std::string& path) { return sim::io::input_display_name(path); }

std::string read_input(const std::string& path) { return sim::io::read_input_file(path); }

}  // namespace kaisim::cli
