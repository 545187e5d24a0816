#pragma once
// What one copy of a cluster state holds on the heap, per pod: the `bytes_per_pod` counter of the
// cycle and scale benchmarks (jemalloc's stats.allocated, or glibc's mallinfo2 without jemalloc).

#ifdef SIM_JEMALLOC
#include <jemalloc/jemalloc.h>
#else
#include <malloc.h>
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "sim/model/cluster.hpp"

namespace bench {

// Bytes the allocator has handed out and not taken back.
inline std::size_t heap_in_use() {
#ifdef SIM_JEMALLOC
  // Objects this thread freed wait in its cache and still count as allocated: flush them first.
  // jemalloc's statistics are a snapshot taken when the epoch advances.
  mallctl("thread.tcache.flush", nullptr, nullptr, nullptr, 0);
  std::uint64_t epoch = 1;
  std::size_t size = sizeof(epoch);
  mallctl("epoch", &epoch, &size, &epoch, size);
  std::size_t allocated = 0;
  size = sizeof(allocated);
  mallctl("stats.allocated", &allocated, &size, nullptr, 0);
  return allocated;
#else
  // Small chunks (uordblks) and the large ones glibc maps on their own (hblkhd; a state's task
  // vector is one of those).
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
#endif
}

// Heap taken by a copy of `state` (nodes, pods, jobs, queues) over its pods.
inline double bytes_per_pod(const sim::model::ClusterState& state) {
  const std::size_t before = heap_in_use();
  const sim::model::ClusterState copy = state;
  const std::size_t held = heap_in_use() - before;
  return static_cast<double>(held) /
         static_cast<double>(std::max<std::size_t>(copy.tasks.size(), 1));
}

}  // namespace bench
