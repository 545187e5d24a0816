#pragma once
// Limits on what kaisim reads, so no input can take unbounded memory or time: the size of an
// input file, the nesting depth of a document, and the work of a replay. The defaults are in the
// README ("Limits"); the CLI's --max-input-mb and the Python package's kaisim.set_limits change
// them for the whole process.

#include <cstddef>
#include <cstdint>
#include <string>

namespace sim::io {

struct InputLimits {
  /// Largest input file (or standard input) read, in bytes.
  std::size_t max_input_bytes = std::size_t{64} << 20;
  /// Deepest nesting of lists and objects in a YAML or JSON document.
  int max_depth = 100;
  /// Largest replay, as cycles x objects (the scenario's duration over its period, times its nodes
  /// and pods), estimated before the replay starts.
  double max_replay_work = 2e10;
  /// Most cycles of a replay (duration / schedulePeriod): each adds a kai-timeline row per leaf
  /// queue, so this bounds the output too. 10 million is 116 days at KAI's 1 s period.
  double max_replay_cycles = 1e7;
};

/// The limits in force (the defaults until set_input_limits is called).
InputLimits input_limits();
/// Replaces the limits for the whole process; call it before any input is read.
void set_input_limits(const InputLimits& limits);

/// Spare capacity read_input_file leaves after a text's end: a JSON reader (simdjson, whose
/// loads run up to 64 bytes past the end) reads such a text in place instead of copying it.
inline constexpr std::size_t kReadPadding = 64;

/// Reads a whole input file, or standard input for "-", within input_limits().max_input_bytes.
/// Refuses at once, each with its own message (sim::Error, IO, with the system's errno where
/// there is one): a missing file, a directory, anything that is not a regular file (a device, a
/// FIFO; standard input excepted), and a file over the limit. The text is not checked here; its
/// capacity leaves kReadPadding bytes after its end.
std::string read_input_file(const std::string& path);

/// The name messages use for `path`: "<stdin>" for "-", else the path itself.
std::string input_display_name(const std::string& path);

}  // namespace sim::io
