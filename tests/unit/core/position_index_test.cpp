// PositionIndex must find every position it was given, by key, through its growth, and a copy
// must be independent of the index it was copied from (scenarios are copied and then grown).
#include "sim/core/position_index.hpp"

#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <unordered_map>
#include <vector>

TEST_CASE("PositionIndex finds each key's position through growth", "[core][index]") {
  std::mt19937 rng(7);
  std::vector<std::uint32_t> keys;  // position -> key
  std::unordered_map<std::uint32_t, std::uint32_t> expected;
  sim::PositionIndex index;
  auto key_at = [&](std::uint32_t p) { return keys[p]; };
  CHECK(index.find(3, key_at) == sim::PositionIndex::kNone);  // empty
  for (int i = 0; i < 5000; ++i) {
    // Dense ids, as jobs and nodes are, and the invalid id's UINT32_MAX once.
    const std::uint32_t key = i == 100 ? UINT32_MAX : static_cast<std::uint32_t>(rng() % 20000);
    if (expected.contains(key)) continue;
    const auto position = static_cast<std::uint32_t>(keys.size());
    index.insert(key, position, key_at);
    keys.push_back(key);
    expected[key] = position;
  }
  for (const auto& [key, position] : expected) CHECK(index.find(key, key_at) == position);
  std::size_t absent = 0;
  for (std::uint32_t key = 0; key < 20000; ++key) {
    if (expected.contains(key)) continue;
    CHECK(index.find(key, key_at) == sim::PositionIndex::kNone);
    ++absent;
  }
  CHECK(absent > 0);
}

TEST_CASE("a copied PositionIndex grows on its own", "[core][index]") {
  std::vector<std::uint32_t> keys = {10, 20, 30};
  sim::PositionIndex a;
  auto key_at = [&](std::uint32_t p) { return keys[p]; };
  for (std::uint32_t p = 0; p < keys.size(); ++p) a.insert(keys[p], p, key_at);
  sim::PositionIndex b = a;
  keys.push_back(40);
  b.insert(40, 3, key_at);
  CHECK(b.find(40, key_at) == 3);
  CHECK(a.find(40, key_at) == sim::PositionIndex::kNone);
  CHECK(a.find(20, key_at) == 1);
  CHECK(b.find(20, key_at) == 1);
}
