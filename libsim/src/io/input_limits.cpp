#include "sim/io/input_limits.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <iostream>

#include "side_thread.hpp"
#include "sim/core/error.hpp"

namespace sim::io {
namespace {

std::atomic<std::size_t> g_max_input_bytes{InputLimits{}.max_input_bytes};
std::atomic<int> g_max_depth{InputLimits{}.max_depth};
std::atomic<double> g_max_replay_work{InputLimits{}.max_replay_work};
std::atomic<double> g_max_replay_cycles{InputLimits{}.max_replay_cycles};

std::string mib(std::size_t bytes) {
  return std::to_string((bytes + (std::size_t{1} << 20) - 1) >> 20) + " MiB";
}

[[noreturn]] void too_large(const std::string& name, std::size_t limit) {
  throw Error(
      ErrorCode::IO,
      name + ": larger than the input limit of " + mib(limit) + " (raise it with --max-input-mb)",
      EFBIG);
}

// Reads an open descriptor to its end, but never more than `limit` bytes.
std::string read_all(int fd, const std::string& name, std::size_t limit, std::size_t expected) {
  std::string text;
  text.reserve(expected + kReadPadding);
  const PagesFaultedBeside pages(text.data(), expected);
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(ErrorCode::IO, name + ": read failed: " + std::strerror(errno), errno);
    if (n == 0) {
      if (text.capacity() < text.size() + kReadPadding)
        text.reserve(text.size() + kReadPadding);  // standard input
      return text;
    }
    if (text.size() + static_cast<std::size_t>(n) > limit) too_large(name, limit);
    text.append(buffer, static_cast<std::size_t>(n));
  }
}

}  // namespace

InputLimits input_limits() {
  InputLimits l;
  l.max_input_bytes = g_max_input_bytes.load();
  l.max_depth = g_max_depth.load();
  l.max_replay_work = g_max_replay_work.load();
  l.max_replay_cycles = g_max_replay_cycles.load();
  return l;
}

void set_input_limits(const InputLimits& limits) {
  g_max_input_bytes = limits.max_input_bytes;
  g_max_depth = limits.max_depth;
  g_max_replay_work = limits.max_replay_work;
  g_max_replay_cycles = limits.max_replay_cycles;
}

std::string input_display_name(const std::string& path) { return path == "-" ? "<stdin>" : path; }

std::string read_input_file(const std::string& path) {
  const std::size_t limit = g_max_input_bytes.load();
  if (path == "-") return read_all(STDIN_FILENO, "<stdin>", limit, 0);
  if (path.empty()) throw Error(ErrorCode::IO, "an empty file name", ENOENT);
  // Checked on the open file, so what is checked is what is read.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const int e = errno;
    throw Error(ErrorCode::IO, path + ": cannot open: " + std::strerror(e), e);
  }
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    throw Error(ErrorCode::IO, path + ": cannot read: " + std::strerror(errno), errno);
  if (S_ISDIR(st.st_mode))
    throw Error(ErrorCode::IO, path + ": is a directory, expected a file", EISDIR);
  if (!S_ISREG(st.st_mode)) {
    throw Error(
        ErrorCode::IO,
        path +
            ": not a regular file (a device, FIFO or socket); give a file, or - for standard input",
        EINVAL);
  }
  if (static_cast<std::size_t>(st.st_size) > limit) too_large(path, limit);
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return read_all(fd, path, limit, static_cast<std::size_t>(st.st_size));
}

}  // namespace sim::io
