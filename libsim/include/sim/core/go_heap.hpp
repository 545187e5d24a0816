#pragma once
// A binary heap that performs exactly the swaps of Go's container/heap. KAI's queue comparator
// is not a strict weak order (ties compare "less" both ways or neither), so which element comes
// out first depends on the heap algorithm; std::priority_queue would differ in those corners.

#include <functional>
#include <utility>
#include <vector>

namespace sim {

template <typename T>
class GoHeap {
 public:
  using Less = std::function<bool(const T&, const T&)>;

  explicit GoHeap(Less less, int max_size = -1) : less_(std::move(less)), max_size_(max_size) {}

  bool empty() const { return items_.empty(); }
  /// Removes every item, keeping the storage.
  void clear() { items_.clear(); }
  std::size_t size() const { return items_.size(); }
  const T& top() const { return items_.front(); }
  T& top() { return items_.front(); }
  const std::vector<T>& items() const { return items_; }

  /// heap.Push, then (with a size cap) heap.Remove at index cap, as KAI's PriorityQueue does.
  void push(T value) {
    items_.push_back(std::move(value));
    up(items_.size() - 1);
    if (max_size_ >= 0 && items_.size() > static_cast<std::size_t>(max_size_)) {
      remove(static_cast<std::size_t>(max_size_));
    }
  }

  /// heap.Pop: swap root and last, sift down, remove last.
  T pop() {
    const std::size_t n = items_.size() - 1;
    std::swap(items_[0], items_[n]);
    down(0, n);
    T out = std::move(items_.back());
    items_.pop_back();
    return out;
  }

  /// heap.Fix: sift down, else sift up.
  void fix(std::size_t i) {
    if (!down(i, items_.size())) up(i);
  }

  /// heap.Remove.
  T remove(std::size_t i) {
    const std::size_t n = items_.size() - 1;
    if (n != i) {
      std::swap(items_[i], items_[n]);
      if (!down(i, n)) up(i);
    }
    T out = std::move(items_.back());
    items_.pop_back();
    return out;
  }

 private:
  bool less(std::size_t i, std::size_t j) const { return less_(items_[i], items_[j]); }

  void up(std::size_t j) {
    while (j > 0) {
      const std::size_t i = (j - 1) / 2;
      if (!less(j, i)) break;
      std::swap(items_[i], items_[j]);
      j = i;
    }
  }

  bool down(std::size_t i0, std::size_t n) {
    std::size_t i = i0;
    for (;;) {
      const std::size_t j1 = 2 * i + 1;
      if (j1 >= n) break;
      std::size_t j = j1;
      if (const std::size_t j2 = j1 + 1; j2 < n && less(j2, j1)) j = j2;
      if (!less(j, i)) break;
      std::swap(items_[i], items_[j]);
      i = j;
    }
    return i > i0;
  }

  std::vector<T> items_;
  Less less_;
  int max_size_;
};

}  // namespace sim
