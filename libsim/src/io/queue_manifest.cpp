#include "sim/io/queue_manifest.hpp"

#include "k8s_reader.hpp"
#include "yaml_field.hpp"

namespace sim::io {
namespace {

constexpr std::string_view kQueueApiVersion = "scheduling.run.ai/v2";

void warn_unknown(const Field& object, std::initializer_list<std::string_view> known,
                  Diagnostics& diagnostics) {
  for (const Field& key : object.unknown_members(known)) {
    diagnostics.unknown_field(key.where(), key.path());
  }
}

double quota_value(const Field& f) {
  const double v = f.optional_number().value_or(0);
  if (v < 0 && v != -1) f.fail("must be >= 0 or -1 (unlimited), got " + f.scalar());
  return v;
}

model::QuotaSpec read_quota(const Field& f, Diagnostics& diagnostics) {
  model::QuotaSpec q;  // an omitted block is 0/0/0, as the CRD has no defaults
  if (f.is_null()) return q;
  f.expect_map();
  q.stated = true;
  warn_unknown(f, {"quota", "limit", "overQuotaWeight"}, diagnostics);
  q.quota = quota_value(f.member("quota"));
  q.limit = quota_value(f.member("limit"));
  const Field weight = f.member("overQuotaWeight");
  q.over_quota_weight = weight.optional_number().value_or(0);
  if (q.over_quota_weight < 0) weight.fail("must be >= 0, got " + weight.scalar());
  return q;
}

std::optional<std::int64_t> read_duration(const Field& f) {
  std::optional<std::string> text = f.optional_string();
  if (!text) return std::nullopt;
  std::optional<std::int64_t> ms = parse_go_duration_ms(*text);
  if (!ms || *ms < 0) f.fail("not a duration such as \"10m\" or \"1h30m\": \"" + *text + "\"");
  return ms;
}

}  // namespace

model::QueueSpec read_queue_object(const Field& doc, std::int64_t position,
                                   Diagnostics& diagnostics) {
  model::QueueSpec q;
  q.where = doc.where();
  const Field metadata = doc.member("metadata");
  if (metadata.is_null()) doc.fail("missing required field \"metadata\"");
  metadata.expect_map();
  const Field name = metadata.member("name");
  if (name.is_null()) metadata.fail("missing required field \"name\"");
  q.name = name.string();
  if (q.name.empty()) name.fail("must not be empty");
  const Field created = metadata.member("creationTimestamp");
  q.created = model::CreationTime::unknown(position);
  if (std::optional<std::string> text = created.optional_string()) {
    std::optional<std::int64_t> ns = parse_rfc3339(*text);
    if (!ns) created.fail("not an RFC 3339 time: \"" + *text + "\"");
    q.created = model::CreationTime{*ns, 0};
  }

  const Field spec = doc.member("spec");
  if (spec.is_null()) doc.fail("missing required field \"spec\"");
  spec.expect_map();
  warn_unknown(spec,
               {"displayName", "parentQueue", "priority", "resources", "preemptMinRuntime",
                "reclaimMinRuntime"},
               diagnostics);
  q.display_name = spec.member("displayName").string_or("");
  q.parent = spec.member("parentQueue").string_or("");
  q.priority = spec.member("priority").optional_int().value_or(100);
  q.preempt_min_runtime_ms = read_duration(spec.member("preemptMinRuntime"));
  q.reclaim_min_runtime_ms = read_duration(spec.member("reclaimMinRuntime"));

  // KAI's queue webhook rejects a Queue without spec.resources (queue_validator.go).
  const Field resources = spec.member("resources");
  if (resources.is_null())
    spec.fail("missing required field \"resources\" (KAI's queue webhook rejects it)");
  resources.expect_map();
  warn_unknown(resources, {"gpu", "cpu", "memory"}, diagnostics);
  q.gpu = read_quota(resources.member("gpu"), diagnostics);
  q.cpu = read_quota(resources.member("cpu"), diagnostics);
  q.memory = read_quota(resources.member("memory"), diagnostics);
  return q;
}

std::vector<model::QueueSpec> load_queue_manifests(std::string_view text, const std::string& file,
                                                   Diagnostics& diagnostics) {
  std::vector<model::QueueSpec> queues;
  const std::vector<YAML::Node> docs = parse_documents(text, file);
  for (std::size_t i = 0; i < docs.size(); ++i) {
    const Field doc(docs[i], "documents[" + std::to_string(i) + "]", &file);
    doc.expect_map();
    const std::string kind = doc.member("kind").string_or("");
    const std::string api = doc.member("apiVersion").string_or("");
    if (kind != "Queue") {
      diagnostics.warn(doc.where(), doc.path(), "kind \"" + kind + "\" is not a Queue, skipped");
      continue;
    }
    if (api != kQueueApiVersion) {
      doc.member("apiVersion")
          .fail("expected \"" + std::string(kQueueApiVersion) + "\", got \"" + api + "\"");
    }
    queues.push_back(read_queue_object(doc, static_cast<std::int64_t>(i), diagnostics));
  }
  return queues;
}

}  // namespace sim::io
