#pragma once
// What one copy of a cluster state holds on the heap, per pod: the `bytes_per_pod` counter of the
// cycle and scale benchmarks (glibc's mallinfo2).

#include <malloc.h>

#include <algorithm>
#include <cstddef>

#include "sim/model/cluster.hpp"

namespace bench {

// Bytes malloc has handed out: small chunks (uordblks) and the large ones it maps on their own
// (hblkhd; a state's task vector is one of those).
inline std::size_t heap_in_use() {
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
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
