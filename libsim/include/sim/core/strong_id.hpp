#pragma once
// Distinct integer ID types and vectors indexed by them, so a QueueId can never index node data.

#include <cstdint>
#include <functional>
#include <vector>

namespace sim {

/// A dense 0-based index tagged with the entity it names.
template <typename Tag>
class StrongId {
 public:
  using value_type = std::uint32_t;
  constexpr StrongId() = default;
  constexpr explicit StrongId(value_type v) : value_(v) {}
  constexpr value_type value() const { return value_; }
  constexpr std::size_t index() const { return value_; }
  constexpr bool valid() const { return value_ != kInvalid; }
  static constexpr StrongId invalid() { return StrongId(kInvalid); }
  friend constexpr auto operator<=>(StrongId, StrongId) = default;

 private:
  static constexpr value_type kInvalid = ~value_type{0};
  value_type value_ = kInvalid;
};

/// std::vector whose subscript takes only the matching ID type.
template <typename Id, typename T>
class IdVector {
 public:
  IdVector() = default;
  explicit IdVector(std::size_t n, const T& value = T()) : data_(n, value) {}
  T& operator[](Id id) { return data_[id.index()]; }
  const T& operator[](Id id) const { return data_[id.index()]; }
  std::size_t size() const { return data_.size(); }
  bool empty() const { return data_.empty(); }
  void push_back(T value) { data_.push_back(std::move(value)); }
  void resize(std::size_t n) { data_.resize(n); }
  void reserve(std::size_t n) { data_.reserve(n); }
  std::size_t capacity() const { return data_.capacity(); }
  /// The first element's storage (reserved room follows the elements).
  T* data() { return data_.data(); }
  Id next_id() const { return Id(static_cast<typename Id::value_type>(data_.size())); }
  auto begin() { return data_.begin(); }
  auto end() { return data_.end(); }
  auto begin() const { return data_.begin(); }
  auto end() const { return data_.end(); }

 private:
  std::vector<T> data_;
};

struct QueueTag {};
/// A queue's position in a QueueTree.
using QueueId = StrongId<QueueTag>;

}  // namespace sim

template <typename Tag>
struct std::hash<sim::StrongId<Tag>> {
  std::size_t operator()(sim::StrongId<Tag> id) const noexcept { return id.value(); }
};
