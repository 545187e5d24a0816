#pragma once
// Private to io: a JSON document read into a compact tree that keeps each value's byte offset, so
// every complaint names a line and column. simdjson reads it (its On-Demand tokens point into
// the text); a text simdjson refuses is read again by nlohmann_json's SAX parser, whose message
// and byte offset the error gives. Strings without escapes and numbers stay views into the text
// (numbers exactly as written); the text must outlive the document.

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/error.hpp"

namespace sim::io {

/// The line and column (1-based; columns count characters, not bytes) of byte offsets in a text.
/// Cheapest when asked in increasing order: each line is scanned once.
class TextLocator {
 public:
  explicit TextLocator(std::string_view text) : text_(text) {}
  SourceLocation locate(std::uint32_t offset, const std::string& file);

 private:
  std::string_view text_;
  std::vector<std::uint32_t> line_starts_;  // found on the first question about an earlier offset
  std::uint32_t cached_offset_ = 0, cached_line_ = 1, cached_column_ = 1;  // the last answer
};

/// Whether simdjson may read `text` as it is: under 4 GiB, and no NUL byte or control character
/// (simdjson lets control characters through inside strings; JSON does not).
bool simdjson_may_read(std::string_view text);

class JsonDocument {
 public:
  enum class Kind : std::uint8_t { kNull, kBool, kNumber, kString, kArray, kObject };
  using Index = std::uint32_t;

  /// Parses `text` (one JSON value; a UTF-8 byte order mark is skipped). Syntax errors become
  /// InputError at the line and column of the offending byte; nesting deeper than
  /// input_limits().max_depth is refused with its own message. An object key given twice is a
  /// warning (Go's encoding/json keeps the last one, and so does this document).
  /// `readable_past_end`: bytes after the text's end that may be read (not written); with at
  /// least kReadPadding (input_limits.hpp), simdjson reads the text where it is, not a copy.
  JsonDocument(std::string_view text, const std::string& file, Diagnostics& diagnostics,
               std::size_t readable_past_end = 0);

  Index root() const { return 0; }
  Kind kind(Index v) const { return values_[v].kind; }
  /// A scalar's text: a string unescaped, a number as written, "true", "false"; "" for null.
  std::string_view text(Index v) const {
    const Value& value = values_[v];
    if (value.kind == Kind::kString || value.kind == Kind::kNumber)
      return {(value.pooled ? pool_.data() : text_.data()) + value.first, value.count};
    if (value.kind == Kind::kBool)
      return text_.substr(value.offset, text_[value.offset] == 't' ? 4 : 5);
    return {};
  }
  /// An object member's key (unescaped).
  std::string_view key(Index v) const {
    const Value& value = values_[v];
    return {(value.key_pooled ? pool_.data() : text_.data()) + value.key_first, value.key_count};
  }
  /// A list's items or an object's members, in document order.
  const Index* children(Index v) const { return children_.data() + values_[v].first; }
  std::size_t size(Index v) const { return is_container(v) ? values_[v].count : 0; }
  bool is_container(Index v) const {
    return values_[v].kind == Kind::kArray || values_[v].kind == Kind::kObject;
  }
  /// Asks the memory for value `v`'s subtree (the values after it, its text and its members'
  /// lists) ahead of reading it: a long list's readers ask for the next item while reading one.
  void prefetch(Index v) const;
  /// Where value `v` (or, with `of_key`, its key) starts.
  SourceLocation where(Index v, bool of_key = false) const;
  static constexpr Index kNone = 0xFFFFFFFFu;
  /// The container holding `v` (kNone for the root).
  Index parent(Index v) const { return values_[v].parent; }
  /// A list item's place in its list.
  std::uint32_t item_index(Index v) const { return values_[v].key_first; }
  /// The field path of `v` below the root, e.g. `queues[2].resourceShare` (built on demand).
  std::string path(Index v) const;
  const std::string& file() const { return *file_; }
  std::string_view source() const { return text_; }
  /// The line and column of byte `offset`.
  SourceLocation locate(std::uint32_t offset) const;

 private:
  friend class JsonTreeBuilder;
  struct Value {
    std::uint32_t offset = 0;      // first byte of the value
    std::uint32_t key_offset = 0;  // first byte of its key (object members)
    // Scalars: the text (in text_ or, when `pooled`, in pool_); containers: children_[first,
    // +count).
    std::uint32_t first = 0, count = 0;
    std::uint32_t key_first = 0, key_count = 0;  // list items: key_first is the item's index
    std::uint32_t parent = kNone;
    Kind kind = Kind::kNull;
    bool pooled = false, key_pooled = false;
  };
  std::string_view text_;
  const std::string* file_;
  std::vector<Value> values_;
  std::vector<Index> children_;
  std::string pool_;  // strings that had escapes, unescaped
  // where(): readers on two threads (a snapshot's pods) may ask at once.
  mutable std::mutex locator_mutex_;
  mutable TextLocator locator_;
};

/// Whether `text` is read as JSON: its first character other than white space (and a byte order
/// mark) is `{` or `[`. Anything else is YAML.
bool looks_like_json(std::string_view text);

}  // namespace sim::io
