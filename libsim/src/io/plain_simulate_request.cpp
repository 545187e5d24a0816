// The simulator request read straight off simdjson's On-Demand tokens. Every rule here is the
// field reader's (simulate_request.cpp); where that reader would warn or refuse, this one only
// gives up (NotPlain) and the field reader reads the text again, so messages come from one place.

#include <simdjson.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "json_document.hpp"
#include "sim/core/resource_vec.hpp"
#include "sim/io/input_limits.hpp"
#include "simulate_request_readers.hpp"
#include "yaml_field.hpp"

namespace sim::io {
namespace {

namespace od = simdjson::ondemand;

struct NotPlain {};  // thrown only inside this file

template <typename T>
T need(simdjson::simdjson_result<T>&& result) {
  T value{};
  if (std::move(result).get(value) != simdjson::SUCCESS) throw NotPlain{};
  return value;
}

void require(bool plain) {
  if (!plain) throw NotPlain{};
}

// JSON's number grammar, RFC 8259 section 6: -? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)?
// (simdjson checks a number only when it converts one; from_chars alone takes "01" and "1.").
bool json_number(std::string_view s) {
  std::size_t i = 0;
  auto digits = [&] {
    const std::size_t from = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i - from;
  };
  if (i < s.size() && s[i] == '-') ++i;
  if (i < s.size() && s[i] == '0')
    ++i;
  else if (digits() == 0)
    return false;
  if (i < s.size() && s[i] == '.' && (++i, digits() == 0)) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}

// A key as written, between its quotes; one with an escape is not plain.
std::string_view key_of(od::field& field) {
  const char* raw = field.key().raw();
  const char* end = raw;
  while (*end != '"' && *end != '\\') ++end;  // simdjson's first pass found the closing quote
  require(*end == '"');
  return {raw, static_cast<std::size_t>(end - raw)};
}

// Calls read(key, value) for each member of the object `v` (a value or the document), in order.
template <typename Object, typename Read>
void for_each_member(Object& v, Read&& read) {
  for (auto member : need(v.get_object())) {
    od::field field = need(std::move(member));
    const std::string_view key = key_of(field);
    od::value value = field.value();
    read(key, value);
  }
}

// Each key of an object once: bit `bit` of `seen` (Go keeps the last of two; the field reader
// warns, so two are not plain).
void first_time(unsigned& seen, unsigned bit) {
  require((seen & (1u << bit)) == 0);
  seen |= 1u << bit;
}

// A null, checked whole: type() looks at the first byte only, so "nope" would pass for null.
bool is_null(od::value& v) {
  if (need(v.type()) != od::json_type::null) return false;
  require(need(v.is_null()));
  return true;
}

// Field::number: a JSON number whose text is a finite double. `text` gets the number as written.
double number(od::value& v, std::string_view* text = nullptr) {
  require(need(v.type()) == od::json_type::number);
  std::string_view token = v.raw_json_token();  // the number and the white space after it
  token = token.substr(0, token.find_last_not_of(" \t\r\n") + 1);
  double value = 0;
  require(json_number(token) && number_as_written(token, value) == NumberText::kFinite);
  if (text) *text = token;
  return value;
}

std::optional<double> optional_number(od::value& v) {
  if (is_null(v)) return std::nullopt;
  return number(v);
}

// simulate_request.cpp quota_like and non_negative.
std::optional<double> quota_like(od::value& v) {
  std::optional<double> d = optional_number(v);
  require(!d || *d >= 0 || *d == kUnlimited);
  return d;
}

std::optional<double> non_negative(od::value& v) {
  std::optional<double> d = optional_number(v);
  require(!d || *d >= 0);
  return d;
}

std::string string(od::value& v) {
  require(need(v.type()) == od::json_type::string);
  return std::string(need(v.get_string()));
}

std::optional<std::string> optional_string(od::value& v) {
  if (is_null(v)) return std::nullopt;
  return string(v);
}

std::optional<ShareOverrides> read_share(od::value& v) {
  if (is_null(v)) return std::nullopt;
  ShareOverrides s;
  unsigned seen = 0;
  for_each_member(v, [&](std::string_view key, od::value& value) {
    if (key == "deserved")
      first_time(seen, 0), s.deserved = quota_like(value);
    else if (key == "fairShare")
      first_time(seen, 1), s.fair_share = non_negative(value);
    else if (key == "maxAllowed")
      first_time(seen, 2), s.max_allowed = quota_like(value);
    else if (key == "overQuotaWeight")
      first_time(seen, 3), s.over_quota_weight = non_negative(value);
    else if (key == "allocated")
      first_time(seen, 4), s.allocated = non_negative(value);
    else if (key == "allocatedNotPreemptible")
      first_time(seen, 5), s.allocated_not_preemptible = non_negative(value);
    else if (key == "request")
      first_time(seen, 6), s.request = non_negative(value);
    else if (key == "absoluteUsage")
      first_time(seen, 7), s.absolute_usage = non_negative(value);
    else if (key == "vacantAdjustedUsage")
      first_time(seen, 8), (void)optional_number(value);
    else
      throw NotPlain{};
  });
  return s;
}

void read_shares(od::value& v, QueueOverrides& q) {
  if (is_null(v)) return;
  unsigned seen = 0;
  for_each_member(v, [&](std::string_view key, od::value& value) {
    std::size_t r = 0;
    while (r < kQuotaResources.size() && key != resource_name(kQuotaResources[r])) ++r;
    require(r < kQuotaResources.size());
    first_time(seen, static_cast<unsigned>(r));
    q.shares[static_cast<std::size_t>(index_of(kQuotaResources[r]))] = read_share(value);
  });
}

class PlainReader {
 public:
  PlainReader(const char* base, std::string_view text, const std::string& file)
      : base_(base), file_(file), locator_(text) {}

  SimulateRequest read(od::document& doc) {
    SimulateRequest request;
    unsigned seen = 0;
    for_each_member(doc, [&](std::string_view key, od::value& value) {
      if (key == "totalResource")
        first_time(seen, 0), read_total(value, request);
      else if (key == "kValue")
        first_time(seen, 1), request.k_value = optional_number(value).value_or(request.k_value);
      else if (key == "queues")
        first_time(seen, 2), read_queues(value, request);
      else
        throw NotPlain{};
    });
    const char* next = nullptr;
    require(doc.current_location().get(next) == simdjson::OUT_OF_BOUNDS);  // nothing after the root
    return request;
  }

 private:
  // totalResource is a Go map: its keys match exactly (simulate_request.cpp).
  static void read_total(od::value& v, SimulateRequest& request) {
    if (is_null(v)) return;
    unsigned seen = 0;
    for_each_member(v, [&](std::string_view key, od::value& value) {
      const double amount = number(value);
      require(amount >= 0);
      if (key == "CPU")
        first_time(seen, 0), request.total[index_of(Resource::CPU)] = amount;
      else if (key == "Memory")
        first_time(seen, 1), request.total[index_of(Resource::MEMORY)] = amount;
      else if (key == "GPU")
        first_time(seen, 2), request.total[index_of(Resource::GPU)] = amount;
      else
        throw NotPlain{};
    });
  }

  void read_queues(od::value& v, SimulateRequest& request) {
    if (is_null(v)) return;
    // Not reserved by count: a list of a million junk items would reserve gigabytes before the
    // first one is refused.
    for (auto item : need(v.get_array())) {
      od::value queue = need(std::move(item));
      request.queues.push_back(read_queue(queue, request.queues.size()));
    }
  }

  QueueOverrides read_queue(od::value& v, std::size_t index) {
    QueueOverrides q;
    q.where = locator_.locate(static_cast<std::uint32_t>(v.raw_json_token().data() - base_), file_);
    q.path = "queues[" + std::to_string(index) + "]";
    unsigned seen = 0;
    for_each_member(v, [&](std::string_view key, od::value& value) {
      if (key == "uid") {
        first_time(seen, 0);
        q.uid = string(value);
        require(!q.uid.empty());
      } else if (key == "name") {
        first_time(seen, 1), q.name = optional_string(value).value_or("");
      } else if (key == "parentQueue") {
        first_time(seen, 2), q.parent = optional_string(value).value_or("");
      } else if (key == "childQueues") {
        first_time(seen, 3);  // KAI derives children from parentQueue; this list is ignored
        if (!is_null(value)) {
          for (auto child : need(value.get_array())) {
            od::value name = need(std::move(child));
            (void)string(name);
          }
        }
      } else if (key == "creationTimestamp") {
        first_time(seen, 4);
        if (std::optional<std::string> text = optional_string(value)) {
          q.created_ns = parse_rfc3339(*text);
          require(q.created_ns.has_value());
        }
      } else if (key == "priority") {
        first_time(seen, 5);
        q.priority = priority(value);
      } else if (key == "resourceShare") {
        first_time(seen, 6), read_shares(value, q);
      } else {
        throw NotPlain{};
      }
    });
    require((seen & 1u) != 0);  // uid is required
    return q;
  }

  // Field::optional_int: a whole number, written without a fraction or exponent, that fits in int.
  static std::optional<int> priority(od::value& v) {
    if (is_null(v)) return std::nullopt;
    std::string_view text;
    const double d = number(v, &text);
    require(whole_number_as_written(text, d) == WholeText::kInt);
    return static_cast<int>(d);
  }

  const char* base_;
  const std::string& file_;
  TextLocator locator_;
};

}  // namespace

std::optional<SimulateRequest> read_plain_simulate_request(std::string_view text,
                                                           const std::string& file, bool padded) {
  static_assert(kReadPadding >= simdjson::SIMDJSON_PADDING);
  // The field reader's checks before its tree: a byte order mark, text simdjson must not read, and
  // a depth limit under 8 (a request nests 5 deep; the margin spares an exact count) go to it.
  if (text.substr(0, 3) == "\xEF\xBB\xBF" || !simdjson_may_read(text) ||
      input_limits().max_depth < 8)
    return std::nullopt;
  try {
    std::optional<simdjson::padded_string> copy;
    if (!padded) copy.emplace(text);
    const simdjson::padded_string_view view =
        copy ? simdjson::padded_string_view(*copy)
             : simdjson::padded_string_view(text.data(), text.size(), text.size() + kReadPadding);
    od::parser parser;
    od::document doc = need(parser.iterate(view));
    return PlainReader(view.data(), text, file).read(doc);
  } catch (const NotPlain&) {
    return std::nullopt;
  }
}

}  // namespace sim::io
