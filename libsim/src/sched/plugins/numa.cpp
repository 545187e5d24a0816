// KAI's numa plugin (plugins/numa: numa.go, evaluator.go, requests.go, seed_placements.go,
// reconstruct.go).

#include "numa.hpp"

#include <algorithm>
#include <functional>
#include <map>

#include "builders.hpp"

namespace sim::sched {
namespace {

using model::Amounts;
using model::NumaPolicy;
using model::NumaTopology;
using model::ZoneAmounts;

std::int64_t amount_of(const Amounts& a, const std::string& r) {
  auto it = a.find(r);
  return it == a.end() ? 0 : it->second;
}

// isModeledPolicy: only single-numa-node and restricted nodes reject pods.
bool modeled(const NumaTopology& t) {
  return t.policy == NumaPolicy::SINGLE_NUMA_NODE || t.policy == NumaPolicy::RESTRICTED;
}

// shouldHandle: a Guaranteed pod on a rejecting-policy node.
bool handles(const model::Task& task, const model::Node& node) {
  return node.numa && modeled(*node.numa) && task.qos_guaranteed;
}

// extractNumaRequest: the resources the zones report, not ignored, and not zero.
Amounts aligned_part(const Amounts& request, const NumaTopology& t,
                     const std::set<std::string>& ignore) {
  Amounts out;
  for (const auto& [r, q] : request) {
    if (q != 0 && t.resources.contains(r) && !ignore.contains(r)) out[r] = q;
  }
  return out;
}

void add_to(std::map<int, Amounts>& allocation, int zone, const Amounts& amount) {
  Amounts& cur = allocation[zone];  // an empty request still names its zone
  for (const auto& [r, q] : amount) cur[r] = model::saturating_add(cur[r], q);
}

void subtract(Amounts& from, const Amounts& amount) {
  for (const auto& [r, q] : amount) from[r] = model::saturating_add(amount_of(from, r), -q);
}

bool covers(const Amounts& have, const Amounts& want) {
  return std::all_of(want.begin(), want.end(),
                     [&](const auto& rq) { return amount_of(have, rq.first) >= rq.second; });
}

// singleNUMAEvaluator: each unit whole in the lowest zone that holds it.
bool single_zone(std::vector<Amounts> available, const std::vector<Amounts>& units,
                 std::map<int, Amounts>& allocation) {
  for (const Amounts& req : units) {
    int zone = -1;
    for (std::size_t i = 0; i < available.size() && zone < 0; ++i) {
      if (covers(available[i], req)) zone = static_cast<int>(i);
    }
    if (zone < 0) return false;
    subtract(available[static_cast<std::size_t>(zone)], req);
    add_to(allocation, zone, req);
  }
  return true;
}

// minWidthForResource: the fewest zones whose largest values reach the quantity; 0 if none do.
int min_width(const std::vector<Amounts>& zones, const std::string& r, std::int64_t qty) {
  std::vector<std::int64_t> values;
  std::int64_t total = 0;
  for (const Amounts& z : zones) {
    values.push_back(amount_of(z, r));
    total = model::saturating_add(total, values.back());
  }
  if (total < qty) return 0;
  std::sort(values.begin(), values.end(), std::greater<>());
  std::int64_t sum = 0;
  for (std::size_t k = 0; k < values.size(); ++k) {
    sum = model::saturating_add(sum, values[k]);
    if (sum >= qty) return static_cast<int>(k) + 1;
  }
  return 0;
}

// lowestSatisfyingMask: the lexicographically lowest `width` zones whose available sums cover req.
std::vector<int> lowest_mask(const std::vector<Amounts>& available, const Amounts& req, int width) {
  const int n = static_cast<int>(available.size());
  if (width <= 0 || width > n) return {};
  std::vector<int> idx(static_cast<std::size_t>(width));
  for (int i = 0; i < width; ++i) idx[static_cast<std::size_t>(i)] = i;
  for (;;) {
    bool ok = true;
    for (const auto& [r, q] : req) {
      std::int64_t sum = 0;
      for (int i : idx)
        sum = model::saturating_add(sum, amount_of(available[static_cast<std::size_t>(i)], r));
      ok = ok && sum >= q;
    }
    if (ok) return idx;
    int i = width - 1;
    while (i >= 0 && idx[static_cast<std::size_t>(i)] == n - width + i) --i;
    if (i < 0) return {};
    ++idx[static_cast<std::size_t>(i)];
    for (int j = i + 1; j < width; ++j)
      idx[static_cast<std::size_t>(j)] = idx[static_cast<std::size_t>(j - 1)] + 1;
  }
}

// restrictedEvaluator: the kubelet's hint merge. Every resource's minimal width (by allocatable)
// must agree, and a mask of that width must hold the unit (by available); the unit is split
// greedily over the mask's zones, lowest first.
bool restricted(std::vector<Amounts> available, const std::vector<Amounts>& allocatable,
                const std::vector<Amounts>& units, std::map<int, Amounts>& allocation) {
  for (const Amounts& req : units) {
    int width = -1;
    for (const auto& [r, q] : req) {
      const int w = min_width(allocatable, r, q);
      if (w == 0 || (width != -1 && w != width)) return false;
      width = w;
    }
    if (width <= 0) continue;  // nothing aligned to place
    const std::vector<int> mask = lowest_mask(available, req, width);
    if (mask.empty()) return false;
    std::map<int, Amounts> split;  // splitAcrossMask, on the zones' amounts before this unit
    for (const auto& [r, q] : req) {
      std::int64_t remaining = q;
      for (int i : mask) {
        if (remaining <= 0) break;
        const std::int64_t take =
            std::min(amount_of(available[static_cast<std::size_t>(i)], r), remaining);
        if (take <= 0) continue;
        split[i][r] = model::saturating_add(split[i][r], take);
        remaining -= take;
      }
    }
    for (const auto& [zone, amount] : split) {
      subtract(available[static_cast<std::size_t>(zone)], amount);
      add_to(allocation, zone, amount);
    }
  }
  return true;
}

bool evaluate(const NumaTopology& t, const std::set<std::string>& ignore,
              const std::vector<Amounts>& raw_units, std::map<int, Amounts>& allocation) {
  std::vector<Amounts> units;
  for (const Amounts& u : raw_units) units.push_back(aligned_part(u, t, ignore));
  std::vector<Amounts> available, allocatable;
  for (const model::NumaZone& z : t.zones) {
    available.push_back(z.available);
    allocatable.push_back(z.allocatable);
  }
  if (t.policy == NumaPolicy::SINGLE_NUMA_NODE)
    return single_zone(std::move(available), units, allocation);
  return restricted(std::move(available), allocatable, units, allocation);
}

// placementFromRecord: a persisted record by zone index, none if a zone id is unknown.
std::vector<ZoneAmounts> from_record(const std::vector<ZoneAmounts>& record,
                                     const NumaTopology& t) {
  std::vector<ZoneAmounts> out;
  for (const ZoneAmounts& z : record) {
    auto it = std::find_if(t.zones.begin(), t.zones.end(),
                           [&](const model::NumaZone& zone) { return zone.id == z.zone_id; });
    if (it == t.zones.end()) return {};
    out.push_back({static_cast<int>(it - t.zones.begin()), "", z.amount});
  }
  std::sort(out.begin(), out.end(),
            [](const ZoneAmounts& a, const ZoneAmounts& b) { return a.zone < b.zone; });
  return out;
}

}  // namespace

bool numa_admits(const Session& ssn, const model::Task& task, const model::Node& node,
                 std::vector<ZoneAmounts>* placement) {
  if (placement) placement->clear();
  if (!ssn.config.plugins.numa || !handles(task, node)) return true;
  const NumaTopology& t = *node.numa;
  const std::set<std::string>& ignore = ssn.config.plugins.numa_ignore;
  static const model::NumaUnits kNothing;
  const model::NumaUnits& units = task.devices->numa_units ? *task.devices->numa_units : kNothing;
  std::map<int, Amounts> allocation;
  if (!evaluate(t, ignore, t.pod_scope ? std::vector<Amounts>{units.pod} : units.concurrent,
                allocation))
    return false;
  // Ordinary init containers run before the others and free what they used: each must align on
  // its own, and none is charged.
  for (const Amounts& unit : t.pod_scope ? std::vector<Amounts>{} : units.serial) {
    std::map<int, Amounts> alone;
    if (!evaluate(t, ignore, {unit}, alone)) return false;
  }
  if (placement) {
    for (const auto& [zone, amount] : allocation) placement->push_back({zone, "", amount});
  }
  return true;
}

void numa_charge(model::Node& node, const std::vector<ZoneAmounts>& placement, int sign) {
  if (!node.numa) return;
  for (const ZoneAmounts& z : placement) {
    if (z.zone < 0 || static_cast<std::size_t>(z.zone) >= node.numa->zones.size()) continue;
    model::Amounts& available = node.numa->zones[static_cast<std::size_t>(z.zone)].available;
    for (const auto& [r, q] : z.amount)
      available[r] = model::saturating_add(amount_of(available, r), sign > 0 ? q : -q);
  }
}

void open_numa(Session& ssn) {
  // seedPlacements: the pods the plugin handles get their placement from their record.
  for (model::Task& task : ssn.state.tasks) {
    if (!task.devices->numa_placement.empty() || !task.node.valid()) continue;
    const model::Node& node = ssn.state.nodes[task.node];
    if (!handles(task, node)) continue;
    task.devices.set(&model::TaskDevices::numa_placement,
                     from_record(task.devices->numa_record, *node.numa));
  }
  if (!ssn.config.plugins.numa_reconstruct_available) return;
  // reconstructNodeAvailable: allocatable minus the records of every active pod on the node.
  for (model::Node& node : ssn.state.nodes) {
    if (!node.numa || !modeled(*node.numa)) continue;
    for (model::NumaZone& z : node.numa->zones) z.available = z.allocatable;
    for (const auto& [id, rec] : node.tasks) {
      const model::Task& task = ssn.state.tasks[id];
      if (!model::is_active_allocated(task.status)) continue;
      numa_charge(node, from_record(task.devices->numa_record, *node.numa), -1);
    }
  }
}

namespace plugins {
namespace {

class Numa final : public Plugin {
 public:
  std::string_view name() const override { return "numa"; }
  void on_session_open(Session& ssn) override {
    open_numa(ssn);
    ssn.hooks.numa_placement = numa_admits;
    ssn.hooks.predicates.push_back([](Session& s, TaskId task, NodeId node, std::string* why) {
      if (numa_admits(s, s.state.tasks[task], s.state.nodes[node], nullptr)) return true;
      if (why) *why = kNumaFitError;
      return false;
    });
    // The allocate (-1) and deallocate (+1) event handlers: charge or credit the placement.
    ssn.hooks.on_allocate.push_back([](Session& s, const model::Task& task) {
      if (task.node.valid())
        numa_charge(s.state.nodes[task.node], task.devices->numa_placement, -1);
    });
    ssn.hooks.on_deallocate.push_back([](Session& s, const model::Task& task) {
      if (task.node.valid())
        numa_charge(s.state.nodes[task.node], task.devices->numa_placement, +1);
    });
  }
};

}  // namespace

std::unique_ptr<Plugin> make_numa(const model::PluginOption&) { return std::make_unique<Numa>(); }

}  // namespace plugins
}  // namespace sim::sched
