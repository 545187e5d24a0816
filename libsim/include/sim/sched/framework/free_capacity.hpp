#pragma once
// Each node's free resources (idle plus releasing, what FittingNode's first check compares, and
// its free GPUs with shared and MIG ones, what the victim search's GPU bounds add up) in one
// dense table the session keeps. A pass over the offered nodes reads 32 bytes a node from it
// and opens a node's own books only when its free resources cover the pod's request: on a busy
// cluster most nodes are full, and their books are scattered over the heap.

#include <cstdint>
#include <vector>

#include "sim/core/assert.hpp"
#include "sim/core/resource_vec.hpp"
#include "sim/core/strong_id.hpp"
#include "sim/model/node.hpp"

namespace sim::sched {

class FreeCapacity {
 public:
  explicit FreeCapacity(const IdVector<NodeId, model::Node>& nodes) : nodes_(nodes) {}

  /// The node's books are about to change (Session::node): its entries are read again when asked.
  void touch(NodeId id) {
    if (stale_.empty()) return;
    std::uint8_t& stale = stale_[id.index()];
    if (indexed_ && !(stale & kBucketStale)) dirty_.push_back(id);
    stale = kAllStale;
  }

  /// The node's idle plus releasing resources (Node::non_allocated), as they are now.
  const ResourceVec& of(NodeId id) {
    const std::size_t i = slot(id);
    if (stale_[i] & kVectorStale) {
      free_[i] = nodes_[id].non_allocated();
      stale_[i] &= kSharedStale | kBucketStale;
    }
    // A change made through a reference to the node taken before the last read would be missed.
    SIM_ASSERT((free_[i] == nodes_[id].non_allocated()).all());
    return free_[i];
  }

  /// The node's idle plus releasing GPUs counting the room left on its shared GPUs and its MIG
  /// instances (Node::idle_gpus_with_shared plus releasing_gpus_with_shared), as they are now.
  double gpus_with_shared(NodeId id) {
    const std::size_t i = slot(id);
    if (stale_[i] & kSharedStale) {
      shared_[i] = with_shared(nodes_[id]);
      stale_[i] &= kVectorStale | kBucketStale;
    }
    SIM_ASSERT(shared_[i] == with_shared(nodes_[id]));
    return shared_[i];
  }

  /// Calls `fn(of(id)[r])` for each node of `nodes`, in order, that has some of resource `r` to
  /// allocate (allocatable is set when a node is made, and noted here at the first read of the
  /// node): binpack's range reads every offered node of every placement this way.
  template <typename Fn>
  void for_each_free(const std::vector<NodeId>& nodes, int r, Fn&& fn) {
    if (stale_.empty()) first_question();
    for (NodeId id : nodes) {
      std::uint8_t& lacks = lacks_[id.index()];
      if (lacks == kLacksUnread) [[unlikely]]
        lacks = lacks_of(nodes_[id]);
      SIM_ASSERT(((lacks >> r) & 1) == (nodes_[id].allocatable[r] == 0));
      if ((lacks >> r) & 1) continue;
      fn(of(id)[r]);
    }
  }

  /// False when the node's free resources are short of `request` in a resource that
  /// Node::task_fits compares on the vector (GPUs only when `gpus`: a fraction's GPUs are
  /// judged by groups): the node cannot take the pod. True says nothing more.
  bool covers(NodeId id, const ResourceVec& request, bool gpus) {
    const ResourceVec& free = of(id);
    for (int r = 0; r < kResourceCount; ++r) {
      if (r == kGpu && !gpus) continue;
      if (request[r] > free[r]) return false;
    }
    return true;
  }

  /// Calls `fn(node)` for every node whose idle plus releasing GPUs may reach `at_least`, and
  /// for no node with fewer whole GPUs than that (the index keeps nodes by their whole free
  /// GPUs), in no set order, until `fn` returns true. A node changed during the walk is indexed
  /// again at the next walk.
  template <typename Fn>
  void for_each_with_gpus(double at_least, Fn&& fn) {
    refresh_index();
    for (std::size_t b = bucket_for(at_least); b < buckets_.size(); ++b) {
      for (NodeId id : buckets_[b]) {
        if (fn(id)) return;
      }
    }
  }

 private:
  static constexpr int kGpu = index_of(Resource::GPU);
  // What of(), gpus_with_shared() and the index must read again, per node.
  static constexpr std::uint8_t kVectorStale = 1, kSharedStale = 2, kBucketStale = 4, kAllStale = 7;
  // Nodes with this many free whole GPUs or more share the last bucket.
  static constexpr std::size_t kTopBucket = 16;
  static constexpr std::uint8_t kLacksUnread = 0xFF;

  static double with_shared(const model::Node& n) {
    return n.idle_gpus_with_shared() + n.releasing_gpus_with_shared();
  }
  static std::size_t bucket_for(double gpus) {
    if (!(gpus >= 1)) return 0;
    return gpus >= static_cast<double>(kTopBucket) ? kTopBucket : static_cast<std::size_t>(gpus);
  }
  std::size_t slot(NodeId id) {
    if (stale_.empty()) [[unlikely]]
      first_question();
    return id.index();
  }
  // Sizes the table, every entry stale. A session that asks little reads few nodes.
  [[gnu::noinline]] void first_question() {
    free_.resize(nodes_.size());
    shared_.resize(nodes_.size());
    stale_.assign(nodes_.size(), kAllStale);
    lacks_.assign(nodes_.size(), kLacksUnread);
  }
  // Bit r set when the node has none of resource r to allocate.
  static std::uint8_t lacks_of(const model::Node& n) {
    std::uint8_t bits = 0;
    for (int r = 0; r < kResourceCount; ++r)
      if (n.allocatable[r] == 0) bits = static_cast<std::uint8_t>(bits | (1u << r));
    return bits;
  }
  void place(NodeId id, std::size_t bucket) {
    bucket_of_[id.index()] = static_cast<std::uint8_t>(bucket);
    place_in_bucket_[id.index()] = static_cast<std::uint32_t>(buckets_[bucket].size());
    buckets_[bucket].push_back(id);
  }
  void refresh_index();

  const IdVector<NodeId, model::Node>& nodes_;
  std::vector<ResourceVec> free_;    // by node index
  std::vector<double> shared_;       // by node index
  std::vector<std::uint8_t> stale_;  // by node index; empty until the first question
  std::vector<std::uint8_t> lacks_;  // by node index: lacks_of(node), or kLacksUnread
  // The index: nodes by their free whole GPUs, built at the first walk, then kept by moving
  // the nodes touched since the last walk.
  bool indexed_ = false;
  std::vector<std::vector<NodeId>> buckets_;
  std::vector<std::uint8_t> bucket_of_;         // by node index
  std::vector<std::uint32_t> place_in_bucket_;  // by node index
  std::vector<NodeId> dirty_;                   // touched since the last walk, once each
};

inline void FreeCapacity::refresh_index() {
  if (!indexed_) {
    slot(NodeId(0));
    buckets_.assign(kTopBucket + 1, {});
    bucket_of_.resize(nodes_.size());
    place_in_bucket_.resize(nodes_.size());
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      const NodeId id(static_cast<NodeId::value_type>(i));
      stale_[i] &= kVectorStale | kSharedStale;
      place(id, bucket_for(of(id)[kGpu]));
    }
    indexed_ = true;
    dirty_.clear();
  }
  for (NodeId id : dirty_) {
    const std::size_t i = id.index();
    stale_[i] &= kVectorStale | kSharedStale;
    const std::size_t to = bucket_for(of(id)[kGpu]);
    if (to == bucket_of_[i]) continue;
    // Out of its old bucket: the bucket's last node takes its place.
    std::vector<NodeId>& from = buckets_[bucket_of_[i]];
    const NodeId last = from.back();
    from[place_in_bucket_[i]] = last;
    place_in_bucket_[last.index()] = place_in_bucket_[i];
    from.pop_back();
    place(id, to);
  }
  dirty_.clear();
#ifndef NDEBUG
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    const NodeId id(static_cast<NodeId::value_type>(i));
    SIM_ASSERT(bucket_of_[i] == bucket_for(nodes_[id].non_allocated()[kGpu]));
    SIM_ASSERT(buckets_[bucket_of_[i]][place_in_bucket_[i]] == id);
  }
#endif
}

}  // namespace sim::sched
