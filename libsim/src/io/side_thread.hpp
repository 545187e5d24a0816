#pragma once
// Private to io: two parts of one input read at the same time, the later part on a second
// thread, with the messages a single thread would give.

#include <exception>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace sim::io {

/// Whether reading `items` things is worth a second thread: there are many, and a second core.
inline bool worth_a_side_thread(std::size_t items) {
  constexpr std::size_t kEnough = 8192;  // pods of a 250-node cluster; a thread costs ~50 us
  static const bool two_cores = std::thread::hardware_concurrency() >= 2;
  return items >= kEnough && two_cores;
}

/// Faults in the pages of [begin, begin + bytes) on a second thread while this one goes on to
/// fill them: the kernel clears a page at its first touch, which on this project's machines
/// costs about as much as filling it. For buffers reserved to be filled front to back (a long
/// document's tree, a file's text, a state's lists). Nothing is written; the thread is joined
/// when this is destroyed.
class PagesFaultedBeside {
 public:
  /// Ranges of (first byte, bytes).
  explicit PagesFaultedBeside(std::vector<std::pair<void*, std::size_t>> ranges);
  PagesFaultedBeside(void* begin, std::size_t bytes) : PagesFaultedBeside({{begin, bytes}}) {}
  ~PagesFaultedBeside();
  PagesFaultedBeside(const PagesFaultedBeside&) = delete;
  PagesFaultedBeside& operator=(const PagesFaultedBeside&) = delete;

 private:
  std::optional<std::thread> side_;
};

/// Runs `earlier()` here and `later()` on a second thread at the same time (after `earlier()`
/// when no thread can be had). They read an input's earlier and later parts, so an exception from
/// `earlier()` is the one thrown when both throw: the first bad field in document order.
template <typename Earlier, typename Later>
void run_beside(Earlier&& earlier, Later&& later) {
  std::exception_ptr later_error;
  std::optional<std::thread> side;
  try {
    side.emplace([&later, &later_error] {
      try {
        later();
      } catch (...) {
        later_error = std::current_exception();
      }
    });
  } catch (const std::system_error&) {  // no thread to be had: one after the other
  }
  try {
    earlier();
  } catch (...) {
    if (side) side->join();
    throw;
  }
  if (side)
    side->join();
  else
    later();
  if (later_error) std::rethrow_exception(later_error);
}

}  // namespace sim::io
