#include "side_thread.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>

namespace sim::io {

PagesFaultedBeside::PagesFaultedBeside(std::vector<std::pair<void*, std::size_t>> ranges) {
#ifdef MADV_POPULATE_WRITE
  // Whole pages only; a few MB are not worth a thread.
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> spans;
  std::size_t pages = 0;
  for (const auto& [begin, bytes] : ranges) {
    const auto first = reinterpret_cast<std::uintptr_t>(begin);
    const std::uintptr_t start = (first + page - 1) / page * page,
                         end = (first + bytes) / page * page;
    if (end <= start) continue;
    spans.emplace_back(start, end);
    pages += (end - start) / page;
  }
  if (!worth_a_side_thread(pages)) return;
  try {
    side_.emplace([spans = std::move(spans)] {
      // In slices, so a slice the filling thread reached first costs little: its pages are
      // there already, and the call skips them.
      constexpr std::uintptr_t kSlice = std::uintptr_t{4} << 20;
      for (const auto& [start, end] : spans) {
        for (std::uintptr_t at = start; at < end; at += kSlice) {
          const std::uintptr_t to = std::min(end, at + kSlice);
          // An old kernel refuses the advice (EINVAL): the pages fault in as they are filled.
          if (::madvise(reinterpret_cast<void*>(at), to - at, MADV_POPULATE_WRITE) != 0) return;
        }
      }
    });
  } catch (const std::system_error&) {  // no thread to be had
  }
#else
  (void)ranges;
#endif
}

PagesFaultedBeside::~PagesFaultedBeside() {
  if (side_) side_->join();
}

}  // namespace sim::io
