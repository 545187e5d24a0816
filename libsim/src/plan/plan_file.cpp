// The plan file reader (docs/plan-format.md). Syntax and ranges are checked here, each problem
// at its own line; what needs the base scenario (pools and queues that exist, child quotas
// within the parent's) is checked when the scenario is read (base_scenario.cpp).

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "io/yaml_field.hpp"
#include "sim/core/go_json.hpp"
#include "sim/plan/plan_spec.hpp"

namespace sim::plan {
namespace {

namespace fs = std::filesystem;
using io::Field;

constexpr int kSchemaVersion = 1;
constexpr int kMaxSeeds = 1000;
constexpr double kMilli = 1000;  // GPU quotas and limits are written in steps of 0.001 GPU

void warn_unknown(const Field& f, std::initializer_list<std::string_view> known, Diagnostics& d) {
  for (const Field& key : f.unknown_members(known))
    d.warn(key.where(), key.path(), "unknown field, ignored");
}

std::int64_t duration_ms(const Field& f) {
  const std::optional<std::int64_t> ms = io::parse_go_duration_ms(f.string());
  if (!ms || *ms < 0)
    f.fail("not a duration such as \"30s\", \"10m\" or \"1h\": \"" + f.string() + "\"");
  return *ms;
}

int whole(const Field& f, int lo, int hi) {
  const std::optional<int> v = f.optional_int();
  if (!v || *v < lo || *v > hi)
    f.fail("must be a whole number from " + std::to_string(lo) + " to " + std::to_string(hi));
  return *v;
}

std::string io_number(double v) { return go_json_number(v); }

bool on_grid(double v, double unit) { return std::abs(v * unit - std::round(v * unit)) < 1e-6; }

// A Queue name, a pool name or a team: what Kubernetes accepts as a label value and a name.
std::string name_of(const Field& f) {
  const std::string s = f.string();
  const bool ok = !s.empty() && s.size() <= 63 &&
                  std::isalnum(static_cast<unsigned char>(s.front())) &&
                  std::isalnum(static_cast<unsigned char>(s.back())) &&
                  s.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") == std::string::npos;
  if (!ok)
    f.fail("\"" + s +
           "\" is not a valid name (lower-case letters, digits and '-', at most 63 characters)");
  return s;
}

// A number (fixed) or {min, max, step}. `unit` is the grid the values must lie on (1000 for
// milli-GPU); `step` defaults to one grid unit. Values below `lo` are refused, except `special`.
Range range_of(const Field& f, double lo, double hi, double unit, double default_step,
               std::optional<double> special = std::nullopt) {
  Range r;
  r.where = f.where();
  r.path = f.path();
  auto value = [&](const Field& v) {
    const double x = v.number();
    if (special && x == *special) return x;
    if (x < lo || x > hi) {
      v.fail("must be from " + io_number(lo) + " to " + io_number(hi) +
             (special ? " (or " + io_number(*special) + ")" : ""));
    }
    if (unit > 0 && !on_grid(x, unit))
      v.fail("must be a multiple of " + io_number(1 / unit) + " (the values KAI's Queue takes)");
    return x;
  };
  if (!f.is_map()) {
    r.min = r.max = value(f);
    r.step = default_step;
    return r;
  }
  for (const Field& key : f.unknown_members({"min", "max", "step"}))
    key.fail("unknown field (expected min, max, step)");
  if (f.member("min").is_null() || f.member("max").is_null()) f.fail("a range needs min and max");
  r.min = value(f.member("min"));
  r.max = value(f.member("max"));
  if (r.max < r.min) f.member("max").fail("is below min");
  r.step = default_step;
  if (!f.member("step").is_null()) {
    r.step = f.member("step").number();
    if (!(r.step > 0)) f.member("step").fail("must be positive");
    if (unit > 0 && !on_grid(r.step, unit))
      f.member("step").fail("must be a multiple of " + io_number(1 / unit));
  }
  if (special && (r.min == *special) != (r.max == *special))
    f.fail(io_number(*special) + " can only be a fixed value");
  return r;
}

class Reader {
 public:
  Reader(const std::string& file, const std::string& base_dir, Diagnostics& d)
      : file_(file), base_(base_dir), d_(d) {}

  PlanSpec read(const std::string& text) {
    const Field root(io::parse_single_document(text, file_), "", &file_);
    root.expect_map();
    warn_unknown(root,
                 {"schema_version", "kind", "name", "description", "scenario", "genTrace", "seeds",
                  "confidence", "warmup", "targets", "knobs", "tenants", "search", "status"},
                 d_);
    const Field version = root.member("schema_version");
    if (version.is_null())
      root.fail("missing required field \"schema_version\" (this kaisim reads version 1)");
    if (version.optional_int() != kSchemaVersion)
      version.fail("unsupported schema_version; this kaisim reads version 1");
    const Field kind = root.member("kind");
    if (kind.is_null() || kind.string() != "Plan") {
      (kind.is_null() ? root : kind)
          .fail("a plan file says \"kind: Plan\" (a scenario has no kind)");
    }
    PlanSpec p;
    p.file = file_;
    p.base_dir = base_;
    p.name = root.member("name").optional_string().value_or(fs::path(file_).stem().string());
    p.description = root.member("description").optional_string().value_or("");
    base(root, p);
    seeds(root.member("seeds"), p);
    if (const Field c = root.member("confidence"); !c.is_null()) {
      p.confidence = c.number();
      if (!(p.confidence >= 0.5 && p.confidence <= 0.999)) c.fail("must be from 0.5 to 0.999");
    }
    if (const Field w = root.member("warmup"); !w.is_null()) p.warmup_ms = duration_ms(w);
    targets(root.member("targets"), p);
    knobs(root.member("knobs"), p);
    tenants(root.member("tenants"), p);
    search(root.member("search"), p);
    status(root.member("status"), p);
    return p;
  }

 private:
  void base(const Field& root, PlanSpec& p) {
    const Field scenario = root.member("scenario"), trace = root.member("genTrace");
    if (scenario.is_null() == trace.is_null())
      root.fail("give either \"scenario\" (a file) or \"genTrace\" (kaisim gen trace's options)");
    if (!scenario.is_null()) {
      const fs::path path = fs::path(base_) / scenario.string();
      if (!fs::is_regular_file(path))
        scenario.fail("no such scenario file: " + path.lexically_normal().string());
      p.scenario_path = path.lexically_normal().string();
      return;
    }
    trace.expect_map();
    warn_unknown(trace, {"pods", "arrivalHours", "nodeScale"}, d_);
    TraceBase t;
    if (!trace.member("pods").is_null()) t.pods = whole(trace.member("pods"), 1, 200000);
    if (const Field h = trace.member("arrivalHours"); !h.is_null()) {
      t.arrival_hours = h.number();
      if (!(t.arrival_hours > 0 && t.arrival_hours <= 24 * 365))
        h.fail("must be more than 0 and at most 8760");
    }
    if (const Field s = trace.member("nodeScale"); !s.is_null()) {
      t.node_scale = s.number();
      if (!(t.node_scale > 0 && t.node_scale <= 10)) s.fail("must be more than 0 and at most 10");
    }
    p.trace = t;
  }

  void seeds(const Field& f, PlanSpec& p) {
    if (f.is_null()) return;
    if (!f.is_map()) {
      p.seeds = p.fresh_seeds = whole(f, 2, kMaxSeeds);
      return;
    }
    warn_unknown(f, {"count", "first", "fresh"}, d_);
    if (!f.member("count").is_null())
      p.seeds = p.fresh_seeds = whole(f.member("count"), 2, kMaxSeeds);
    if (!f.member("first").is_null())
      p.first_seed = static_cast<std::uint64_t>(whole(f.member("first"), 0, 1'000'000'000));
    if (!f.member("fresh").is_null()) p.fresh_seeds = whole(f.member("fresh"), 0, kMaxSeeds);
  }

  void target_block(const Field& block, const std::string& scope, bool cluster, PlanSpec& p) {
    block.expect_map();
    for (auto it = block.node().begin(); it != block.node().end(); ++it) {
      const std::string key = it->first.Scalar();
      const Field f = block.member(key);
      Target t;
      t.scope = scope;
      t.where = f.where();
      t.path = f.path();
      if (key == "wait_p95" || key == "wait_max" || key == "wait_mean" ||
          key == "reclaim_latency_max") {
        t.metric = key == "wait_p95"    ? Metric::WAIT_P95
                   : key == "wait_max"  ? Metric::WAIT_MAX
                   : key == "wait_mean" ? Metric::WAIT_MEAN
                                        : Metric::RECLAIM_LATENCY_MAX;
        if (cluster && t.metric == Metric::RECLAIM_LATENCY_MAX)
          f.fail("reclaim latency is a queue's; set it under queues");
        t.bound = static_cast<double>(duration_ms(f)) / 1000.0;
      } else if (key == "wait_probability") {
        t.metric = Metric::WAIT_PROBABILITY;
        f.expect_map();
        for (const Field& k : f.unknown_members({"over", "max"}))
          k.fail("unknown field (expected over, max)");
        if (f.member("over").is_null() || f.member("max").is_null())
          f.fail("needs over (a wait) and max (a probability)");
        t.over_s = static_cast<double>(duration_ms(f.member("over"))) / 1000.0;
        t.bound = f.member("max").number();
        if (!(t.bound >= 0 && t.bound <= 1))
          f.member("max").fail("must be a probability from 0 to 1");
      } else if (key == "evictions_max") {
        t.metric = Metric::EVICTIONS_MAX;
        t.bound = whole(f, 0, 1'000'000'000);
      } else if (key == "utilization_min") {
        t.metric = Metric::UTILIZATION_MIN;
        if (!cluster) f.fail("utilization is the cluster's; set it under cluster");
        t.bound = f.number();
        if (!(t.bound >= 0 && t.bound <= 1)) f.fail("must be a fraction from 0 to 1");
      } else {
        f.fail(
            "unknown target (wait_p95, wait_max, wait_mean, wait_probability, reclaim_latency_max, "
            "evictions_max, "
            "utilization_min)");
      }
      p.targets.push_back(t);
    }
  }

  void targets(const Field& f, PlanSpec& p) {
    if (f.is_null()) f.fail("missing required field \"targets\"");
    f.expect_map();
    for (const Field& key : f.unknown_members({"cluster", "queues"}))
      key.fail("unknown field (expected cluster, queues)");
    if (const Field c = f.member("cluster"); !c.is_null()) target_block(c, "cluster", true, p);
    if (const Field q = f.member("queues"); !q.is_null()) {
      q.expect_map();
      for (auto it = q.node().begin(); it != q.node().end(); ++it) {
        const std::string name = it->first.Scalar();
        const Field block = q.member(name);
        if (name != "*") name_of(Field(it->first, block.path(), &file_));
        target_block(block, name, false, p);
      }
    }
    if (p.targets.empty()) f.fail("no target given");
  }

  QuotaKnob quota_knob(const Field& f, const std::string& queue) {
    f.expect_map();
    for (const Field& key : f.unknown_members({"quota", "limit", "overQuotaWeight"})) {
      key.fail("unknown field (expected quota, limit, overQuotaWeight)");
    }
    QuotaKnob k;
    k.queue = queue;
    k.where = f.where();
    k.path = f.path();
    if (!f.member("quota").is_null())
      k.quota = range_of(f.member("quota"), 0, 100000, kMilli, 0.001);
    if (!f.member("limit").is_null())
      k.limit = range_of(f.member("limit"), 0, 100000, kMilli, 0.001, -1.0);
    if (!f.member("overQuotaWeight").is_null())
      k.weight = range_of(f.member("overQuotaWeight"), 0, 1000, 0, 1);
    if (!k.quota && !k.limit && !k.weight) f.fail("give quota, limit or overQuotaWeight");
    return k;
  }

  std::vector<QuotaKnob> quota_knobs(const Field& f) {
    std::vector<QuotaKnob> out;
    if (f.is_null()) return out;
    f.expect_map();
    for (auto it = f.node().begin(); it != f.node().end(); ++it) {
      const std::string queue = it->first.Scalar();
      const Field block = f.member(queue);
      name_of(Field(it->first, block.path(), &file_));
      out.push_back(quota_knob(block, queue));
    }
    return out;
  }

  void gpu_knob(const Field& f, PlanSpec& p) {
    f.expect_map();
    for (const Field& key : f.unknown_members({"pool", "count", "pools", "percent"})) {
      key.fail("unknown field (expected pool and count, or pools and percent)");
    }
    GpuKnob k;
    if (!f.member("pool").is_null()) {
      if (!f.member("pools").is_null() || !f.member("percent").is_null())
        f.fail("give pool and count, or pools and percent");
      k.pools.push_back(name_of(f.member("pool")));
      k.where = f.member("pool").where();
      k.path = f.member("pool").path();
      if (f.member("count").is_null()) f.fail("missing \"count\" (nodes: a number or {min, max})");
      k.count = range_of(f.member("count"), 0, 20000, 1, 1);
    } else {
      const Field pools = f.member("pools");
      if (pools.is_null()) f.fail("give pool (one node pool) or pools (several, scaled together)");
      k.where = pools.where();
      k.path = pools.path();
      if (!pools.is_sequence() && pools.string() == "*") {
        k.pools.push_back("*");
      } else {
        for (const Field& item : pools.items()) k.pools.push_back(name_of(item));
        if (k.pools.empty())
          pools.fail("name at least one pool, or \"*\" for every pool with GPUs");
      }
      if (f.member("percent").is_null())
        f.fail("missing \"percent\" (of each pool's count: a number or {min, max})");
      k.scaled = true;
      k.count = range_of(f.member("percent"), 1, 1000, 1, 1);
    }
    if (!k.count.fixed() && k.count.step != 1)
      f.fail("node counts are searched one by one (step 1)");
    p.gpus = k;
  }

  void hardware(const Field& list, PlanSpec& p) {
    list.expect_sequence();
    if (list.size() == 0) list.fail("expected at least one alternative");
    std::set<std::string> names;
    for (const Field& f : list.items()) {
      f.expect_map();
      for (const Field& key : f.unknown_members(
               {"name", "pool", "pricePerGpuHour", "count", "quotas", "wholeGpuProfile"})) {
        key.fail(
            "unknown field (expected name, pool, pricePerGpuHour, count, quotas, wholeGpuProfile)");
      }
      HardwareOption h;
      h.where = f.where();
      h.path = f.path();
      if (f.member("name").is_null()) f.fail("missing required field \"name\"");
      h.name = name_of(f.member("name"));
      if (!names.insert(h.name).second) f.member("name").fail("alternative named twice");
      const Field pool = f.member("pool");
      if (pool.is_null())
        f.fail(
            "missing required field \"pool\" (the node pool's fields, e.g. {gpuModel: L40S, "
            "gpusPerNode: 1})");
      pool.expect_map();
      h.pool_where = pool.where();
      for (const Field& key : pool.unknown_members(
               {"gpuModel", "gpusPerNode", "gpuMemoryMib", "mig", "cpu", "memory", "pods"})) {
        key.fail(
            "not a node pool field an alternative may set (gpuModel, gpusPerNode, gpuMemoryMib, "
            "mig, cpu, memory, pods)");
      }
      YAML::Emitter e;
      e << YAML::Flow << pool.node();
      h.pool_yaml = e.c_str();
      if (const Field price = f.member("pricePerGpuHour"); !price.is_null()) {
        h.price_per_gpu_hour = price.number();
        if (*h.price_per_gpu_hour < 0) price.fail("must be >= 0");
      }
      if (!f.member("count").is_null()) h.count = range_of(f.member("count"), 0, 20000, 1, 1);
      h.quotas = quota_knobs(f.member("quotas"));
      for (const QuotaKnob& q : h.quotas) {
        for (const auto* r : {&q.quota, &q.limit, &q.weight}) {
          if (*r && !(*r)->fixed()) {
            throw InputError(q.where, q.path, "an alternative's quotas are fixed values");
          }
        }
      }
      h.whole_gpu_profile = f.member("wholeGpuProfile").optional_string().value_or("");
      p.hardware.push_back(std::move(h));
    }
  }

  void knobs(const Field& f, PlanSpec& p) {
    if (f.is_null()) return;
    f.expect_map();
    for (const Field& key : f.unknown_members({"gpus", "quotas", "hardware"}))
      key.fail("unknown knob (expected gpus, quotas, hardware)");
    if (!f.member("gpus").is_null()) gpu_knob(f.member("gpus"), p);
    p.quotas = quota_knobs(f.member("quotas"));
    if (!f.member("hardware").is_null()) hardware(f.member("hardware"), p);

    bool quota_range = false;
    for (const QuotaKnob& q : p.quotas) {
      for (const auto* r : {&q.quota, &q.limit, &q.weight})
        quota_range = quota_range || (*r && !(*r)->fixed());
    }
    const bool gpu_range = p.gpus && !p.gpus->count.fixed();
    if (!p.hardware.empty()) {
      if (quota_range)
        f.member("quotas").fail("a hardware comparison takes fixed quotas (one question per plan)");
      if (!p.gpus || p.gpus->scaled)
        f.fail("a hardware comparison needs knobs.gpus with the pool the alternatives replace");
      p.question = Question::HARDWARE;
    } else if (gpu_range && quota_range) {
      f.fail("ask one question per plan: a range of GPUs or ranges of quotas, not both");
    } else if (gpu_range) {
      p.question = Question::GPUS;
    } else if (quota_range) {
      p.question = Question::QUOTAS;
    }
  }

  void tenants(const Field& f, PlanSpec& p) {
    for (const Field& t : f.items()) {
      t.expect_map();
      for (const Field& key : t.unknown_members({"team", "queue", "resourceQuota"}))
        key.fail("unknown field (expected team, queue, resourceQuota)");
      Tenant tenant;
      if (t.member("team").is_null()) t.fail("missing required field \"team\"");
      tenant.team = name_of(t.member("team"));
      if (tenant.team.size() > 54)
        t.member("team").fail("at most 54 characters (the namespace is vcluster-<team>)");
      tenant.queue = t.member("queue").is_null() ? tenant.team : name_of(t.member("queue"));
      if (const Field rq = t.member("resourceQuota"); !rq.is_null()) {
        rq.expect_map();
        tenant.resource_quota = runbook_resource_quota();
        for (auto it = rq.node().begin(); it != rq.node().end(); ++it) {
          const std::string key = it->first.Scalar();
          const Field v = rq.member(key);
          if (key.empty() || key.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789./-") !=
                                 std::string::npos) {
            v.fail("not a ResourceQuota entry name");
          }
          const std::string value = v.string();
          if (value.empty() ||
              value.find_first_not_of("0123456789.+-eEKMGTPmkiu") != std::string::npos) {
            v.fail("not a Kubernetes quantity: \"" + value + "\"");
          }
          tenant.resource_quota[key] = value;
        }
      }
      for (const Tenant& other : p.tenants) {
        if (other.team == tenant.team) t.member("team").fail("team named twice");
      }
      p.tenants.push_back(std::move(tenant));
    }
  }

  void search(const Field& f, PlanSpec& p) {
    if (f.is_null()) return;
    f.expect_map();
    warn_unknown(f, {"screen", "replayed", "seed"}, d_);
    if (!f.member("screen").is_null()) p.search.screen = whole(f.member("screen"), 0, 1'000'000);
    if (!f.member("replayed").is_null()) p.search.replayed = whole(f.member("replayed"), 1, 10000);
    if (!f.member("seed").is_null())
      p.search.seed = static_cast<std::uint64_t>(whole(f.member("seed"), 0, 1'000'000'000));
  }

  void status(const Field& f, PlanSpec& p) {
    if (f.is_null()) return;
    f.expect_map();
    warn_unknown(f, {"at"}, d_);
    for (const Field& t : f.member("at").items()) p.status_at_ms.push_back(duration_ms(t));
  }

  const std::string& file_;
  std::string base_;
  Diagnostics& d_;
};

}  // namespace

const char* metric_name(Metric m) {
  switch (m) {
    case Metric::WAIT_P95:
      return "wait_p95";
    case Metric::WAIT_MAX:
      return "wait_max";
    case Metric::WAIT_MEAN:
      return "wait_mean";
    case Metric::WAIT_PROBABILITY:
      return "wait_probability";
    case Metric::RECLAIM_LATENCY_MAX:
      return "reclaim_latency_max";
    case Metric::EVICTIONS_MAX:
      return "evictions_max";
    case Metric::UTILIZATION_MIN:
      return "utilization_min";
  }
  return "?";
}

const char* metric_unit(Metric m) {
  switch (m) {
    case Metric::EVICTIONS_MAX:
      return "pods";
    case Metric::WAIT_PROBABILITY:
    case Metric::UTILIZATION_MIN:
      return "fraction";
    default:
      return "s";
  }
}

PlanSpec load_plan_text(const std::string& text, const std::string& name,
                        const std::string& base_dir, Diagnostics& diagnostics) {
  return Reader(name, base_dir, diagnostics).read(text);
}

PlanSpec load_plan(const std::string& path, Diagnostics& diagnostics) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCode::IO, path + ": cannot open");
  std::stringstream s;
  s << in.rdbuf();
  const std::string dir = fs::path(path).parent_path().string();
  return load_plan_text(s.str(), path, dir.empty() ? "." : dir, diagnostics);
}

}  // namespace sim::plan
