#pragma once
// Private helper for reading YAML/JSON documents with yaml-cpp: every value carries its field path
// and source position, so each complaint names file, line, column and field.

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/error.hpp"

namespace sim::io {

class JsonDocument;

/// A value of an input document with its field path and source position: a node of a YAML
/// document (yaml-cpp), or a value of a JsonDocument (JSON inputs, read by nlohmann_json). Both
/// answer the same questions, so every reader works on either.
class Field {
 public:
  Field(YAML::Node node, std::string path, const std::string* file)
      : node_(std::move(node)), path_(std::move(path)), file_(file) {}
  /// Value `value` of `doc` (which must outlive the Field); `path` is the document's own path
  /// (documents[i], or "" for the whole input); below it, paths are built only when asked for.
  /// `of_key` stands for the value's key (unknown_members), which only has a position.
  Field(const JsonDocument* doc, std::uint32_t value, std::string path, bool of_key = false);
  Field(const Field&) = default;
  // yaml-cpp's Node::operator= writes into the node it refers to (the document!); a Field must
  // rebind instead, or sorting Fields would rewrite the parsed objects.
  Field& operator=(const Field& other) {
    node_.reset(other.node_);
    path_ = other.path_;
    file_ = other.file_;
    json_ = other.json_;
    value_ = other.value_;
    of_key_ = other.of_key_;
    missing_parent_ = other.missing_parent_;
    missing_ = other.missing_;
    return *this;
  }

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
  /// A one-line rendering of the value for messages, e.g. `"abc"` or `[...]`.
  std::string describe() const;

 private:
  static constexpr std::uint32_t kMissing = 0xFFFFFFFFu;
  bool quoted() const;  // a string written in quotes (YAML) or a JSON string
  // A JSON Field below `this` (its path is the document's, built when asked for).
  Field json_child(std::uint32_t value, std::string missing) const;
  YAML::Node node_;
  std::string path_;  // YAML: the whole path; JSON: the document's path
  const std::string* file_;
  const JsonDocument* json_ = nullptr;
  std::uint32_t value_ = kMissing;
  bool of_key_ = false;
  // JSON, a member or item that is not there: the nearest value that is, and the rest of the
  // path from it (".key" or "[i]" parts).
  std::uint32_t missing_parent_ = kMissing;
  std::string missing_;
};

/// One input text parsed: JSON (looks_like_json: it starts with `{` or `[`) through
/// nlohmann_json, anything else as a stream of YAML documents. Owns what its Fields refer to;
/// `text` and `file` must outlive it.
class ParsedText {
 public:
  ParsedText(std::string_view text, const std::string& file, Diagnostics& diagnostics);
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
