#include "sim/core/error.hpp"

namespace sim {

Error::Error(ErrorCode code, const std::string& message, int sys_errno)
    : std::runtime_error(message), code_(code), sys_errno_(sys_errno) {}

std::string format_located(const SourceLocation& where, const std::string& path,
                           const std::string& detail) {
  std::string out;
  if (!where.file.empty()) {
    out.append(where.file);
    if (where.line > 0) {
      out.push_back(':');
      out.append(std::to_string(where.line));
      if (where.column > 0) {
        out.push_back(':');
        out.append(std::to_string(where.column));
      }
    }
    out.append(": ");
  }
  if (!path.empty()) {
    out.append(path);
    out.append(": ");
  }
  out.append(detail);
  return out;
}

InputError::InputError(SourceLocation where, std::string path, std::string detail)
    : Error(ErrorCode::INVALID_INPUT, format_located(where, path, detail)),
      where_(std::move(where)),
      path_(std::move(path)),
      detail_(std::move(detail)) {}

void Diagnostics::unknown_field(const SourceLocation& where, const std::string& path,
                                const std::string& detail) {
  if (strict) throw InputError(where, path, "unknown field (--strict)");
  warn(where, path, detail);
}

}  // namespace sim
