#include "base_scenario.hpp"

#include <unistd.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>

#include "io/k8s_reader.hpp"
#include "io/yaml_field.hpp"
#include "sim/api/replay.hpp"
#include "sim/api/trace_gen.hpp"
#include "sim/core/go_json.hpp"
#include "sim/model/gpu_models.hpp"

namespace sim::plan {
namespace {

namespace fs = std::filesystem;
using io::Field;

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCode::IO, path.string() + ": cannot open");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A member of a map, or an undefined node (never yaml-cpp's "zombie" node, which throws when
// asked anything but IsDefined).
YAML::Node get(const YAML::Node& n, const char* key) {
  if (!n.IsDefined() || !n.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
  const YAML::Node child = n[key];
  return child.IsDefined() ? child : YAML::Node(YAML::NodeType::Undefined);
}

std::int64_t duration_or(const YAML::Node& n, std::int64_t fallback) {
  if (!n.IsDefined() || !n.IsScalar()) return fallback;
  return io::parse_go_duration_ms(n.Scalar()).value_or(fallback);
}

// YAML out as it came in: quoted scalars stay quoted (a quoted "1" is a string to kaisim's
// readers, a plain 1 a number), maps keep their key order.
void emit(YAML::Emitter& out, const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map:
      out << YAML::BeginMap;
      for (auto it = n.begin(); it != n.end(); ++it) {
        out << YAML::Key;
        emit(out, it->first);
        out << YAML::Value;
        emit(out, it->second);
      }
      out << YAML::EndMap;
      break;
    case YAML::NodeType::Sequence:
      out << YAML::BeginSeq;
      for (const YAML::Node& item : n) emit(out, item);
      out << YAML::EndSeq;
      break;
    case YAML::NodeType::Scalar:
      if (n.Tag() == "!") {
        out << YAML::DoubleQuoted << n.Scalar();
      } else {
        out << n.Scalar();
      }
      break;
    default:
      out << YAML::Null;
  }
}

YAML::Node gpu_block(const QueueResource& r) {
  YAML::Node b(YAML::NodeType::Map);
  b["quota"] = go_json_number(r.quota);
  b["limit"] = go_json_number(r.limit);
  b["overQuotaWeight"] = go_json_number(r.over_quota_weight);
  return b;
}

YAML::Node unlimited_block() { return gpu_block(QueueResource{}); }

QueueResource resource_of(const model::QuotaSpec& q) {
  return {q.quota, q.limit, q.over_quota_weight};
}

// MIG memory of a profile, in MiB: its share of the model's memory slices.
int profile_memory_mib(const model::GpuModel& m, const model::MigProfile& p) {
  return static_cast<int>(static_cast<long long>(m.memory_mib) * p.memory_slices / m.memory_slices);
}

std::atomic<int> trace_dirs{0};

}  // namespace

std::vector<std::string> leaves_under(const BaseScenario& base, const std::string& queue) {
  std::vector<std::string> out;
  for (const std::string& leaf : base.leaf_queues()) {
    if (queue == "cluster") {
      out.push_back(leaf);
      continue;
    }
    std::string q = leaf;
    for (int depth = 0; depth < 64 && !q.empty(); ++depth, q = base.parent_of(q)) {
      if (q == queue) {
        out.push_back(leaf);
        break;
      }
    }
  }
  return out;
}

std::string gpus_text(double gpus) { return go_json_number(std::round(gpus * 1000) / 1000); }

BaseScenario::~BaseScenario() {
  if (!trace_dir_.empty()) {
    std::error_code ec;
    fs::remove_all(trace_dir_, ec);  // a folder this run made, holding only its own CSV files
  }
}

std::shared_ptr<const BaseScenario> BaseScenario::load(const PlanSpec& plan,
                                                       Diagnostics& diagnostics) {
  std::shared_ptr<BaseScenario> b(new BaseScenario());
  b->plan_ = &plan;
  if (plan.trace) {
    std::error_code ec;
    const fs::path dir =
        fs::temp_directory_path(ec) / ("kaisim-plan-" + std::to_string(::getpid()) + "-" +
                                       std::to_string(trace_dirs.fetch_add(1)));
    fs::create_directories(dir, ec);
    if (ec) throw Error(ErrorCode::IO, dir.string() + ": cannot create: " + ec.message());
    b->trace_dir_ = dir.string();
    b->base_dir_ = dir.string();
    b->file_ = plan.file + " (genTrace)";
    const YAML::Node root = b->root_for(plan.first_seed);
    b->read(root, plan, diagnostics);
  } else {
    b->file_ = plan.scenario_path;
    b->base_dir_ = fs::path(plan.scenario_path).parent_path().string();
    if (b->base_dir_.empty()) b->base_dir_ = ".";
    // The scenario is checked by the replay itself first, so its problems name its own lines.
    api::ReplayOptions check;
    check.scenario_path = plan.scenario_path;
    check.validate_only = true;
    (void)api::run_replay(check, diagnostics);
    b->root_ = io::parse_single_document(read_text(plan.scenario_path), plan.scenario_path);
    b->read(b->root_, plan, diagnostics);
  }
  b->check_knobs(plan);
  // Each alternative's pool is checked the same way, on the scenario it makes.
  for (const HardwareOption& h : plan.hardware) {
    Candidate c = b->base_candidate();
    c.hardware = h.name;
    c.nodes = b->nodes_at(
        h.count ? static_cast<int>(h.count->max) : static_cast<int>(plan.gpus->count.max), h.name);
    const ScenarioText t = b->text_for(c, plan.first_seed);
    api::ReplayOptions check;
    check.scenario_path = t.name;
    check.scenario_text = t.text;
    check.base_dir = t.base_dir;
    check.validate_only = true;
    Diagnostics ignored;
    try {
      (void)api::run_replay(check, ignored);
    } catch (const InputError& e) {
      throw InputError(h.pool_where, h.path + ".pool", e.detail());
    }
  }
  return b;
}

YAML::Node BaseScenario::root_for(std::uint64_t seed) const {
  if (!plan_->trace) return YAML::Clone(root_);
  // kaisim gen trace for this seed; its CSV goes into this run's folder once. Only the pods
  // differ from seed to seed: the scenario (pools, queues) is the first seed's.
  static std::mutex m;
  std::lock_guard lock(m);
  const fs::path csv = fs::path(trace_dir_) / ("pods-" + std::to_string(seed) + ".csv");
  if (!fs::exists(csv) || !root_.IsDefined() || root_.IsNull()) {
    api::TraceOptions o;
    o.seed = seed;
    o.pods = plan_->trace->pods;
    o.arrival_hours = plan_->trace->arrival_hours;
    o.node_scale = plan_->trace->node_scale;
    const api::GeneratedTrace t = api::generate_trace(o);
    std::ofstream f(csv, std::ios::binary);
    f << t.files.at("pods.csv");
    if (!f) throw Error(ErrorCode::IO, csv.string() + ": write failed");
    if (!root_.IsDefined() || root_.IsNull())
      root_ = io::parse_single_document(t.files.at("scenario.yaml"), file_);
  }
  YAML::Node root = YAML::Clone(root_);
  root["trace"] = csv.filename().string();
  return root;
}

void BaseScenario::read(const YAML::Node& root, const PlanSpec& plan, Diagnostics& diagnostics) {
  period_ms_ = duration_or(get(root, "schedulePeriod"), 1000);
  duration_ms_ = duration_or(get(root, "duration"), 600000);
  const YAML::Node pools = get(get(root, "cluster"), "nodePools");
  if (pools.IsSequence()) {
    for (const YAML::Node& p : pools) {
      PoolInfo info;
      info.name = get(p, "name").as<std::string>("");
      info.count = get(p, "count").IsDefined() ? get(p, "count").as<int>(1) : 1;
      info.gpus_per_node = get(p, "gpusPerNode").IsDefined() ? get(p, "gpusPerNode").as<int>(0) : 0;
      info.gpu_model = get(p, "gpuModel").IsDefined() ? get(p, "gpuModel").as<std::string>("") : "";
      const model::GpuModel* m = model::find_gpu_model(info.gpu_model);
      info.gpu_memory_mib = get(p, "gpuMemoryMib").IsDefined() ? get(p, "gpuMemoryMib").as<int>(0)
                                                               : (m ? m->memory_mib : 0);
      info.quota_gpus_per_node = info.gpus_per_node;
      const YAML::Node mig = get(p, "mig");
      if (mig.IsDefined() && mig.IsMap() && m != nullptr) {
        info.mig = true;
        double per_gpu = 0;
        for (auto it = mig.begin(); it != mig.end(); ++it) {
          const std::string profile = it->first.Scalar();
          const int n = it->second.as<int>(0);
          info.mig_layout[profile] = n;
          if (const model::MigProfile* mp = m->profile(profile)) per_gpu += n * mp->compute_slices;
        }
        info.quota_gpus_per_node = per_gpu * info.gpus_per_node;
      }
      pools_.push_back(info);
    }
  }
  const YAML::Node manifests = get(root, "manifests");
  auto add_queue = [&](const YAML::Node& doc, const std::string& file, std::size_t position) {
    const Field f(doc, "", &file);
    const model::QueueSpec spec =
        io::read_queue_object(f, static_cast<std::int64_t>(position), diagnostics);
    PlannedQueue q;
    q.name = spec.name;
    q.parent = spec.parent;
    const YAML::Node spec_node = get(doc, "spec");
    if (get(spec_node, "priority").IsDefined()) q.priority = spec.priority;
    q.display_name = spec.display_name;
    if (get(spec_node, "preemptMinRuntime").IsDefined())
      q.preempt_min_runtime = get(spec_node, "preemptMinRuntime").Scalar();
    if (get(spec_node, "reclaimMinRuntime").IsDefined())
      q.reclaim_min_runtime = get(spec_node, "reclaimMinRuntime").Scalar();
    const YAML::Node res = get(spec_node, "resources");
    q.gpu = resource_of(spec.gpu);
    if (get(res, "cpu").IsDefined()) q.cpu = resource_of(spec.cpu);
    if (get(res, "memory").IsDefined()) q.memory = resource_of(spec.memory);
    queues_.push_back(q);
  };
  if (manifests.IsDefined() && manifests.IsSequence()) {
    for (std::size_t i = 0; i < manifests.size(); ++i) {
      const YAML::Node entry = manifests[i];
      if (entry.IsMap()) {
        if (get(entry, "kind").IsDefined() && get(entry, "kind").Scalar() == "Queue")
          add_queue(entry, file_, i);
        continue;
      }
      if (!entry.IsScalar()) continue;
      const fs::path path = fs::path(base_dir_) / entry.Scalar();
      const std::string name = path.lexically_normal().string();
      std::vector<YAML::Node> docs = io::parse_documents(read_text(path), name);
      bool has_queue = false;
      for (std::size_t k = 0; k < docs.size(); ++k) {
        if (get(docs[k], "kind").IsDefined() && get(docs[k], "kind").Scalar() == "Queue") {
          add_queue(docs[k], name, i);
          has_queue = true;
        }
      }
      if (has_queue) queue_files_.emplace_back(i, std::move(docs));
    }
  }
  const YAML::Node steps = get(root, "steps");
  if (steps.IsDefined() && steps.IsSequence()) {
    for (const YAML::Node& s : steps) {
      if (get(s, "at").IsDefined()) step_times_ms_.push_back(duration_or(get(s, "at"), 0));
      // A step that applies a queue the knobs set brings back that step's values.
      const YAML::Node apply = get(s, "apply");
      if (!apply.IsDefined() || !apply.IsSequence()) continue;
      for (const YAML::Node& a : apply) {
        if (!a.IsMap() || !get(a, "kind").IsDefined() || get(a, "kind").Scalar() != "Queue")
          continue;
        const std::string name = get(get(a, "metadata"), "name").as<std::string>("");
        for (const QuotaKnob& k : plan.quotas) {
          if (k.queue == name) {
            diagnostics.warn(k.where, k.path,
                             "a step of the scenario applies queue " + name +
                                 " again; the knob's values hold only until then");
          }
        }
      }
    }
  }
  std::sort(step_times_ms_.begin(), step_times_ms_.end());
  step_times_ms_.erase(std::unique(step_times_ms_.begin(), step_times_ms_.end()),
                       step_times_ms_.end());
}

const PoolInfo* BaseScenario::pool(const std::string& name) const {
  for (const PoolInfo& p : pools_) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

bool BaseScenario::has_queue(const std::string& queue) const {
  for (const PlannedQueue& q : queues_) {
    if (q.name == queue) return true;
  }
  return false;
}

std::string BaseScenario::parent_of(const std::string& queue) const {
  for (const PlannedQueue& q : queues_) {
    if (q.name == queue) return q.parent;
  }
  return "";
}

std::vector<std::string> BaseScenario::leaf_queues() const {
  std::set<std::string> parents, leaves;
  for (const PlannedQueue& q : queues_) parents.insert(q.parent);
  for (const PlannedQueue& q : queues_) {
    if (!parents.contains(q.name)) leaves.insert(q.name);
  }
  return {leaves.begin(), leaves.end()};
}

void BaseScenario::check_knobs(const PlanSpec& plan) const {
  auto knob_pools = [&]() {
    std::vector<std::string> names;
    for (const std::string& p : plan.gpus->pools) {
      if (p != "*") {
        names.push_back(p);
        continue;
      }
      for (const PoolInfo& info : pools_) {
        if (info.gpus_per_node > 0) names.push_back(info.name);
      }
    }
    return names;
  };
  if (plan.gpus) {
    const std::vector<std::string> names = knob_pools();
    if (names.empty())
      throw InputError(plan.gpus->where, plan.gpus->path,
                       "the base scenario has no node pool with GPUs");
    for (const std::string& n : names) {
      const PoolInfo* p = pool(n);
      if (p == nullptr) {
        std::string known;
        for (const PoolInfo& info : pools_) known += (known.empty() ? "" : ", ") + info.name;
        throw InputError(plan.gpus->where, plan.gpus->path,
                         "the base scenario has no node pool \"" + n +
                             "\" (cluster.nodePools: " + (known.empty() ? "none" : known) + ")");
      }
      if (p->gpus_per_node == 0)
        throw InputError(plan.gpus->where, plan.gpus->path, "node pool \"" + n + "\" has no GPUs");
    }
  }
  auto check_queue = [&](const std::string& q, const SourceLocation& where,
                         const std::string& path) {
    if (!has_queue(q))
      throw InputError(where, path, "the base scenario has no queue \"" + q + "\" at time 0");
  };
  for (const QuotaKnob& k : plan.quotas) check_queue(k.queue, k.where, k.path);
  for (const HardwareOption& h : plan.hardware) {
    for (const QuotaKnob& k : h.quotas) check_queue(k.queue, k.where, k.path);
  }
  for (const Target& t : plan.targets) {
    if (t.scope != "cluster" && t.scope != "*") check_queue(t.scope, t.where, t.path);
  }
  for (const Tenant& t : plan.tenants) {
    if (!has_queue(t.queue)) {
      throw InputError({plan.file, 0, 0}, "tenants." + t.team + ".queue",
                       "the base scenario has no queue \"" + t.queue + "\"");
    }
  }
  // Child quotas within the parent's (KAI's queue webhook warns when the children's quotas add
  // up to more than the parent's): at the knobs' lowest values, or nothing can satisfy it.
  std::map<std::string, double> low, high;
  for (const PlannedQueue& q : queues_) low[q.name] = high[q.name] = q.gpu.quota;
  for (const QuotaKnob& k : plan.quotas) {
    if (k.quota) {
      low[k.queue] = k.quota->min;
      high[k.queue] = k.quota->max;
    }
  }
  for (const PlannedQueue& parent : queues_) {
    double children = 0;
    bool any = false;
    for (const PlannedQueue& q : queues_) {
      if (q.parent == parent.name && low[q.name] > 0) {
        children += low[q.name];
        any = true;
      }
    }
    if (any && high[parent.name] >= 0 && children > high[parent.name] + 1e-9) {
      SourceLocation where{plan.file, 0, 0};
      std::string path = "knobs.quotas";
      for (const QuotaKnob& k : plan.quotas) {
        if (k.queue == parent.name || parent_of(k.queue) == parent.name) {
          where = k.where;
          path = k.path;
          break;
        }
      }
      throw InputError(where, path,
                       "the children of " + parent.name + " need at least " + gpus_text(children) +
                           " GPUs of quota, more than its quota can be (" +
                           gpus_text(high[parent.name]) + ")");
    }
  }
}

Candidate BaseScenario::base_candidate() const {
  Candidate c;
  for (const QuotaKnob& k : plan_->quotas) {
    for (const PlannedQueue& q : queues_) {
      if (q.name != k.queue) continue;
      QueueResource r = q.gpu;
      if (k.quota && k.quota->fixed()) r.quota = k.quota->min;
      if (k.limit && k.limit->fixed()) r.limit = k.limit->min;
      if (k.weight && k.weight->fixed()) r.over_quota_weight = k.weight->min;
      c.gpu[k.queue] = r;
    }
  }
  if (plan_->gpus) {
    const Range& r = plan_->gpus->count;
    c.knob = plan_->gpus->scaled ? 100 : static_cast<int>(r.max);
    if (r.fixed()) c.knob = static_cast<int>(r.min);
    c.nodes = nodes_at(c.knob, "");
  }
  return c;
}

std::map<std::string, int> BaseScenario::nodes_at(int v, const std::string& /*hardware*/) const {
  std::map<std::string, int> out;
  if (!plan_->gpus) return out;
  for (const std::string& name : plan_->gpus->pools) {
    for (const PoolInfo& p : pools_) {
      if (name != p.name && !(name == "*" && p.gpus_per_node > 0)) continue;
      out[p.name] =
          plan_->gpus->scaled
              ? std::max(1, static_cast<int>(std::lround(static_cast<double>(p.count) * v / 100.0)))
              : v;
    }
  }
  return out;
}

std::vector<PlannedQueue> BaseScenario::queues_for(const Candidate& c) const {
  std::vector<PlannedQueue> out = queues_;
  const HardwareOption* h = nullptr;
  for (const HardwareOption& o : plan_->hardware) {
    if (o.name == c.hardware) h = &o;
  }
  for (PlannedQueue& q : out) {
    if (auto it = c.gpu.find(q.name); it != c.gpu.end()) q.gpu = it->second;
    if (h == nullptr) continue;
    for (const QuotaKnob& k : h->quotas) {
      if (k.queue != q.name) continue;
      if (k.quota) q.gpu.quota = k.quota->min;
      if (k.limit) q.gpu.limit = k.limit->min;
      if (k.weight) q.gpu.over_quota_weight = k.weight->min;
    }
  }
  return out;
}

void BaseScenario::apply_hardware(YAML::Node& root, const HardwareOption& h) const {
  const YAML::Node fields = YAML::Load(h.pool_yaml);
  const std::string knob_pool = plan_->gpus->pools.front();
  const PoolInfo* before = pool(knob_pool);
  if (!get(get(root, "cluster"), "nodePools").IsDefined()) return;
  YAML::Node pools = root["cluster"]["nodePools"];
  for (std::size_t i = 0; i < pools.size(); ++i) {
    YAML::Node p = pools[i];
    if (get(p, "name").as<std::string>("") != knob_pool) continue;
    for (const char* key : {"gpuModel", "gpusPerNode", "gpuMemoryMib", "mig"}) p.remove(key);
    for (auto it = fields.begin(); it != fields.end(); ++it)
      p[it->first.Scalar()] = YAML::Clone(it->second);
  }
  // On MIG GPUs a pod asks for an instance: the smallest that holds the memory it asked for on
  // the base GPU (a fraction of it, or gpu-memory), or the named one for whole GPUs.
  const YAML::Node mig = get(fields, "mig");
  if (!mig.IsDefined() || !mig.IsMap()) return;
  const model::GpuModel* m = model::find_gpu_model(get(fields, "gpuModel").as<std::string>(""));
  if (m == nullptr) return;                           // the replay's check names the problem
  std::vector<std::pair<int, std::string>> profiles;  // memory MiB, name
  for (auto it = mig.begin(); it != mig.end(); ++it) {
    if (const model::MigProfile* p = m->profile(it->first.Scalar()))
      profiles.emplace_back(profile_memory_mib(*m, *p), p->name);
  }
  std::sort(profiles.begin(), profiles.end());
  const double base_mib = before ? before->gpu_memory_mib : 0;
  if (!get(root, "generators").IsDefined() || !get(root, "generators").IsSequence()) return;
  YAML::Node generators = root["generators"];
  for (std::size_t g = 0; g < generators.size(); ++g) {
    if (!get(generators[g], "sizes").IsDefined() || !get(generators[g], "sizes").IsSequence())
      continue;
    YAML::Node sizes = generators[g]["sizes"];
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      YAML::Node s = sizes[i];
      double need = 0;
      if (get(s, "gpuFraction").IsDefined()) need = get(s, "gpuFraction").as<double>(0) * base_mib;
      if (get(s, "gpuMemoryMib").IsDefined()) need = get(s, "gpuMemoryMib").as<double>(0);
      std::string profile;
      int instances = 1;
      if (need > 0) {
        for (const auto& [mib, name] : profiles) {
          if (mib >= need) {
            profile = name;
            break;
          }
        }
        if (profile.empty() && !profiles.empty())
          profile = profiles.back().second;  // the largest there is
      } else if (get(s, "gpus").IsDefined() && !h.whole_gpu_profile.empty()) {
        profile = h.whole_gpu_profile;
        instances = get(s, "gpus").as<int>(1);
      }
      if (profile.empty()) continue;
      for (const char* key : {"gpuFraction", "gpuMemoryMib", "gpus"}) s.remove(key);
      s["migProfile"] = profile;
      if (instances != 1) s["migInstances"] = instances;
    }
  }
}

ScenarioText BaseScenario::text_for(const Candidate& c, std::uint64_t seed) const {
  YAML::Node root = root_for(seed);
  root["seed"] = std::to_string(seed);
  if (!c.hardware.empty()) {
    for (const HardwareOption& h : plan_->hardware) {
      if (h.name == c.hardware) apply_hardware(root, h);
    }
  }
  if (!c.nodes.empty() && get(get(root, "cluster"), "nodePools").IsDefined()) {
    YAML::Node pools = root["cluster"]["nodePools"];
    YAML::Node kept(YAML::NodeType::Sequence);
    for (std::size_t i = 0; i < pools.size(); ++i) {
      YAML::Node p = pools[i];
      auto it = c.nodes.find(get(p, "name").as<std::string>(""));
      if (it == c.nodes.end()) {
        kept.push_back(p);
      } else if (it->second > 0) {
        p["count"] = std::to_string(it->second);
        kept.push_back(p);
      }
    }
    root["cluster"]["nodePools"] = kept;
  }
  // The queues at time 0 as the plan writes them: the candidate's GPU blocks, cpu and memory
  // unlimited where the scenario has no block for them.
  const std::vector<PlannedQueue> queues = queues_for(c);
  auto rewrite = [&](const YAML::Node& doc) {
    YAML::Node d = YAML::Clone(doc);
    if (!d.IsMap() || !get(d, "kind").IsDefined() || get(d, "kind").Scalar() != "Queue") return d;
    const std::string name = get(get(d, "metadata"), "name").as<std::string>("");
    for (const PlannedQueue& q : queues) {
      if (q.name != name) continue;
      YAML::Node res = d["spec"]["resources"];
      res["gpu"] = gpu_block(q.gpu);
      if (!get(res, "cpu").IsDefined()) res["cpu"] = unlimited_block();
      if (!get(res, "memory").IsDefined()) res["memory"] = unlimited_block();
    }
    return d;
  };
  if (get(root, "manifests").IsDefined() && get(root, "manifests").IsSequence()) {
    YAML::Node manifests = root["manifests"];
    YAML::Node out(YAML::NodeType::Sequence);
    for (std::size_t i = 0; i < manifests.size(); ++i) {
      bool inlined = false;
      for (const auto& [index, docs] : queue_files_) {
        if (index != i) continue;
        for (const YAML::Node& d : docs) out.push_back(rewrite(d));
        inlined = true;
      }
      if (!inlined) out.push_back(manifests[i].IsMap() ? rewrite(manifests[i]) : manifests[i]);
    }
    root["manifests"] = out;
  }
  YAML::Emitter e;
  emit(e, root);
  std::string name = plan_->name;
  if (c.hardware.size()) name += "/" + c.hardware;
  return {std::string(e.c_str()) + "\n",
          file_ + " [" + name + ", seed " + std::to_string(seed) + "]", base_dir_};
}

double BaseScenario::gpus_of(const Candidate& c) const {
  double total = 0;
  for (const PoolInfo& p : pools_) {
    PoolInfo info = p;
    if (!c.hardware.empty() && plan_->gpus && p.name == plan_->gpus->pools.front()) {
      for (const HardwareOption& h : plan_->hardware) {
        if (h.name != c.hardware) continue;
        const YAML::Node f = YAML::Load(h.pool_yaml);
        info.gpus_per_node =
            get(f, "gpusPerNode").IsDefined() ? get(f, "gpusPerNode").as<int>(0) : p.gpus_per_node;
        info.quota_gpus_per_node = info.gpus_per_node;
        const model::GpuModel* m = model::find_gpu_model(
            get(f, "gpuModel").IsDefined() ? get(f, "gpuModel").as<std::string>("") : p.gpu_model);
        const YAML::Node mig = get(f, "mig");
        if (mig.IsDefined() && mig.IsMap() && m != nullptr) {
          double per_gpu = 0;
          for (auto it = mig.begin(); it != mig.end(); ++it) {
            if (const model::MigProfile* mp = m->profile(it->first.Scalar()))
              per_gpu += it->second.as<int>(0) * mp->compute_slices;
          }
          info.quota_gpus_per_node = per_gpu * info.gpus_per_node;
        }
      }
    }
    const auto it = c.nodes.find(p.name);
    const int count = it == c.nodes.end() ? p.count : it->second;
    total += count * info.quota_gpus_per_node;
  }
  return total;
}

int BaseScenario::devices_of(const Candidate& c) const {
  int total = 0;
  for (const PoolInfo& p : pools_) {
    int per_node = p.gpus_per_node;
    if (!c.hardware.empty() && plan_->gpus && p.name == plan_->gpus->pools.front()) {
      for (const HardwareOption& h : plan_->hardware) {
        if (h.name != c.hardware) continue;
        const YAML::Node f = YAML::Load(h.pool_yaml);
        if (get(f, "gpusPerNode").IsDefined()) per_node = get(f, "gpusPerNode").as<int>(0);
      }
    }
    const auto it = c.nodes.find(p.name);
    total += (it == c.nodes.end() ? p.count : it->second) * per_node;
  }
  return total;
}

}  // namespace sim::plan
