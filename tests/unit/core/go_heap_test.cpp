// GoHeap must make the same swaps as Go's container/heap, also when "less" is not a strict weak
// order (KAI's queue comparator), because the pop order then depends on the heap algorithm.
#include "sim/core/go_heap.hpp"

#include <catch2/catch.hpp>

TEST_CASE("GoHeap pops in priority order", "[core][heap]") {
  sim::GoHeap<int> h([](const int& a, const int& b) { return a < b; });
  for (int v : {5, 1, 4, 2, 3}) h.push(v);
  std::vector<int> out;
  while (!h.empty()) out.push_back(h.pop());
  CHECK(out == std::vector<int>{1, 2, 3, 4, 5});
}

TEST_CASE("GoHeap reproduces container/heap for a comparator with ties", "[core][heap]") {
  // Compare only the tens digit: 10, 11, 12 are all "equal". Pushing 12, 20, 11, 10 and popping
  // everything gives 12, 10, 11, 20 with Go 1.26's container/heap (checked with a Go program);
  // a std::priority_queue gives another order.
  sim::GoHeap<int> h([](const int& a, const int& b) { return a / 10 < b / 10; });
  for (int v : {12, 20, 11, 10}) h.push(v);
  std::vector<int> out;
  while (!h.empty()) out.push_back(h.pop());
  CHECK(out == std::vector<int>{12, 10, 11, 20});
}

TEST_CASE("GoHeap fix re-sorts a changed root", "[core][heap]") {
  std::vector<int> keys = {3, 1, 2};
  sim::GoHeap<int> h([&](const int& a, const int& b) {
    return keys[static_cast<std::size_t>(a)] < keys[static_cast<std::size_t>(b)];
  });
  for (int i = 0; i < 3; ++i) h.push(i);
  CHECK(h.top() == 1);
  keys[1] = 10;
  h.fix(0);
  CHECK(h.top() == 2);
}

TEST_CASE("GoHeap with a size cap drops the element at index cap", "[core][heap]") {
  sim::GoHeap<int> h([](const int& a, const int& b) { return a < b; }, 2);
  for (int v : {4, 3, 2, 1}) h.push(v);
  CHECK(h.size() == 2);
  CHECK(h.pop() == 1);
}
