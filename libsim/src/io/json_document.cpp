#include "json_document.hpp"

#include <simdjson.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <nlohmann/json.hpp>

#include "side_thread.hpp"
#include "sim/io/input_limits.hpp"

namespace sim::io {
namespace {

using Kind = JsonDocument::Kind;
using Index = JsonDocument::Index;

bool number_char(char c) {
  return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

// nlohmann's message without its "[json.exception...] parse error at line L, column C: " prefix
// (kaisim names the place itself), cut short when the token it quotes is long.
std::string parse_error_text(const std::string& what) {
  std::string text = what;
  if (const std::size_t column = text.find("column "); column != std::string::npos) {
    if (const std::size_t colon = text.find(": ", column); colon != std::string::npos)
      text = text.substr(colon + 2);
  }
  if (text.size() > 160) text = text.substr(0, 157) + "...";
  // The token it quotes may hold any bytes: the message stays printable ASCII.
  std::string out;
  for (char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if (b >= 0x20 && b < 0x7F) {
      out.push_back(c);
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out.push_back(kHex[b >> 4]);
      out.push_back(kHex[b & 0xF]);
    }
  }
  return out;
}

// A byte below 0x20 other than tab, newline and carriage return; sixteen bytes at a time (GCC's
// and Clang's vector extension: SSE2 compares, every lane at once).
bool has_control_character(std::string_view text) {
  using Bytes = unsigned char __attribute__((vector_size(16)));
  auto control = [](char c) {
    return static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r';
  };
  std::size_t i = 0;
  for (; i + 16 <= text.size(); i += 16) {
    Bytes b;
    std::memcpy(&b, text.data() + i, 16);
    const auto bad = (b < 0x20) & (b != '\t') & (b != '\n') & (b != '\r');
    std::uint64_t half[2];
    std::memcpy(half, &bad, 16);
    if ((half[0] | half[1]) != 0) return true;
  }
  for (; i < text.size(); ++i) {
    if (control(text[i])) return true;
  }
  return false;
}

}  // namespace

// What both readers below share: the tree is built in document order, each container's children
// gathered on a stack until it closes.
class JsonTreeBuilder {
 public:
  JsonTreeBuilder(JsonDocument& doc, Diagnostics& diagnostics)
      : doc_(doc), diagnostics_(diagnostics), max_depth_(input_limits().max_depth) {}

  JsonDocument::Value& add(Kind kind, std::uint32_t offset) {
    const auto index = static_cast<Index>(doc_.values_.size());
    JsonDocument::Value& v = doc_.values_.emplace_back();
    v.kind = kind;
    v.offset = offset;
    if (!open_.empty()) {
      const Open& o = open_.back();
      v.parent = o.value;
      if (doc_.values_[o.value].kind == Kind::kObject) {
        v.key_offset = o.key_offset;
        v.key_first = o.key_first;
        v.key_count = o.key_count;
        v.key_pooled = o.key_pooled;
      } else {
        v.key_first = static_cast<std::uint32_t>(pending_.size() - o.pending_start);
      }
      pending_.push_back(index);
    }
    return v;
  }

  // A scalar's text: `raw` (a view into the text) when it equals `value`, else a copy.
  void scalar(Kind kind, std::uint32_t offset, std::string_view raw, std::string_view value) {
    JsonDocument::Value& v = add(kind, offset);
    set_text(v.first, v.count, v.pooled, raw, value);
    member_done();
  }

  void literal(Kind kind, std::uint32_t offset) {
    add(kind, offset);
    member_done();
  }

  void key(std::uint32_t offset, std::string_view raw, std::string_view value) {
    Open& o = open_.back();
    o.has_key = true;
    o.key_offset = offset;
    set_text(o.key_first, o.key_count, o.key_pooled, raw, value);
  }

  void open(Kind kind, std::uint32_t offset) {
    if (static_cast<int>(open_.size()) >= max_depth_) {
      throw InputError(
          doc_.locate(offset), current_path(),
          "nested deeper than " + std::to_string(max_depth_) + " levels, the limit for any input");
    }
    const auto index = static_cast<Index>(doc_.values_.size());
    add(kind, offset);
    open_.push_back(Open{index, pending_.size()});
  }

  void close() {
    const Open top = open_.back();
    open_.pop_back();
    member_done();
    auto first = pending_.begin() + static_cast<std::ptrdiff_t>(top.pending_start);
    if (doc_.values_[top.value].kind == Kind::kObject) drop_repeated_keys(first);
    JsonDocument::Value& v = doc_.values_[top.value];
    v.first = static_cast<std::uint32_t>(doc_.children_.size());
    v.count = static_cast<std::uint32_t>(pending_.end() - first);
    doc_.children_.insert(doc_.children_.end(), first, pending_.end());
    pending_.erase(first, pending_.end());
  }

  // The field path of the value being read, as messages name it: queues[2].resourceShare.gpu.
  std::string current_path() const {
    std::string path;
    auto append_key = [&](std::string_view k) {
      if (!path.empty()) path += '.';
      path += k;
    };
    for (std::size_t i = 0; i < open_.size(); ++i) {
      const bool object = doc_.values_[open_[i].value].kind == Kind::kObject;
      const bool innermost = i + 1 == open_.size();
      const std::size_t end = innermost ? pending_.size() : open_[i + 1].pending_start;
      if (object) {
        if (innermost) {
          const Open& o = open_[i];
          if (o.has_key)
            append_key((o.key_pooled ? std::string_view(doc_.pool_) : doc_.text_)
                           .substr(o.key_first, o.key_count));
        } else {
          append_key(doc_.key(open_[i + 1].value));
        }
      } else {
        path += "[" + std::to_string(end - open_[i].pending_start - (innermost ? 0 : 1)) + "]";
      }
    }
    return path;
  }

  JsonDocument& doc() { return doc_; }

 private:
  // The innermost object's member has its value: a message from here on names no key.
  void member_done() {
    if (!open_.empty()) open_.back().has_key = false;
  }

  struct Open {
    Index value;
    std::size_t pending_start;
    bool has_key = false;  // objects: the key of the member being read
    bool key_pooled = false;
    std::uint32_t key_offset = 0, key_first = 0, key_count = 0;
  };

  void set_text(std::uint32_t& first, std::uint32_t& count, bool& pooled, std::string_view raw,
                std::string_view value) {
    count = static_cast<std::uint32_t>(value.size());
    pooled = raw != value;
    if (value.empty()) {
      first = 0;
      pooled = false;
    } else if (!pooled) {
      first = static_cast<std::uint32_t>(raw.data() - doc_.text_.data());
      return;
    }
    first = static_cast<std::uint32_t>(doc_.pool_.size());
    doc_.pool_ += value;
  }

  // A key given twice: Go's encoding/json keeps the last value; so does the document, with a
  // warning at the later key.
  void drop_repeated_keys(std::vector<Index>::iterator first) {
    const std::ptrdiff_t n = pending_.end() - first;
    if (n < 2) return;
    if (n <= 16) {  // the common case: a few members, compared pairwise without sorting
      std::string_view keys[16];
      for (std::ptrdiff_t i = 0; i < n; ++i) keys[i] = doc_.key(first[i]);
      bool repeated = false;
      for (std::ptrdiff_t a = 0; a < n && !repeated; ++a) {
        for (std::ptrdiff_t b = a + 1; b < n && !repeated; ++b) repeated = keys[a] == keys[b];
      }
      if (!repeated) return;
    }
    std::vector<Index> by_key(first, pending_.end());
    std::stable_sort(by_key.begin(), by_key.end(),
                     [&](Index a, Index b) { return doc_.key(a) < doc_.key(b); });
    std::vector<Index> dropped;
    for (std::size_t i = 1; i < by_key.size(); ++i) {
      if (doc_.key(by_key[i]) != doc_.key(by_key[i - 1])) continue;
      dropped.push_back(by_key[i - 1]);
      diagnostics_.warn(doc_.where(by_key[i], true), doc_.path(by_key[i]),
                        "key given twice (also at line " +
                            std::to_string(doc_.where(by_key[i - 1], true).line) +
                            "); the last one counts, as in Go");
    }
    if (dropped.empty()) return;
    std::sort(dropped.begin(), dropped.end());
    pending_.erase(std::remove_if(first, pending_.end(),
                                  [&](Index i) {
                                    return std::binary_search(dropped.begin(), dropped.end(), i);
                                  }),
                   pending_.end());
  }

  JsonDocument& doc_;
  Diagnostics& diagnostics_;
  int max_depth_;
  std::vector<Open> open_;
  std::vector<Index> pending_;  // children of the open containers, innermost last
};

namespace {

// The fast reader: simdjson's On-Demand API walks the text once; each value's token points into
// it, which gives its offset. Any error it meets stops it; the slow reader below then reads the
// same text and says exactly what and where.
class SimdjsonReader {
 public:
  SimdjsonReader(JsonTreeBuilder& builder, const char* padded)
      : builder_(builder), base_(padded), text_(builder.doc().source()) {}

  bool read(simdjson::ondemand::document& doc) {
    simdjson::ondemand::value root;
    if (doc.get_value().get(root) != simdjson::SUCCESS) return false;
    if (!value(root)) return false;
    const char* next = nullptr;
    return doc.current_location().get(next) == simdjson::OUT_OF_BOUNDS;  // nothing after the root
  }

 private:
  std::uint32_t offset(const char* p) const { return static_cast<std::uint32_t>(p - base_); }
  std::string_view in_text(std::string_view padded_view) const {
    return text_.substr(offset(padded_view.data()), padded_view.size());
  }

  bool value(simdjson::ondemand::value& v) {
    std::string_view token = v.raw_json_token();
    const std::uint32_t at = offset(token.data());
    simdjson::ondemand::json_type type;
    if (v.type().get(type) != simdjson::SUCCESS) return false;
    switch (type) {
      case simdjson::ondemand::json_type::object: {
        simdjson::ondemand::object object;
        if (v.get_object().get(object) != simdjson::SUCCESS) return false;
        builder_.open(Kind::kObject, at);
        for (auto member : object) {
          simdjson::ondemand::field field;
          if (std::move(member).get(field) != simdjson::SUCCESS) return false;
          const char* raw = field.key().raw();
          const char* end = raw;
          while (*end != '"' && *end != '\\')
            ++end;  // simdjson's first pass found the closing quote
          std::string_view key(raw, static_cast<std::size_t>(end - raw));
          std::string_view unescaped = in_text(key);
          if (*end == '\\' && field.unescaped_key().get(unescaped) != simdjson::SUCCESS)
            return false;
          builder_.key(offset(raw) - 1, *end == '\\' ? std::string_view() : in_text(key),
                       unescaped);
          if (!value(field.value())) return false;
        }
        builder_.close();
        return true;
      }
      case simdjson::ondemand::json_type::array: {
        simdjson::ondemand::array array;
        if (v.get_array().get(array) != simdjson::SUCCESS) return false;
        builder_.open(Kind::kArray, at);
        for (auto item : array) {
          simdjson::ondemand::value element;
          if (item.get(element) != simdjson::SUCCESS || !value(element)) return false;
        }
        builder_.close();
        return true;
      }
      case simdjson::ondemand::json_type::string: {
        token = token.substr(0, token.find_last_of('"') + 1);
        const std::string_view raw = in_text(token.substr(1, token.size() - 2));
        // Without an escape the text between the quotes is the value (simdjson's first pass
        // checked the quotes and the UTF-8): only an escaped string is unescaped, into simdjson's
        // buffer, and copied.
        if (raw.find('\\') == std::string_view::npos) {
          builder_.scalar(Kind::kString, at, raw, raw);
          return true;
        }
        std::string_view s;
        if (v.get_string().get(s) != simdjson::SUCCESS) return false;
        builder_.scalar(Kind::kString, at, std::string_view(), s);
        return true;
      }
      case simdjson::ondemand::json_type::number: {
        double d = 0;  // validates it; a number past a double's range goes to the slow reader
        if (v.get_double().get(d) != simdjson::SUCCESS) return false;
        std::size_t n = 0;
        while (n < token.size() && number_char(token[n])) ++n;
        const std::string_view raw = in_text(token.substr(0, n));
        builder_.scalar(Kind::kNumber, at, raw, raw);
        return true;
      }
      case simdjson::ondemand::json_type::boolean: {
        bool b = false;
        if (v.get_bool().get(b) != simdjson::SUCCESS) return false;
        builder_.literal(Kind::kBool, at);
        return true;
      }
      case simdjson::ondemand::json_type::null: {
        bool is_null = false;
        if (v.is_null().get(is_null) != simdjson::SUCCESS || !is_null) return false;
        builder_.literal(Kind::kNull, at);
        return true;
      }
    }
    return false;
  }

  JsonTreeBuilder& builder_;
  const char* base_;
  std::string_view text_;
};

// nlohmann_json reads its input through an iterator; this one notes how far the parser has read,
// which is where the value a SAX event reports ends.
class TrackingIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;
  TrackingIterator(const char* p, const char** read_to) : p_(p), read_to_(read_to) {}
  reference operator*() const { return *p_; }
  TrackingIterator& operator++() {
    *read_to_ = ++p_;
    return *this;
  }
  TrackingIterator operator++(int) {
    TrackingIterator before = *this;
    ++*this;
    return before;
  }
  bool operator==(const TrackingIterator& other) const { return p_ == other.p_; }
  bool operator!=(const TrackingIterator& other) const { return p_ != other.p_; }

 private:
  const char* p_;
  const char** read_to_;
};

// The careful reader: nlohmann_json's SAX parser, whose messages say what is wrong and at which
// byte. Its events carry no positions; the input iterator's progress gives them.
class NlohmannReader {
 public:
  using json = nlohmann::json;
  NlohmannReader(JsonTreeBuilder& builder, const char* const* read_to)
      : builder_(builder), text_(builder.doc().source()), read_to_(read_to) {}

  bool null() { return literal(Kind::kNull, 4); }
  bool boolean(bool value) { return literal(Kind::kBool, value ? 4 : 5); }
  bool number_integer(json::number_integer_t) { return number(); }
  bool number_unsigned(json::number_unsigned_t) { return number(); }
  bool number_float(json::number_float_t, const std::string&) { return number(); }
  bool binary(json::binary_t&) { return false; }  // not in JSON text
  bool string(std::string& value) {
    const auto [start, raw] = string_token();
    builder_.scalar(Kind::kString, start, raw, value);
    return true;
  }
  bool key(std::string& value) {
    const auto [start, raw] = string_token();
    builder_.key(start, raw, value);
    return true;
  }
  bool start_object(std::size_t) { return builder_.open(Kind::kObject, read() - 1), true; }
  bool start_array(std::size_t) { return builder_.open(Kind::kArray, read() - 1), true; }
  bool end_object() { return builder_.close(), true; }
  bool end_array() { return builder_.close(), true; }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) {
    JsonDocument& doc = builder_.doc();
    if (e.id == 406) {  // a number too large for a double: said as for any number field
      const auto [start, end] = number_token();
      throw InputError(doc.locate(start), builder_.current_path(),
                       "number " + std::string(text_.substr(start, end - start)) +
                           " is out of range for a 64-bit float");
    }
    const std::size_t offset = std::min(position > 0 ? position - 1 : 0, text_.size());
    throw InputError(doc.locate(static_cast<std::uint32_t>(offset)), builder_.current_path(),
                     "not valid JSON: " + parse_error_text(e.what()));
  }

 private:
  std::uint32_t read() const { return static_cast<std::uint32_t>(*read_to_ - text_.data()); }

  bool literal(Kind kind, std::uint32_t length) {
    builder_.literal(kind, read() - length);
    return true;
  }

  // A number ends where the parser stopped, less the one character it looked ahead (unless the
  // text ended); it starts after the last character that cannot be part of one.
  std::pair<std::uint32_t, std::uint32_t> number_token() const {
    std::uint32_t end = read();
    if (!(end == text_.size() && end > 0 && number_char(text_[end - 1]))) --end;
    std::uint32_t start = end;
    while (start > 0 && number_char(text_[start - 1])) --start;
    return {start, end};
  }

  bool number() {
    const auto [start, end] = number_token();
    const std::string_view raw = text_.substr(start, end - start);
    builder_.scalar(Kind::kNumber, start, raw, raw);
    return true;
  }

  // The string just read ends with the quote before the parser's position; it starts at the
  // nearest quote before that which no backslash escapes.
  std::pair<std::uint32_t, std::string_view> string_token() const {
    const std::uint32_t end = read();  // one past the closing quote
    std::uint32_t q = end - 1;
    while (q > 0) {
      --q;
      if (text_[q] != '"') continue;
      std::uint32_t slashes = 0;
      while (q >= slashes + 1 && text_[q - slashes - 1] == '\\') ++slashes;
      if (slashes % 2 == 0) break;
    }
    return {q, text_.substr(q + 1, end - q - 2)};
  }

  JsonTreeBuilder& builder_;
  std::string_view text_;
  const char* const* read_to_;
};

}  // namespace

JsonDocument::JsonDocument(std::string_view text, const std::string& file, Diagnostics& diagnostics,
                           std::size_t readable_past_end)
    : text_(text), file_(&file), locator_(text) {
  if (text.size() >= 0xFFFFFFFFu)
    throw InputError(SourceLocation{file, 0, 0}, "", "a JSON document of 4 GiB or more");
  // nlohmann_json takes a NUL byte for the end of the text; JSON has none, escaped or not.
  if (const void* nul = std::memchr(text.data(), 0, text.size())) {
    throw InputError(
        locate(static_cast<std::uint32_t>(static_cast<const char*>(nul) - text.data())), "",
        "a NUL byte: not text");
  }
  // simdjson lets control characters through inside strings; JSON does not: such text goes to
  // the careful reader, which says where.
  const bool control = has_control_character(text);
  if (!control) {
    // Room for more values than any document has (about one per 20 bytes of a snapshot), so
    // neither list is copied as it grows; the pages the values will likely fill are faulted in
    // beside.
    values_.reserve(text.size() / 12);
    children_.reserve(text.size() / 12);
    const std::size_t likely = text.size() / 20;
    const PagesFaultedBeside pages(
        {{values_.data(), likely * sizeof(Value)}, {children_.data(), likely * sizeof(Index)}});
    Diagnostics found;  // kept only if this reader gets to the end
    // simdjson reads up to SIMDJSON_PADDING bytes past the end: a text with that much room after
    // it (read_input_file leaves it) is read in place, any other is copied first.
    static_assert(kReadPadding >= simdjson::SIMDJSON_PADDING);
    simdjson::padded_string copy;
    simdjson::padded_string_view padded(text.data(), text.size(), text.size() + readable_past_end);
    if (readable_past_end < simdjson::SIMDJSON_PADDING) {
      copy = simdjson::padded_string(text);
      padded = copy;
    }
    simdjson::ondemand::parser parser;
    simdjson::ondemand::document doc;
    JsonTreeBuilder builder(*this, found);
    if (parser.iterate(padded).get(doc) == simdjson::SUCCESS &&
        SimdjsonReader(builder, padded.data()).read(doc)) {
      diagnostics.warnings.insert(diagnostics.warnings.end(), found.warnings.begin(),
                                  found.warnings.end());
      return;
    }
  }
  values_.clear();
  children_.clear();
  pool_.clear();
  const char* read_to = text.data();
  JsonTreeBuilder builder(*this, diagnostics);
  NlohmannReader reader(builder, &read_to);
  nlohmann::json::sax_parse(TrackingIterator(text.data(), &read_to),
                            TrackingIterator(text.data() + text.size(), &read_to), &reader);
}

std::string JsonDocument::path(Index v) const {
  std::vector<Index> chain;
  for (Index i = v; i != kNone && values_[i].parent != kNone; i = values_[i].parent)
    chain.push_back(i);
  std::string out;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    if (values_[values_[*it].parent].kind == Kind::kArray) {
      out += "[" + std::to_string(item_index(*it)) + "]";
    } else {
      if (!out.empty()) out += '.';
      out += key(*it);
    }
  }
  return out;
}

void JsonDocument::prefetch(Index v) const {
  // About one pod: its values follow it (pre-order), its members' lists end at its own list
  // (appended as each container closed), and its text starts at its offset.
  constexpr std::size_t kValues = 48, kChildren = 48, kText = 1024;
  if (v >= values_.size()) return;
  const Value& value = values_[v];
  const std::size_t last = std::min<std::size_t>(values_.size(), v + kValues);
  for (std::size_t i = v; i < last; i += 64 / sizeof(Value)) __builtin_prefetch(&values_[i]);
  if (is_container(v)) {
    const std::size_t end = std::min<std::size_t>(children_.size(), value.first + value.count);
    for (std::size_t i = end > kChildren ? end - kChildren : 0; i < end; i += 64 / sizeof(Index))
      __builtin_prefetch(&children_[i]);
  }
  const std::size_t text_end = std::min<std::size_t>(text_.size(), value.offset + kText);
  for (std::size_t i = value.offset; i < text_end; i += 64) __builtin_prefetch(text_.data() + i);
}

SourceLocation JsonDocument::where(Index v, bool of_key) const {
  return locate(of_key ? values_[v].key_offset : values_[v].offset);
}

SourceLocation JsonDocument::locate(std::uint32_t offset) const {
  const std::lock_guard<std::mutex> lock(locator_mutex_);
  return locator_.locate(offset, *file_);
}

SourceLocation TextLocator::locate(std::uint32_t offset, const std::string& file) {
  offset = std::min(offset, static_cast<std::uint32_t>(text_.size()));
  std::uint32_t from = cached_offset_, line = cached_line_, column = cached_column_;
  if (offset < cached_offset_) {  // backwards: from the start of the offset's line
    if (line_starts_.empty()) {
      line_starts_.push_back(0);
      const char* end = text_.data() + text_.size();
      for (const char* p = text_.data(); (p = static_cast<const char*>(std::memchr(
                                              p, '\n', static_cast<std::size_t>(end - p))));) {
        ++p;
        line_starts_.push_back(static_cast<std::uint32_t>(p - text_.data()));
      }
    }
    line = static_cast<std::uint32_t>(
        std::upper_bound(line_starts_.begin(), line_starts_.end(), offset) -
        line_starts_.begin());  // 1-based
    from = line_starts_[line - 1];
    column = 1;
  }
  // Forward from `from`: whole lines by memchr, then the columns of the last one. Columns count
  // characters: every byte but UTF-8 continuation bytes.
  const char* p = text_.data() + from;
  const char* const end = text_.data() + offset;
  while (const void* newline = std::memchr(p, '\n', static_cast<std::size_t>(end - p))) {
    p = static_cast<const char*>(newline) + 1;
    ++line;
    column = 1;
  }
  for (; p < end; ++p) column += (static_cast<unsigned char>(*p) & 0xC0) != 0x80;
  cached_offset_ = offset;
  cached_line_ = line;
  cached_column_ = column;
  return SourceLocation{file, static_cast<int>(line), static_cast<int>(column)};
}

bool simdjson_may_read(std::string_view text) {
  return text.size() < 0xFFFFFFFFu && !has_control_character(text);  // a NUL byte is one too
}

bool looks_like_json(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && (text[first] == '{' || text[first] == '[');
}

}  // namespace sim::io
