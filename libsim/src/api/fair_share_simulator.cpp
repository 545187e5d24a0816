#include "sim/api/fair_share_simulator.hpp"

#include <algorithm>

#include "sim/core/go_json.hpp"
#include "sim/core/resource_vec.hpp"
#include "sim/fairshare/hierarchy.hpp"
#include "sim/model/queue_tree.hpp"

namespace sim::api {
namespace {

// KAI's simulator defaults (proportion/resource_share/resource_share_defaults.go): deserved 0,
// limit -1, weight 1, request 100000; a whole cpu or memory block left out means deserved -1.
constexpr double kDefaultRequest = 100000;

std::size_t slot(Resource r) { return static_cast<std::size_t>(index_of(r)); }

fairshare::ResourceShare apply_defaults(const std::optional<io::ShareOverrides>& given, Resource r,
                                        double request) {
  fairshare::ResourceShare s;
  s.max_allowed = kUnlimited;
  s.over_quota_weight = 1;
  s.request = request;
  if (!given) {
    if (r != Resource::GPU) s.deserved = kUnlimited;
    return s;
  }
  s.deserved = given->deserved.value_or(0);
  s.fair_share = given->fair_share.value_or(0);
  s.max_allowed = given->max_allowed.value_or(kUnlimited);
  s.over_quota_weight = given->over_quota_weight.value_or(1);
  s.allocated = given->allocated.value_or(0);
  s.allocated_not_preemptible = given->allocated_not_preemptible.value_or(0);
  s.usage = given->absolute_usage.value_or(0);
  return s;
}

std::optional<double> given_request(const io::QueueOverrides& q, Resource r) {
  const auto& share = q.shares[slot(r)];
  return share ? share->request : std::nullopt;
}

}  // namespace

std::vector<QueueFairShare> simulate_fair_share(const io::SimulateRequest& request,
                                                Diagnostics& diagnostics) {
  std::vector<model::QueueLink> links;
  links.reserve(request.queues.size());
  for (const io::QueueOverrides& q : request.queues) {
    links.push_back(model::QueueLink{q.uid, q.parent, q.where, q.path});
  }
  const model::QueueTree tree = model::QueueTree::build(links, diagnostics);

  IdVector<QueueId, fairshare::QueueShares> shares(tree.size());
  // A parent without an explicit request asks for the sum of its children's (children first).
  const auto order = tree.level_order();
  IdVector<QueueId, std::array<double, 3>> requests(tree.size());
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const QueueId id = *it;
    const io::QueueOverrides& q = request.queues[tree.source_index(id)];
    for (Resource r : kQuotaResources) {
      double value = kDefaultRequest;
      if (std::optional<double> given = given_request(q, r)) {
        value = *given;
      } else if (!tree.is_leaf(id)) {
        value = 0;
        for (QueueId child : tree.children(id)) value += requests[child][slot(r)];
      }
      requests[id][slot(r)] = value;
    }
  }
  for (QueueId id : order) {
    const io::QueueOverrides& q = request.queues[tree.source_index(id)];
    fairshare::QueueShares& s = shares[id];
    for (Resource r : kQuotaResources)
      s[r] = apply_defaults(q.shares[slot(r)], r, requests[id][slot(r)]);
    s.priority = q.priority.value_or(0);
    // Without a timestamp KAI uses "now" at conversion time, i.e. list order.
    s.created =
        q.created_ns
            ? model::CreationTime{*q.created_ns, 0}
            : model::CreationTime::unknown(static_cast<std::int64_t>(tree.source_index(id)));
  }

  ResourceVec total = ResourceVec::Zero();
  for (Resource r : kQuotaResources) at(total, r) = request.total[slot(r)];
  fairshare::compute_fair_shares(tree, shares, total, request.k_value);

  std::vector<QueueFairShare> out;
  out.reserve(tree.size());
  for (QueueId id : order) {
    out.push_back(QueueFairShare{tree.uid(id), shares[id][Resource::GPU].fair_share,
                                 shares[id][Resource::CPU].fair_share,
                                 shares[id][Resource::MEMORY].fair_share});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.uid < b.uid; });
  return out;
}

std::string fair_share_response(const std::vector<QueueFairShare>& shares, bool pretty) {
  const char* open = pretty ? "{\n" : "{";
  std::string out = open;
  for (std::size_t i = 0; i < shares.size(); ++i) {
    const QueueFairShare& q = shares[i];
    if (pretty) {
      out += "  " + json_string(q.uid) + ": {\n    \"gpu\": " + go_json_number(q.gpu) +
             ",\n    \"cpu\": " + go_json_number(q.cpu) +
             ",\n    \"memory\": " + go_json_number(q.memory) + "\n  }";
      out += i + 1 < shares.size() ? ",\n" : "\n";
    } else {
      out += json_string(q.uid) + ":{\"gpu\":" + go_json_number(q.gpu) +
             ",\"cpu\":" + go_json_number(q.cpu) + ",\"memory\":" + go_json_number(q.memory) + "}";
      if (i + 1 < shares.size()) out += ",";
    }
  }
  return out + "}\n";
}

std::string answer_simulate_request(const std::string& body, const std::string& source, bool pretty,
                                    Diagnostics& diagnostics) {
  const io::SimulateRequest request = io::parse_simulate_request(body, source, diagnostics);
  return fair_share_response(simulate_fair_share(request, diagnostics), pretty);
}

}  // namespace sim::api
