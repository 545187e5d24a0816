#pragma once
// Error policy (style guide rule 10): user input is checked at the boundary and reported as an
// InputError that names the file, line, column and field path; internal invariants use SIM_ASSERT.

#include <stdexcept>
#include <string>
#include <vector>

namespace sim {

/// Kind of failure; the CLI maps INVALID_INPUT to exit code 2. INTERRUPTED: a caller's poll
/// (api::ReplayOptions::poll) asked the run to stop.
enum class ErrorCode { INVALID_INPUT, IO, INTERNAL, INTERRUPTED };

/// A place in an input document. `line` and `column` are 1-based; 0 means unknown.
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;
};

/// Base of every exception the public API throws. `what()` is the complete one-line message.
class Error : public std::runtime_error {
 public:
  /// `sys_errno`: the system's error number behind an IO error (ENOENT, EISDIR, ...), or 0.
  Error(ErrorCode code, const std::string& message, int sys_errno = 0);
  ErrorCode code() const noexcept { return code_; }
  int sys_errno() const noexcept { return sys_errno_; }

 private:
  ErrorCode code_;
  int sys_errno_;
};

/// Bad user input. Message form: `FILE:LINE:COL: PATH: DETAIL` (parts that are unknown are left
/// out).
class InputError : public Error {
 public:
  InputError(SourceLocation where, std::string path, std::string detail);
  const SourceLocation& where() const noexcept { return where_; }
  /// Field path such as `queues[2].resourceShare.gpu.deserved`; empty for whole-document errors.
  const std::string& path() const noexcept { return path_; }
  const std::string& detail() const noexcept { return detail_; }

 private:
  SourceLocation where_;
  std::string path_;
  std::string detail_;
};

/// Formats `FILE:LINE:COL: PATH: DETAIL`, skipping the parts that are empty or zero.
std::string format_located(const SourceLocation& where, const std::string& path,
                           const std::string& detail);

/// Non-fatal findings about an input (unknown fields, dropped orphan queues), in the order found.
struct Diagnostics {
  std::vector<std::string> warnings;
  /// `--strict`: an unknown field is an error instead of a warning.
  bool strict = false;
  void warn(const SourceLocation& where, const std::string& path, const std::string& detail) {
    warnings.push_back(format_located(where, path, detail));
  }
  /// A field kaisim does not know: a warning, or with `strict` an InputError.
  void unknown_field(const SourceLocation& where, const std::string& path,
                     const std::string& detail = "unknown field, ignored");
};

}  // namespace sim
