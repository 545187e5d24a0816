#include "sim/io/simulate_request.hpp"

#include "json_document.hpp"
#include "sim/core/resource_vec.hpp"
#include "simulate_request_readers.hpp"
#include "yaml_field.hpp"

namespace sim::io {
namespace {

void warn_unknown(const Field& object, std::initializer_list<std::string_view> known,
                  Diagnostics& diagnostics) {
  for (const Field& key : object.unknown_members(known)) {
    diagnostics.unknown_field(key.where(), key.path());
  }
}

// deserved / maxAllowed: a quantity or exactly -1 (unlimited).
std::optional<double> quota_like(const Field& f) {
  std::optional<double> v = f.optional_number();
  if (v && *v < 0 && *v != kUnlimited) f.fail("must be >= 0 or -1 (unlimited), got " + f.scalar());
  return v;
}

std::optional<double> non_negative(const Field& f) {
  std::optional<double> v = f.optional_number();
  if (v && *v < 0) f.fail("must be >= 0, got " + f.scalar());
  return v;
}

std::optional<ShareOverrides> read_share(const Field& f, Diagnostics& diagnostics) {
  if (f.is_null()) return std::nullopt;
  f.expect_map();
  ShareOverrides s;
  // One pass over the members (30,000 of these blocks in a 10,000-queue request); a later key
  // overwrites an earlier one, as Go's decoder does.
  f.for_each_member([&](std::string_view key, const Field& value, const Field& key_field) {
    if (Field::same_key(key, "deserved"))
      s.deserved = quota_like(value);
    else if (Field::same_key(key, "fairShare"))
      s.fair_share = non_negative(value);
    else if (Field::same_key(key, "maxAllowed"))
      s.max_allowed = quota_like(value);
    else if (Field::same_key(key, "overQuotaWeight"))
      s.over_quota_weight = non_negative(value);
    else if (Field::same_key(key, "allocated"))
      s.allocated = non_negative(value);
    else if (Field::same_key(key, "allocatedNotPreemptible"))
      s.allocated_not_preemptible = non_negative(value);
    else if (Field::same_key(key, "request"))
      s.request = non_negative(value);
    else if (Field::same_key(key, "absoluteUsage"))
      s.absolute_usage = non_negative(value);
    else if (Field::same_key(key, "vacantAdjustedUsage"))
      (void)value.optional_number();  // parsed and ignored, as in KAI
    else
      diagnostics.unknown_field(key_field.where(), key_field.path());
  });
  return s;
}

QueueOverrides read_queue(const Field& f, Diagnostics& diagnostics) {
  f.expect_map();
  warn_unknown(f,
               {"uid", "name", "parentQueue", "childQueues", "creationTimestamp", "priority",
                "resourceShare"},
               diagnostics);
  QueueOverrides q;
  q.where = f.where();
  q.path = f.path();
  const Field uid = f.member("uid");
  if (uid.is_null()) f.fail("missing required field \"uid\"");
  q.uid = uid.string();
  if (q.uid.empty()) uid.fail("must not be empty");
  q.name = f.member("name").string_or("");
  q.parent = f.member("parentQueue").string_or("");
  const Field children = f.member("childQueues");
  if (!children.is_null()) {
    children.expect_sequence();  // KAI derives children from parentQueue; this list is ignored
    for (std::size_t i = 0; i < children.size(); ++i) (void)children.item(i).string();
  }
  const Field created = f.member("creationTimestamp");
  if (std::optional<std::string> text = created.optional_string()) {
    q.created_ns = parse_rfc3339(*text);
    if (!q.created_ns)
      created.fail("not an RFC 3339 time such as 2025-01-31T12:00:00Z: \"" + *text + "\"");
  }
  q.priority = f.member("priority").optional_int();
  const Field shares = f.member("resourceShare");
  if (!shares.is_null()) {
    shares.expect_map();
    warn_unknown(shares, {"gpu", "cpu", "memory"}, diagnostics);
    for (Resource r : kQuotaResources) {
      q.shares[static_cast<std::size_t>(index_of(r))] =
          read_share(shares.member(resource_name(r)), diagnostics);
    }
  }
  return q;
}

}  // namespace

SimulateRequest parse_simulate_request(const std::string& text, const std::string& file,
                                       Diagnostics& diagnostics) {
  if (looks_like_json(text)) {
    const bool padded = text.capacity() >= text.size() + kReadPadding;
    if (std::optional<SimulateRequest> plain = read_plain_simulate_request(text, file, padded))
      return std::move(*plain);
  }
  return read_simulate_request_fields(text, file, diagnostics);
}

SimulateRequest read_simulate_request_fields(std::string_view text, const std::string& file,
                                             Diagnostics& diagnostics) {
  const ParsedText parsed(text, file, diagnostics);
  const Field& root = parsed.single();
  root.expect_map();
  warn_unknown(root, {"totalResource", "queues", "kValue"}, diagnostics);
  SimulateRequest request;

  // totalResource is a Go map keyed by "CPU", "Memory", "GPU": keys match exactly there.
  const Field total = root.member("totalResource");
  if (!total.is_null()) {
    total.expect_map();
    for (const auto& [key, value] : total.entries()) {
      const double amount = value.number();
      if (amount < 0) value.fail("must be >= 0, got " + value.scalar());
      if (key == "CPU")
        request.total[index_of(Resource::CPU)] = amount;
      else if (key == "Memory")
        request.total[index_of(Resource::MEMORY)] = amount;
      else if (key == "GPU")
        request.total[index_of(Resource::GPU)] = amount;
      else
        diagnostics.warn(value.where(), value.path(),
                         "unknown resource, ignored (KAI reads only \"GPU\", \"CPU\" and "
                         "\"Memory\", case-sensitive)");
    }
  }
  if (std::optional<double> k = root.member("kValue").optional_number()) request.k_value = *k;

  const Field queues = root.member("queues");
  if (!queues.is_null()) {
    queues.expect_sequence();
    for (std::size_t i = 0; i < queues.size(); ++i) {
      request.queues.push_back(read_queue(queues.item(i), diagnostics));
    }
  }
  return request;
}

}  // namespace sim::io
