#include "yaml_field.hpp"

#include <yaml-cpp/anchor.h>
#include <yaml-cpp/eventhandler.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <set>
#include <sstream>

#include "json_document.hpp"
#include "sim/core/assert.hpp"
#include "sim/io/input_limits.hpp"

namespace sim::io {
namespace {

// ASCII case folding, as Go's encoding/json matches keys (without the locale std::tolower asks).
bool equal_fold(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  if (a == b) return true;  // the common case, compared a word at a time
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto x = static_cast<unsigned char>(a[i]), y = static_cast<unsigned char>(b[i]);
    if (x == y) continue;
    const unsigned char lx = x >= 'A' && x <= 'Z' ? x + 32 : x,
                        ly = y >= 'A' && y <= 'Z' ? y + 32 : y;
    if (lx != ly) return false;
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

Field::Field(const JsonDocument* doc, std::uint32_t value, bool of_key)
    : file_(&doc->file()), json_(doc), value_(value), of_key_(of_key) {}

void Field::MissingPath::assign(std::string_view a, std::string_view b) {
  if (a.size() + b.size() <= kShort) {
    std::copy(a.begin(), a.end(), short_);
    std::copy(b.begin(), b.end(), short_ + a.size());
    size_ = static_cast<std::uint8_t>(a.size() + b.size());
    long_.reset();
    return;
  }
  std::string text;
  text.reserve(a.size() + b.size());
  text += a;
  text += b;
  long_ = std::make_shared<const std::string>(std::move(text));
  size_ = 0;
}

void Field::MissingPath::assign_member(std::string_view key) {
  if (key.size() + 1 > kShort) return assign(".", key);
  short_[0] = '.';
  std::memcpy(short_ + 1, key.data(), key.size());
  size_ = static_cast<std::uint8_t>(key.size() + 1);
  long_.reset();
}

std::string Field::path() const {
  if (!json_) return yaml_->path;
  std::string below;
  const std::uint32_t known = value_ != kMissing ? value_ : missing_parent_;
  if (known != kMissing) below = json_->path(known);
  if (value_ == kMissing) {
    const std::string_view missing = missing_.view();
    below += below.empty() && !missing.empty() && missing[0] == '.' ? missing.substr(1) : missing;
  }
  return below;
}

Field Field::json_child(std::uint32_t value, std::string_view missing) const {
  Field child(json_, value);
  if (value == kMissing) {
    if (value_ != kMissing) {
      child.missing_parent_ = value_;
      child.missing_.assign(missing, {});
    } else {
      child.missing_parent_ = missing_parent_;
      child.missing_.assign(missing_.view(), missing);
    }
  }
  return child;
}

SourceLocation Field::where() const {
  if (json_)
    return value_ == kMissing ? SourceLocation{*file_, 0, 0} : json_->where(value_, of_key_);
  SourceLocation loc{file_ ? *file_ : std::string(), 0, 0};
  if (yaml_->node.IsDefined()) {
    const YAML::Mark mark = yaml_->node.Mark();
    if (mark.line >= 0) {
      loc.line = mark.line + 1;
      loc.column = mark.column + 1;
    }
  }
  return loc;
}

const YAML::Node& Field::node() const {
  SIM_ASSERT(!json_);  // JSON values answer through the Field's own accessors
  return yaml_->node;
}

bool Field::is_null() const {
  if (json_) return value_ == kMissing || json_->kind(value_) == JsonDocument::Kind::kNull;
  return !yaml_->node.IsDefined() || yaml_->node.IsNull();
}

bool Field::is_map() const {
  if (json_) return value_ != kMissing && json_->kind(value_) == JsonDocument::Kind::kObject;
  return yaml_->node.IsMap();
}

bool Field::is_sequence() const {
  if (json_) return value_ != kMissing && json_->kind(value_) == JsonDocument::Kind::kArray;
  return yaml_->node.IsSequence();
}

bool Field::is_scalar() const {
  if (json_) return !is_null() && !json_->is_container(value_);
  return yaml_->node.IsScalar();
}

std::string Field::scalar() const {
  if (json_) return is_scalar() ? std::string(json_->text(value_)) : std::string();
  return yaml_->node.IsScalar() ? yaml_->node.Scalar() : std::string();
}

std::string_view Field::scalar_view(std::string& buffer) const {
  if (json_) return is_scalar() ? json_->text(value_) : std::string_view();
  buffer = scalar();
  return buffer;
}

bool Field::quoted() const {
  if (json_) return value_ != kMissing && json_->kind(value_) == JsonDocument::Kind::kString;
  return is_quoted(yaml_->node);
}

void Field::fail(const std::string& detail) const { throw InputError(where(), path(), detail); }

Field Field::member(std::string_view key) const {
  if (json_) {
    // Go's encoding/json: each key goes to the field it names, exactly or ignoring case, and a
    // later key overwrites an earlier one; the last matching key counts.
    if (is_map()) {
      const JsonDocument::Index* members = json_->children(value_);
      for (std::size_t i = json_->size(value_); i-- > 0;) {
        if (equal_fold(json_->key(members[i]), key)) return json_child(members[i]);
      }
    }
    if (value_ != kMissing) {
      Field child(json_, kMissing);
      child.missing_parent_ = value_;
      child.missing_.assign_member(key);
      return child;
    }
    std::string part;
    part.reserve(key.size() + 1);
    part += '.';
    part += key;
    return json_child(kMissing, part);
  }
  const std::string& path = yaml_->path;
  const YAML::Node& node = yaml_->node;
  const std::string child = path.empty() ? std::string(key) : path + "." + std::string(key);
  if (!node.IsMap()) return Field(YAML::Node(YAML::NodeType::Undefined), child, file_);
  YAML::Node folded(YAML::NodeType::Undefined);
  for (auto it = node.begin(); it != node.end(); ++it) {
    const auto entry = *it;  // one proxy per entry; the key's text lives in the document
    const std::string& k = entry.first.Scalar();
    if (k == key) return Field(entry.second, child, file_);
    if (!folded.IsDefined() && equal_fold(k, key)) folded = entry.second;
  }
  if (folded.IsDefined()) return Field(folded, child, file_);
  // A missing member: report it at the parent's position.
  return Field(YAML::Node(YAML::NodeType::Undefined), child, file_);
}

std::vector<std::pair<std::string, Field>> Field::entries() const {
  std::vector<std::pair<std::string, Field>> out;
  if (!is_map()) return out;
  if (json_) out.reserve(json_->size(value_));
  for_each_entry([&](std::string_view key, Field value) {
    out.emplace_back(std::string(key), std::move(value));
  });
  return out;
}

bool Field::same_key(std::string_view key, std::string_view field) {
  return equal_fold(key, field);
}

void Field::for_each_member(
    const std::function<void(std::string_view, const Field&, const Field&)>& visit) const {
  if (!is_map()) return;
  if (json_) {
    const JsonDocument::Index* members = json_->children(value_);
    for (std::size_t i = 0; i < json_->size(value_); ++i)
      visit(json_->key(members[i]), json_child(members[i]), Field(json_, members[i], true));
    return;
  }
  const std::string& path = yaml_->path;
  for (auto it = yaml_->node.begin(); it != yaml_->node.end(); ++it) {
    const std::string k = it->first.Scalar();
    const std::string child = path.empty() ? k : path + "." + k;
    visit(k, Field(it->second, child, file_), Field(it->first, child, file_));
  }
}

std::vector<Field> Field::unknown_members(std::initializer_list<std::string_view> known) const {
  std::vector<Field> unknown;
  if (!is_map()) return unknown;
  auto is_known = [&](std::string_view k) {
    for (std::string_view name : known) {
      if (equal_fold(k, name)) return true;
    }
    return false;
  };
  if (json_) {
    const JsonDocument::Index* members = json_->children(value_);
    for (std::size_t i = 0; i < json_->size(value_); ++i) {
      const std::string_view k = json_->key(members[i]);
      if (!is_known(k)) unknown.emplace_back(json_, members[i], true);
    }
    return unknown;
  }
  const std::string& path = yaml_->path;
  for (auto it = yaml_->node.begin(); it != yaml_->node.end(); ++it) {
    const std::string k = it->first.Scalar();
    if (!is_known(k)) unknown.emplace_back(it->first, path.empty() ? k : path + "." + k, file_);
  }
  return unknown;
}

std::size_t Field::size() const {
  if (json_) return value_ == kMissing ? 0 : json_->size(value_);
  return yaml_->node.size();
}

Field Field::item(std::size_t i) const {
  if (json_) {
    if (is_sequence() && i < size()) return json_child(json_->children(value_)[i]);
    return json_child(kMissing, "[" + std::to_string(i) + "]");
  }
  return Field(yaml_->node[i], yaml_->path + "[" + std::to_string(i) + "]", file_);
}

std::vector<Field> Field::items() const {
  std::vector<Field> out;
  if (is_null()) return out;
  expect_sequence();
  out.reserve(size());
  for (std::size_t i = 0; i < size(); ++i) out.push_back(item(i));
  return out;
}

void Field::expect_map() const {
  if (!is_map()) fail("expected an object, got " + describe());
}

void Field::expect_sequence() const {
  if (!is_sequence()) fail("expected a list, got " + describe());
}

double Field::number() const {
  if (!is_scalar() || quoted() || (json_ && json_->kind(value_) != JsonDocument::Kind::kNumber)) {
    fail("expected a number, got " + describe());
  }
  const std::string text = scalar();
  double value = 0;
  switch (number_as_written(text, value)) {
    case NumberText::kFinite:
      return value;
    case NumberText::kOutOfRange:
      fail("number " + text + " is out of range for a 64-bit float");
    case NumberText::kNotANumber:
      break;
  }
  fail("expected a number, got " + describe());
}

NumberText number_as_written(std::string_view text, double& value) {
  if (!looks_numeric(text)) return NumberText::kNotANumber;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range || (ec == std::errc() && !std::isfinite(value)))
    return NumberText::kOutOfRange;
  if (ec != std::errc() || end != text.data() + text.size()) return NumberText::kNotANumber;
  return NumberText::kFinite;
}

std::optional<double> Field::optional_number() const {
  if (is_null()) return std::nullopt;
  return number();
}

std::optional<int> Field::optional_int() const {
  if (is_null()) return std::nullopt;
  const double value = number();
  const std::string text = scalar();
  switch (whole_number_as_written(text, value)) {
    case WholeText::kNotWhole:
      fail("expected a whole number, got " + text);
    case WholeText::kTooLarge:
      fail("number " + text + " does not fit in a 32-bit integer");
    case WholeText::kInt:
      break;
  }
  return static_cast<int>(value);
}

WholeText whole_number_as_written(std::string_view text, double value) {
  if (value != std::floor(value) || text.find_first_of(".eE") != std::string_view::npos)
    return WholeText::kNotWhole;
  if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max())
    return WholeText::kTooLarge;
  return WholeText::kInt;
}

std::string Field::string() const {
  if (!is_scalar() || (json_ && !quoted())) fail_not_string();
  return scalar();
}

void Field::fail_not_string() const { fail("expected a string, got " + describe()); }

std::optional<std::string> Field::optional_string() const {
  if (is_null()) return std::nullopt;
  return string();
}

std::string Field::string_or(std::string_view fallback) const {
  if (json_) {
    if (value_ == kMissing) return std::string(fallback);
    const JsonDocument::Kind kind = json_->kind(value_);
    if (kind == JsonDocument::Kind::kString) return std::string(json_->text(value_));
    if (kind == JsonDocument::Kind::kNull) return std::string(fallback);
    fail_not_string();
  }
  if (is_null()) return std::string(fallback);
  return string();
}

std::string Field::describe() const {
  if (is_null()) return "null";
  if (is_sequence()) return "a list";
  if (is_map()) return "an object";
  std::string text = scalar();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return quoted() ? "string \"" + text + "\"" : "\"" + text + "\"";
}

ParsedText::ParsedText(std::string_view text, const std::string& file, Diagnostics& diagnostics,
                       std::size_t readable_past_end)
    : file_(&file) {
  if (looks_like_json(text)) {
    json_ = std::make_unique<JsonDocument>(text, file, diagnostics, readable_past_end);
    documents_.emplace_back(json_.get(), json_->root());
    return;
  }
  const std::vector<YAML::Node> docs = parse_documents(text, file);
  for (std::size_t d = 0; d < docs.size(); ++d) {
    documents_.emplace_back(
        docs[d], docs.size() == 1 ? std::string() : "documents[" + std::to_string(d) + "]", &file);
  }
}

ParsedText::~ParsedText() = default;
ParsedText::ParsedText(ParsedText&&) noexcept = default;

const Field& ParsedText::single() const {
  if (documents_.empty())
    throw InputError(SourceLocation{*file_, 0, 0}, "", "the document is empty");
  if (documents_.size() > 1) {
    throw InputError(SourceLocation{*file_, documents_[1].where().line, 0}, "",
                     "expected a single document, found " + std::to_string(documents_.size()));
  }
  return documents_.front();
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

// Walks the documents' events without building nodes, before yaml-cpp builds them: stops inputs
// on which yaml-cpp 0.7's LoadAll never ends (it keeps reporting new documents at the same place;
// found by the fuzzer), nesting deeper than the limit, and a key given twice in a map (which
// Kubernetes' YAML decoder refuses and yaml-cpp would silently resolve to the first).
class DocumentProgress : public YAML::EventHandler {
 public:
  explicit DocumentProgress(const std::string& file)
      : file_(file), max_depth_(input_limits().max_depth) {}
  void OnDocumentStart(const YAML::Mark& mark) override {
    if (mark.pos <= last_pos_) {
      throw InputError(SourceLocation{file_, mark.line + 1, mark.column + 1}, "",
                       "not valid YAML/JSON: the parser stops making progress here");
    }
    last_pos_ = mark.pos;
    open_.clear();
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override { value(); }
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override { value(); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                const std::string& text) override {
    if (!open_.empty() && open_.back().map && open_.back().at_key) {
      if (!open_.back().keys.insert(text).second) {
        throw InputError(SourceLocation{file_, mark.line + 1, mark.column + 1},
                         path(open_.size() - 1, text),
                         "key given twice in the same map (Kubernetes refuses this)");
      }
      open_.back().key = text;
    }
    value();
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    open(mark, false);
  }
  void OnSequenceEnd() override { open_.pop_back(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    open(mark, true);
  }
  void OnMapEnd() override { open_.pop_back(); }

 private:
  struct Open {
    bool map;
    bool at_key = true;  // in a map: the next node is a key
    std::set<std::string> keys;
    std::string key;        // in a map: the key of the member being read
    std::size_t items = 0;  // in a list: the items begun
  };
  // A node took the next place in the innermost collection.
  void value() {
    if (open_.empty()) return;
    if (open_.back().map)
      open_.back().at_key = !open_.back().at_key;
    else
      ++open_.back().items;
  }
  // The field path through the first `levels` open collections, then `last` (a key), if any.
  std::string path(std::size_t levels, const std::string& last = "") const {
    std::string out;
    for (std::size_t i = 0; i < levels; ++i) {
      if (open_[i].map)
        out += (out.empty() ? "" : ".") + open_[i].key;
      else
        out += "[" + std::to_string(open_[i].items - 1) + "]";
    }
    if (!last.empty()) out += (out.empty() ? "" : ".") + last;
    return out;
  }
  void open(const YAML::Mark& mark, bool map) {
    value();
    if (static_cast<int>(open_.size()) >= max_depth_) {
      throw InputError(
          SourceLocation{file_, mark.line + 1, mark.column + 1}, path(open_.size()),
          "nested deeper than " + std::to_string(max_depth_) + " levels, the limit for any input");
    }
    open_.push_back(Open{map, true, {}, {}, 0});
  }
  const std::string& file_;
  int max_depth_;
  int last_pos_ = -1;
  std::vector<Open> open_;
};

}  // namespace

void require_utf8(std::string_view text, const std::string& file) {
  int line = 1, column = 1;
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    // Sequence length from the lead byte; overlong forms and surrogates are refused too.
    std::size_t n = b < 0x80                        ? 1
                    : (b >> 5) == 0x6 && b >= 0xC2  ? 2
                    : (b >> 4) == 0xE               ? 3
                    : (b >> 3) == 0x1E && b <= 0xF4 ? 4
                                                    : 0;
    bool ok = n > 0 && i + n <= text.size();
    for (std::size_t k = 1; ok && k < n; ++k)
      ok = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
    if (ok && n == 3) {
      const auto b1 = static_cast<unsigned char>(text[i + 1]);
      ok = !(b == 0xE0 && b1 < 0xA0) && !(b == 0xED && b1 >= 0xA0);
    }
    if (ok && n == 4) {
      const auto b1 = static_cast<unsigned char>(text[i + 1]);
      ok = !(b == 0xF0 && b1 < 0x90) && !(b == 0xF4 && b1 >= 0x90);
    }
    if (!ok) throw InputError(SourceLocation{file, line, column}, "", "not valid UTF-8 text");
    if (b == 0) throw InputError(SourceLocation{file, line, column}, "", "a NUL byte: not text");
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

std::string format_rfc3339(std::int64_t seconds) {
  const std::int64_t days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400;
  const std::int64_t rem = seconds - days * 86400;
  // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
  const std::int64_t z = days + 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const std::int64_t doe = z - era * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  std::int64_t y = yoe + era * 400;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  const std::int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const std::int64_t m = mp < 10 ? mp + 3 : mp - 9;
  y += m <= 2;
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lldZ",
                static_cast<long long>(y), static_cast<long long>(m), static_cast<long long>(d),
                static_cast<long long>(rem / 3600), static_cast<long long>(rem % 3600 / 60),
                static_cast<long long>(rem % 60));
  return buf;
}

std::optional<std::int64_t> parse_rfc3339(std::string_view s) {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!read_digits(s, 0, 4, year) || s.size() < 20 || s[4] != '-' || !read_digits(s, 5, 2, month) ||
      s[7] != '-' || !read_digits(s, 8, 2, day) || s[10] != 'T' || !read_digits(s, 11, 2, hour) ||
      s[13] != ':' || !read_digits(s, 14, 2, minute) || s[16] != ':' ||
      !read_digits(s, 17, 2, second)) {
    return std::nullopt;
  }
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59)
    return std::nullopt;
  static constexpr int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  if (day > kDays[month - 1] || (month == 2 && day == 29 && !leap))
    return std::nullopt;  // Go: "day out of range"
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
  const std::int64_t days =
      days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  const std::int64_t secs = days * 86400 + hour * 3600 + minute * 60 + second - offset_s;
  std::int64_t ns = 0;  // 64-bit nanoseconds hold the years 1678 to 2262 only
  if (__builtin_mul_overflow(secs, std::int64_t{1000000000}, &ns) ||
      __builtin_add_overflow(ns, nanos, &ns)) {
    return std::nullopt;
  }
  return ns;
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
    while (pos < s.size() && (std::isdigit(static_cast<unsigned char>(s[pos])) || s[pos] == '.'))
      ++pos;
    if (pos == start) return std::nullopt;
    double value = 0;
    auto [end, ec] = std::from_chars(s.data() + start, s.data() + pos, value);
    if (ec != std::errc() || end != s.data() + pos) return std::nullopt;
    const std::size_t unit_start = pos;
    while (pos < s.size() && std::isalpha(static_cast<unsigned char>(s[pos]))) ++pos;
    const std::string_view unit = s.substr(unit_start, pos - unit_start);
    double scale = 0;
    if (unit == "h")
      scale = 3600000;
    else if (unit == "m")
      scale = 60000;
    else if (unit == "s")
      scale = 1000;
    else if (unit == "ms")
      scale = 1;
    else if (unit == "us" || unit == "\xC2\xB5s")
      scale = 1e-3;
    else if (unit == "ns")
      scale = 1e-6;
    else
      return std::nullopt;
    total_ms += value * scale;
  }
  if (total_ms > 9.2e15) return std::nullopt;
  const auto ms = static_cast<std::int64_t>(std::llround(total_ms));
  return negative ? -ms : ms;
}

}  // namespace sim::io
