#pragma once
// Private helper for reading YAML/JSON documents with yaml-cpp: every value carries its field path
// and source position, so each complaint names file, line, column and field.

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "json_document.hpp"
#include "sim/core/error.hpp"

namespace sim::io {

/// A value of an input document with its field path and source position: a node of a YAML
/// document (yaml-cpp), or a value of a JsonDocument (JSON inputs, read by nlohmann_json). Both
/// answer the same questions, so every reader works on either.
class Field {
 public:
  Field(YAML::Node node, std::string path, const std::string* file)
      : file_(file), yaml_(std::in_place, std::move(node), std::move(path)) {}
  /// Value `value` of `doc` (which must outlive the Field), a whole input; paths below it are
  /// built only when asked for. `of_key` stands for the value's key (unknown_members), which only
  /// has a position.
  Field(const JsonDocument* doc, std::uint32_t value, bool of_key = false);
  // Copies are cheap for JSON values (a snapshot's readers make millions): no YAML node, no path
  // text unless the value is missing. yaml-cpp's Node::operator= writes into the node it refers
  // to (the document!); a Field rebinds instead, or sorting Fields would rewrite the parsed
  // objects.
  Field(const Field& other) = default;
  Field(Field&& other) = default;
  Field& operator=(const Field& other) { return rebind(other); }
  Field& operator=(Field&& other) { return rebind(std::move(other)); }
  ~Field() = default;

  /// The field path, e.g. `queues[2].resourceShare.gpu.deserved`.
  std::string path() const;
  SourceLocation where() const;
  /// The YAML node; only for Fields of YAML documents (the replay's objects are YAML).
  const YAML::Node& node() const;
  bool is_json() const { return json_ != nullptr; }
  bool is_null() const;
  bool is_map() const;
  bool is_sequence() const;
  bool is_scalar() const;
  /// A scalar's text as written (a string's value; "" for null, a list or an object).
  std::string scalar() const;
  /// The same without a copy, for JSON values (valid while the document lives); YAML values copy
  /// into `buffer` and view it.
  std::string_view scalar_view(std::string& buffer) const;

  /// For a JSON value, asks the memory for it ahead of reading it (JsonDocument::prefetch).
  void prefetch() const {
    if (json_ && value_ != kMissing) json_->prefetch(value_);
  }
  /// Throws InputError naming this field.
  [[noreturn]] void fail(const std::string& detail) const;

  /// Map member by key. Keys match exactly first, then ignoring ASCII case (as Go's
  /// encoding/json does); a missing key gives a null field.
  Field member(std::string_view key) const;
  /// Every member of a map, in document order, as (key, value); none when not a map.
  std::vector<std::pair<std::string, Field>> entries() const;
  /// Calls `visit(key, value, key_field)` for each member of a map in document order (none when
  /// not a map); `key_field` has the key's position, for warnings.
  void for_each_member(
      const std::function<void(std::string_view, const Field&, const Field&)>& visit) const;
  /// Calls `visit(key, value)` for each member of a map in document order (none when not a map).
  /// The key is a view, valid during the call.
  template <typename Visit>
  void for_each_entry(Visit&& visit) const;
  /// Whether a document key names a field: equal ignoring ASCII case, as Go's decoder matches.
  static bool same_key(std::string_view key, std::string_view field);
  /// Keys of this map that are not in `known` (compared ignoring case), for warnings.
  std::vector<Field> unknown_members(std::initializer_list<std::string_view> known) const;
  std::size_t size() const;
  Field item(std::size_t i) const;
  /// Every item of a sequence; none when null; fails when it is not a sequence.
  std::vector<Field> items() const;

  void expect_map() const;
  void expect_sequence() const;
  /// A JSON/YAML number (quoted strings are refused); must be finite.
  double number() const;
  std::optional<double> optional_number() const;
  /// A whole number that fits in `int` (Go decodes `priority` into an int).
  std::optional<int> optional_int() const;
  /// A string (in YAML any scalar; in JSON a string, as Go decodes into a string field).
  std::string string() const;
  std::optional<std::string> optional_string() const;
  /// optional_string().value_or(fallback), without the copies.
  std::string string_or(std::string_view fallback) const;
  /// A one-line rendering of the value for messages, e.g. `"abc"` or `[...]`.
  std::string describe() const;

 private:
  static constexpr std::uint32_t kMissing = 0xFFFFFFFFu;
  struct Yaml {
    // A constructor, not an aggregate: clang 14 (the fuzz build) cannot emplace an aggregate.
    Yaml(YAML::Node n, std::string p) : node(std::move(n)), path(std::move(p)) {}
    YAML::Node node;
    std::string path;  // the whole path
  };
  // JSON, a member or item that is not there: the rest of the path from the nearest value that
  // is (".key" or "[i]" parts), in place when short: readers ask for many members a document
  // leaves out, and most are never named in a message.
  class MissingPath {
   public:
    MissingPath() = default;
    void assign(std::string_view a, std::string_view b);
    void assign_member(std::string_view key);  // "." + key
    std::string_view view() const {
      return long_ ? std::string_view(*long_) : std::string_view(short_, size_);
    }

   private:
    static constexpr std::size_t kShort = 38;
    std::uint8_t size_ = 0;
    char short_[kShort] = {};
    std::shared_ptr<const std::string> long_;
  };
  bool quoted() const;  // a string written in quotes (YAML) or a JSON string
  // A JSON Field below `this`: the value, or when it is missing (kMissing) the part of the path
  // that names it.
  Field json_child(std::uint32_t value, std::string_view missing = {}) const;
  template <typename Other>
  Field& rebind(Other&& other) {
    if (this == &other) return *this;
    file_ = other.file_;
    json_ = other.json_;
    value_ = other.value_;
    of_key_ = other.of_key_;
    missing_parent_ = other.missing_parent_;
    missing_ = std::forward<Other>(other).missing_;
    yaml_.reset();
    if (other.yaml_) yaml_.emplace(std::forward<Other>(other).yaml_.value());
    return *this;
  }
  [[noreturn]] void fail_not_string() const;

  const std::string* file_;
  const JsonDocument* json_ = nullptr;
  std::uint32_t value_ = kMissing;
  std::uint32_t missing_parent_ = kMissing;
  bool of_key_ = false;
  MissingPath missing_;
  std::optional<Yaml> yaml_;  // YAML values only
};

template <typename Visit>
void Field::for_each_entry(Visit&& visit) const {
  if (json_) {
    if (!is_map()) return;
    const JsonDocument::Index* members = json_->children(value_);
    for (std::size_t i = 0, n = json_->size(value_); i < n; ++i)
      visit(json_->key(members[i]), json_child(members[i]));
    return;
  }
  if (!yaml_->node.IsMap()) return;
  for (auto it = yaml_->node.begin(); it != yaml_->node.end(); ++it) {
    const std::string k = it->first.Scalar();
    visit(std::string_view(k),
          Field(it->second, yaml_->path.empty() ? k : yaml_->path + "." + k, file_));
  }
}

/// One input text parsed: JSON (looks_like_json: it starts with `{` or `[`) through
/// nlohmann_json, anything else as a stream of YAML documents. Owns what its Fields refer to;
/// `text` and `file` must outlive it.
class ParsedText {
 public:
  /// `readable_past_end`: as JsonDocument's (a text with room after it is read in place).
  ParsedText(std::string_view text, const std::string& file, Diagnostics& diagnostics,
             std::size_t readable_past_end = 0);
  ~ParsedText();
  ParsedText(ParsedText&&) noexcept;
  /// The documents (empty YAML documents skipped), each with `documents[i]` as its path when
  /// there are several.
  const std::vector<Field>& documents() const { return documents_; }
  /// The only document; InputError when there is none ("the document is empty") or several.
  const Field& single() const;

 private:
  std::unique_ptr<JsonDocument> json_;
  std::vector<Field> documents_;
  const std::string* file_;
};

/// A number as written ("12", "-0.5e3"; no quotes, no "inf" or "nan"): its value, when it is a
/// finite 64-bit float. Field::number's rule, for readers that work on the text itself.
enum class NumberText { kFinite, kOutOfRange, kNotANumber };
NumberText number_as_written(std::string_view text, double& value);
/// Field::optional_int's rule on a number read from `text`: a whole number written without a
/// fraction or exponent (kInt) that fits in a 32-bit int.
enum class WholeText { kInt, kNotWhole, kTooLarge };
WholeText whole_number_as_written(std::string_view text, double value);

/// Throws InputError at the line and column of the first byte that is not valid UTF-8, or of a
/// NUL byte (YAML and JSON are Unicode text; names end up in JSON output).
void require_utf8(std::string_view text, const std::string& file);

/// Parses one YAML (or JSON) document; syntax errors become InputError with line and column.
YAML::Node parse_single_document(std::string_view text, const std::string& file);

/// Parses a stream of YAML documents separated by `---` (empty documents are skipped). Refuses a
/// key given twice in a map (as Kubernetes' YAML decoder does) and nesting deeper than
/// input_limits().max_depth.
std::vector<YAML::Node> parse_documents(std::string_view text, const std::string& file);

/// Parses an RFC 3339 date-time ("2025-01-02T03:04:05Z", fraction and offset allowed) into
/// nanoseconds since the Unix epoch; nullopt if malformed or not a real date (Feb 30), as Go's
/// time.Parse, or outside what 64-bit nanoseconds hold (before 1677-09-21, after 2262-04-11).
std::optional<std::int64_t> parse_rfc3339(std::string_view text);
/// Seconds since the Unix epoch as RFC 3339 in UTC ("2026-01-01T00:00:00Z").
std::string format_rfc3339(std::int64_t unix_seconds);

/// Parses a Go duration ("90s", "10m", "1h30m", "1.5h", "250ms") into milliseconds.
std::optional<std::int64_t> parse_go_duration_ms(std::string_view text);

}  // namespace sim::io
