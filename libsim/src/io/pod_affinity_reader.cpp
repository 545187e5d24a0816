#include "io/pod_affinity_reader.hpp"

#include <algorithm>
#include <iterator>

namespace sim::io {
namespace {

// A metav1.LabelSelector: matchLabels become In requirements, matchExpressions are kept.
std::vector<model::SelectorRequirement> read_label_selector(const Field& f) {
  f.expect_map();
  std::vector<model::SelectorRequirement> out;
  const Field labels = f.member("matchLabels");
  if (!labels.is_null()) {
    labels.expect_map();
    for (const auto& [key, value] : labels.entries()) out.push_back({key, "In", {value.string()}});
  }
  const Field expressions = f.member("matchExpressions");
  if (!expressions.is_null()) {
    expressions.expect_sequence();
    for (std::size_t i = 0; i < expressions.size(); ++i)
      out.push_back(read_requirement(expressions.item(i), false));
  }
  return out;
}

model::PodAffinityTerm read_term(const Field& f) {
  f.expect_map();
  model::PodAffinityTerm term;
  term.topology_key = f.member("topologyKey").string_or("");
  if (term.topology_key.empty()) f.fail("missing required field \"topologyKey\"");
  if (const Field selector = f.member("labelSelector"); !selector.is_null())
    term.selector = read_label_selector(selector);
  const Field namespaces = f.member("namespaces");
  if (!namespaces.is_null()) {
    namespaces.expect_sequence();
    for (std::size_t j = 0; j < namespaces.size(); ++j)
      term.namespaces.push_back(namespaces.item(j).string());
  }
  if (const Field ns_selector = f.member("namespaceSelector"); !ns_selector.is_null()) {
    ns_selector.expect_map();
    // Matching namespace labels needs Namespace objects, which kaisim does not read; only the
    // empty selector (every namespace) has a meaning without them.
    if (ns_selector.size() != 0)
      ns_selector.fail("only an empty namespaceSelector ({}: every namespace) is supported");
    term.all_namespaces = true;
  }
  return term;
}

std::vector<model::PodAffinityTerm> read_terms(const Field& list) {
  std::vector<model::PodAffinityTerm> out;
  if (list.is_null()) return out;
  list.expect_sequence();
  for (std::size_t i = 0; i < list.size(); ++i) out.push_back(read_term(list.item(i)));
  return out;
}

// preferredDuringSchedulingIgnoredDuringExecution: {weight, podAffinityTerm} items; the API
// server accepts weights 1..100 only (ValidateWeightedPodAffinityTerm).
std::vector<model::WeightedPodAffinityTerm> read_weighted_terms(const Field& list) {
  std::vector<model::WeightedPodAffinityTerm> out;
  if (list.is_null()) return out;
  list.expect_sequence();
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Field f = list.item(i);
    f.expect_map();
    const Field weight = f.member("weight");
    const std::optional<int> w = weight.optional_int();
    if (!w) f.fail("missing required field \"weight\"");
    if (*w < 1 || *w > 100) weight.fail("must be in the range 1-100, got " + std::to_string(*w));
    const Field term = f.member("podAffinityTerm");
    if (term.is_null()) f.fail("missing required field \"podAffinityTerm\"");
    out.push_back({*w, read_term(term)});
  }
  return out;
}

}  // namespace

model::SelectorRequirement read_requirement(const Field& f, bool numeric) {
  f.expect_map();
  model::SelectorRequirement r;
  r.key = f.member("key").string_or("");
  if (r.key.empty()) f.fail("missing required field \"key\"");
  r.op = f.member("operator").string_or("");
  static const char* kOps[] = {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"};
  const auto ops_end = std::end(kOps) - (numeric ? 0 : 2);
  if (std::find(std::begin(kOps), ops_end, r.op) == ops_end) {
    f.member("operator")
        .fail("unknown operator \"" + r.op + "\" (In, NotIn, Exists, DoesNotExist" +
              (numeric ? ", Gt, Lt)" : ")"));
  }
  const Field values = f.member("values");
  if (!values.is_null()) {
    values.expect_sequence();
    for (std::size_t i = 0; i < values.size(); ++i) r.values.push_back(values.item(i).string());
  }
  return r;
}

void read_pod_affinity(const Field& affinity, model::PlacementRules& rules) {
  if (affinity.is_null()) return;
  affinity.expect_map();
  const char* kRequired = "requiredDuringSchedulingIgnoredDuringExecution";
  const char* kPreferred = "preferredDuringSchedulingIgnoredDuringExecution";
  if (const Field a = affinity.member("podAffinity"); !a.is_null()) {
    a.expect_map();
    rules.pod_affinity = read_terms(a.member(kRequired));
    rules.preferred_pod_affinity = read_weighted_terms(a.member(kPreferred));
  }
  if (const Field a = affinity.member("podAntiAffinity"); !a.is_null()) {
    a.expect_map();
    rules.pod_anti_affinity = read_terms(a.member(kRequired));
    rules.preferred_pod_anti_affinity = read_weighted_terms(a.member(kPreferred));
  }
}

}  // namespace sim::io
