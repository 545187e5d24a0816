#include "yaml_field.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <sstream>

#include <yaml-cpp/anchor.h>
#include <yaml-cpp/eventhandler.h>

namespace sim::io {
namespace {

bool equal_fold(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

// A scalar written in quotes is a string to YAML and JSON alike; yaml-cpp tags it "!".
bool is_quoted(const YAML::Node& node) { return node.Tag() == "!"; }

// JSON number grammar (also what a plain YAML number looks like): -?digits[.digits][e[+-]digits].
bool looks_numeric(std::string_view s) {
  std::size_t i = 0;
  if (i < s.size() && s[i] == '-') ++i;
  std::size_t digits = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    std::size_t exp_digits = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == s.size();
}

std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned shifted = m > 2 ? m - 3 : m + 9;  // March = 0
  const unsigned doy = (153 * shifted + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool read_digits(std::string_view s, std::size_t pos, std::size_t count, int& out) {
  if (pos + count > s.size()) return false;
  out = 0;
  for (std::size_t i = pos; i < pos + count; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

}  // namespace

SourceLocation Field::where() const {
  SourceLocation loc{file_ ? *file_ : std::string(), 0, 0};
  if (node_.IsDefined()) {
    const YAML::Mark mark = node_.Mark();
    if (mark.line >= 0) {
      loc.line = mark.line + 1;
      loc.column = mark.column + 1;
    }
  }
  return loc;
}

void Field::fail(const std::string& detail) const { throw InputError(where(), path_, detail); }

Field Field::member(std::string_view key) const {
  if (!node_.IsMap()) return Field(YAML::Node(YAML::NodeType::Undefined), path_ + "." + std::string(key), file_);
  YAML::Node folded(YAML::NodeType::Undefined);
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    const auto entry = *it;  // one proxy per entry; the key's text lives in the document
    const std::string& k = entry.first.Scalar();
    if (k == key) return Field(entry.second, path_.empty() ? std::string(key) : path_ + "." + std::string(key), file_);
    if (!folded.IsDefined() && equal_fold(k, key)) folded = entry.second;
  }
  const std::string child = path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  if (folded.IsDefined()) return Field(folded, child, file_);
  // A missing member: report it at the parent's position.
  Field missing(YAML::Node(YAML::NodeType::Undefined), child, file_);
  return missing;
}

std::vector<Field> Field::unknown_members(std::initializer_list<std::string_view> known) const {
  std::vector<Field> unknown;
  if (!node_.IsMap()) return unknown;
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    const std::string k = it->first.Scalar();
    bool found = false;
    for (std::string_view name : known) found = found || equal_fold(k, name);
    if (!found) unknown.emplace_back(it->first, path_.empty() ? k : path_ + "." + k, file_);
  }
  return unknown;
}

Field Field::item(std::size_t i) const {
  return Field(node_[i], path_ + "[" + std::to_string(i) + "]", file_);
}

std::vector<Field> Field::items() const {
  std::vector<Field> out;
  if (is_null()) return out;
  expect_sequence();
  for (std::size_t i = 0; i < size(); ++i) out.push_back(item(i));
  return out;
}

void Field::expect_map() const {
  if (!node_.IsMap()) fail("expected an object, got " + describe());
}

void Field::expect_sequence() const {
  if (!node_.IsSequence()) fail("expected a list, got " + describe());
}

double Field::number() const {
  if (!node_.IsScalar() || is_quoted(node_)) fail("expected a number, got " + describe());
  const std::string& text = node_.Scalar();
  if (!looks_numeric(text)) fail("expected a number, got " + describe());
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range || !std::isfinite(value)) {
    fail("number " + text + " is out of range for a 64-bit float");
  }
  if (ec != std::errc() || end != text.data() + text.size()) fail("expected a number, got " + describe());
  return value;
}

std::optional<double> Field::optional_number() const {
  if (is_null()) return std::nullopt;
  return number();
}

std::optional<int> Field::optional_int() const {
  if (is_null()) return std::nullopt;
  const double value = number();
  if (value != std::floor(value) || node_.Scalar().find_first_of(".eE") != std::string::npos) {
    fail("expected a whole number, got " + node_.Scalar());
  }
  if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max()) {
    fail("number " + node_.Scalar() + " does not fit in a 32-bit integer");
  }
  return static_cast<int>(value);
}

std::string Field::string() const {
  if (!node_.IsScalar()) fail("expected a string, got " + describe());
  return node_.Scalar();
}

std::optional<std::string> Field::optional_string() const {
  if (is_null()) return std::nullopt;
  return string();
}

std::string Field::describe() const {
  if (!node_.IsDefined() || node_.IsNull()) return "null";
  if (node_.IsSequence()) return "a list";
  if (node_.IsMap()) return "an object";
  std::string text = node_.Scalar();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return is_quoted(node_) ? "string \"" + text + "\"" : "\"" + text + "\"";
}

YAML::Node parse_single_document(std::string_view text, const std::string& file) {
  std::vector<YAML::Node> docs = parse_documents(text, file);
  if (docs.empty()) throw InputError(SourceLocation{file, 0, 0}, "", "the document is empty");
  if (docs.size() > 1) {
    throw InputError(SourceLocation{file, docs[1].Mark().line + 1, 0}, "",
                     "expected a single document, found " + std::to_string(docs.size()));
  }
  return docs.front();
}

namespace {

// Walks the documents' events without building nodes, to stop inputs on which yaml-cpp 0.7's
// LoadAll never ends (it keeps reporting new documents at the same place; found by the fuzzer).
class DocumentProgress : public YAML::EventHandler {
 public:
  explicit DocumentProgress(const std::string& file) : file_(file) {}
  void OnDocumentStart(const YAML::Mark& mark) override {
    if (mark.pos <= last_pos_) {
      throw InputError(SourceLocation{file_, mark.line + 1, mark.column + 1}, "",
                       "not valid YAML/JSON: the parser stops making progress here");
    }
    last_pos_ = mark.pos;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

 private:
  const std::string& file_;
  int last_pos_ = -1;
};

}  // namespace

void require_utf8(std::string_view text, const std::string& file) {
  int line = 1, column = 1;
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    // Sequence length from the lead byte; overlong forms and surrogates are refused too.
    std::size_t n = b < 0x80 ? 1 : (b >> 5) == 0x6 && b >= 0xC2 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E && b <= 0xF4 ? 4 : 0;
    bool ok = n > 0 && i + n <= text.size();
    for (std::size_t k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
    if (ok && n == 3) {
      const auto b1 = static_cast<unsigned char>(text[i + 1]);
      ok = !(b == 0xE0 && b1 < 0xA0) && !(b == 0xED && b1 >= 0xA0);
    }
    if (ok && n == 4) {
      const auto b1 = static_cast<unsigned char>(text[i + 1]);
      ok = !(b == 0xF0 && b1 < 0x90) && !(b == 0xF4 && b1 >= 0x90);
    }
    if (!ok) throw InputError(SourceLocation{file, line, column}, "", "not valid UTF-8 text");
    if (b == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
    i += n;
  }
}

std::vector<YAML::Node> parse_documents(std::string_view text, const std::string& file) {
  require_utf8(text, file);
  std::vector<YAML::Node> docs;
  try {
    {
      std::stringstream events{std::string(text)};
      YAML::Parser parser(events);
      DocumentProgress progress(file);
      while (parser.HandleNextDocument(progress)) {
      }
    }
    std::stringstream stream{std::string(text)};
    for (YAML::Node doc : YAML::LoadAll(stream)) {
      if (doc.IsDefined() && !doc.IsNull()) docs.push_back(doc);
    }
  } catch (const YAML::Exception& e) {
    const int line = e.mark.line >= 0 ? e.mark.line + 1 : 0;
    const int column = e.mark.column >= 0 ? e.mark.column + 1 : 0;
    throw InputError(SourceLocation{file, line, column}, "", "not valid YAML/JSON: " + e.msg);
  }
  return docs;
}

std::optional<std::int64_t> parse_rfc3339(std::string_view s) {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!read_digits(s, 0, 4, year) || s.size() < 20 || s[4] != '-' || !read_digits(s, 5, 2, month) ||
      s[7] != '-' || !read_digits(s, 8, 2, day) || s[10] != 'T' || !read_digits(s, 11, 2, hour) ||
      s[13] != ':' || !read_digits(s, 14, 2, minute) || s[16] != ':' || !read_digits(s, 17, 2, second)) {
    return std::nullopt;
  }
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) {
    return std::nullopt;
  }
  std::size_t pos = 19;
  std::int64_t nanos = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    std::int64_t scale = 100000000;
    std::size_t digits = 0;
    while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
      if (digits < 9) nanos += (s[pos] - '0') * scale, scale /= 10;
      ++pos, ++digits;
    }
    if (digits == 0) return std::nullopt;
  }
  std::int64_t offset_s = 0;
  if (pos < s.size() && s[pos] == 'Z') {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    int oh = 0, om = 0;
    if (!read_digits(s, pos + 1, 2, oh) || pos + 3 >= s.size() || s[pos + 3] != ':' ||
        !read_digits(s, pos + 4, 2, om) || oh > 23 || om > 59) {
      return std::nullopt;
    }
    offset_s = (oh * 3600 + om * 60) * (s[pos] == '-' ? -1 : 1);
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != s.size()) return std::nullopt;
  const std::int64_t days = days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  const std::int64_t secs = days * 86400 + hour * 3600 + minute * 60 + second - offset_s;
  return secs * 1000000000 + nanos;
}

std::optional<std::int64_t> parse_go_duration_ms(std::string_view s) {
  if (s == "0") return 0;
  bool negative = false;
  std::size_t pos = 0;
  if (pos < s.size() && (s[pos] == '-' || s[pos] == '+')) negative = s[pos++] == '-';
  if (pos >= s.size()) return std::nullopt;
  double total_ms = 0;
  while (pos < s.size()) {
    const std::size_t start = pos;
    while (pos < s.size() && (std::isdigit(static_cast<unsigned char>(s[pos])) || s[pos] == '.')) ++pos;
    if (pos == start) return std::nullopt;
    double value = 0;
    auto [end, ec] = std::from_chars(s.data() + start, s.data() + pos, value);
    if (ec != std::errc() || end != s.data() + pos) return std::nullopt;
    const std::size_t unit_start = pos;
    while (pos < s.size() && std::isalpha(static_cast<unsigned char>(s[pos]))) ++pos;
    const std::string_view unit = s.substr(unit_start, pos - unit_start);
    double scale = 0;
    if (unit == "h") scale = 3600000;
    else if (unit == "m") scale = 60000;
    else if (unit == "s") scale = 1000;
    else if (unit == "ms") scale = 1;
    else if (unit == "us" || unit == "\xC2\xB5s") scale = 1e-3;
    else if (unit == "ns") scale = 1e-6;
    else return std::nullopt;
    total_ms += value * scale;
  }
  if (total_ms > 9.2e15) return std::nullopt;
  const auto ms = static_cast<std::int64_t>(std::llround(total_ms));
  return negative ? -ms : ms;
}

}  // namespace sim::io
