#pragma once
// Private helper for reading YAML/JSON documents with yaml-cpp: every value carries its field path
// and source position, so each complaint names file, line, column and field.

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/error.hpp"

namespace sim::io {

class Field {
 public:
  Field(YAML::Node node, std::string path, const std::string* file)
      : node_(std::move(node)), path_(std::move(path)), file_(file) {}
  Field(const Field&) = default;
  // yaml-cpp's Node::operator= writes into the node it refers to (the document!); a Field must
  // rebind instead, or sorting Fields would rewrite the parsed objects.
  Field& operator=(const Field& other) {
    node_.reset(other.node_);
    path_ = other.path_;
    file_ = other.file_;
    return *this;
  }

  const std::string& path() const { return path_; }
  SourceLocation where() const;
  const YAML::Node& node() const { return node_; }
  bool is_null() const { return !node_.IsDefined() || node_.IsNull(); }
  bool is_map() const { return node_.IsMap(); }
  bool is_sequence() const { return node_.IsSequence(); }

  /// Throws InputError naming this field.
  [[noreturn]] void fail(const std::string& detail) const;

  /// Map member by key. Keys match exactly first, then ignoring ASCII case (as Go's
  /// encoding/json does); a missing key gives a null field.
  Field member(std::string_view key) const;
  /// Keys of this map that are not in `known` (compared ignoring case), for warnings.
  std::vector<Field> unknown_members(std::initializer_list<std::string_view> known) const;
  std::size_t size() const { return node_.size(); }
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
  std::string string() const;
  std::optional<std::string> optional_string() const;
  /// A one-line rendering of the value for messages, e.g. `"abc"` or `[...]`.
  std::string describe() const;

 private:
  YAML::Node node_;
  std::string path_;
  const std::string* file_;
};

/// Throws InputError at the line and column of the first byte that is not valid UTF-8 (YAML and
/// JSON are Unicode; names end up in JSON output).
void require_utf8(std::string_view text, const std::string& file);

/// Parses one YAML (or JSON) document; syntax errors become InputError with line and column.
YAML::Node parse_single_document(std::string_view text, const std::string& file);

/// Parses a stream of YAML documents separated by `---` (empty documents are skipped).
std::vector<YAML::Node> parse_documents(std::string_view text, const std::string& file);

/// Parses an RFC 3339 date-time ("2025-01-02T03:04:05Z", fraction and offset allowed) into
/// nanoseconds since the Unix epoch; nullopt if malformed.
std::optional<std::int64_t> parse_rfc3339(std::string_view text);

/// Parses a Go duration ("90s", "10m", "1h30m", "1.5h", "250ms") into milliseconds.
std::optional<std::int64_t> parse_go_duration_ms(std::string_view text);

}  // namespace sim::io
