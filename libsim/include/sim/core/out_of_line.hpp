#pragma once
// A value kept on the heap, absent until first written. For rarely used members of objects that
// are copied often: a replay copies every task into each cycle's state, and most tasks never
// use their NUMA or DRA fields, so they cost one pointer instead of the fields themselves.

#include <memory>
#include <utility>

namespace sim {

/// Reads of an absent value see a default-constructed T; `edit()` makes it present. Copies are
/// deep; a value that is `empty()` copies as absent (T needs `bool empty() const`).
template <typename T>
class OutOfLine {
 public:
  OutOfLine() = default;
  OutOfLine(const OutOfLine& other) : value_(copy_of(other)) {}
  OutOfLine(OutOfLine&&) noexcept = default;
  OutOfLine& operator=(const OutOfLine& other) {
    if (this != &other) value_ = copy_of(other);
    return *this;
  }
  OutOfLine& operator=(OutOfLine&&) noexcept = default;
  ~OutOfLine() = default;

  const T& operator*() const { return value_ ? *value_ : absent(); }
  const T* operator->() const { return &**this; }
  /// The value to change in place, created empty the first time.
  T& edit() {
    if (!value_) value_ = std::make_unique<T>();
    return *value_;
  }
  /// Sets one member; an absent value stays absent when the member would be empty anyway.
  template <typename Member, typename Value>
  void set(Member T::*member, Value&& value) {
    if (!value_ && is_empty(value)) return;
    edit().*member = std::forward<Value>(value);
  }

 private:
  static std::unique_ptr<T> copy_of(const OutOfLine& other) {
    if (!other.value_ || other.value_->empty()) return nullptr;
    return std::make_unique<T>(*other.value_);
  }
  template <typename V>
  static bool is_empty(const V& v) {
    if constexpr (requires { v.empty(); })
      return v.empty();
    else
      return !v;
  }
  static const T& absent() {
    static const T none;
    return none;
  }
  std::unique_ptr<T> value_;
};

}  // namespace sim
