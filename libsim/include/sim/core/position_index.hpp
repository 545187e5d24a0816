#pragma once
// An index from 32-bit keys to positions in an array the caller keeps, in one flat table (open
// addressing, linear probing). Copying it is one allocation and a memcpy: the victim search
// copies scenarios holding hundreds of victim jobs tens of thousands of times, where a node-based
// map cost an allocation per entry and a sorted vector a memmove per insertion.

#include <cstdint>
#include <vector>

namespace sim {

class PositionIndex {
 public:
  static constexpr std::uint32_t kNone = UINT32_MAX;

  /// The position holding `key` (`key_of(position)` gives a position's key), or kNone.
  template <typename KeyOf>
  std::uint32_t find(std::uint32_t key, const KeyOf& key_of) const {
    if (slots_.empty()) return kNone;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = slot(key); slots_[i] != 0; i = (i + 1) & mask) {
      if (key_of(slots_[i] - 1) == key) return slots_[i] - 1;
    }
    return kNone;
  }

  /// Adds `position` under `key`, which the index must not hold yet.
  template <typename KeyOf>
  void insert(std::uint32_t key, std::uint32_t position, const KeyOf& key_of) {
    if (2 * (size_ + 1) > slots_.size()) grow(key_of);
    put(key, position);
    ++size_;
  }

 private:
  std::size_t slot(std::uint32_t key) const {
    // Fibonacci hashing: ids are dense, so their high product bits spread them.
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> 32) & (slots_.size() - 1);
  }
  void put(std::uint32_t key, std::uint32_t position) {
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = slot(key);
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = position + 1;
  }
  template <typename KeyOf>
  void grow(const KeyOf& key_of) {
    std::vector<std::uint32_t> old(slots_.empty() ? 16 : 2 * slots_.size(), 0);
    old.swap(slots_);
    for (std::uint32_t s : old) {
      if (s != 0) put(key_of(s - 1), s - 1);
    }
  }

  std::vector<std::uint32_t> slots_;  ///< position + 1; 0: empty
  std::uint32_t size_ = 0;
};

}  // namespace sim
