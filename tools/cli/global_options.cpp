#include "commands.hpp"
#include "sim/io/input_limits.hpp"

namespace kaisim::cli {

GlobalOptions& global_options() {
  static GlobalOptions options{
      false, static_cast<double>(sim::io::InputLimits{}.max_input_bytes) / 1048576.0,
      sim::io::InputLimits{}.max_replay_work};
  return options;
}

}  // namespace kaisim::cli
