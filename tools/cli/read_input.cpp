#include "read_input.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "sim/core/error.hpp"

namespace kaisim::cli {

std::string display_name(const std::string& path) { return path == "-" ? "<stdin>" : path; }

std::string read_input(const std::string& path) {
  std::ostringstream text;
  if (path == "-") {
    text << std::cin.rdbuf();
    return text.str();
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    throw sim::Error(sim::ErrorCode::IO, path + ": cannot open: " + std::strerror(errno));
  }
  text << file.rdbuf();
  if (file.bad()) throw sim::Error(sim::ErrorCode::IO, path + ": read failed");
  return text.str();
}

}  // namespace kaisim::cli
