#pragma once
// The slot for one more entry of a list kept to at most `most` entries: a new one while there is
// room, else the entry least recently used (the smallest `last_use`), for the caller to replace.

#include <algorithm>
#include <cstddef>
#include <memory>
#include <vector>

namespace sim {

template <class T>
std::unique_ptr<T>& lru_slot(std::vector<std::unique_ptr<T>>& kept, std::size_t most) {
  if (kept.size() < most) return kept.emplace_back();
  return *std::min_element(kept.begin(), kept.end(),
                           [](const auto& a, const auto& b) { return a->last_use < b->last_use; });
}

}  // namespace sim
