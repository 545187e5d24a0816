#include "generators.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <random>
#include <set>

#include "sim/core/go_json.hpp"
#include "sim/model/gpu_models.hpp"
#include "sim/model/gpu_requirement.hpp"

namespace sim::replay {
namespace {

using io::Field;

std::int64_t duration_of(const Field& f) {
  const std::optional<std::int64_t> ms = io::parse_go_duration_ms(f.string());
  if (!ms || *ms < 0)
    f.fail("not a duration such as \"30s\", \"10m\" or \"1h\": \"" + f.string() + "\"");
  return *ms;
}

std::string duration_text(std::int64_t ms) { return std::to_string(ms) + "ms"; }

void warn_unknown(const Field& f, std::initializer_list<std::string_view> known,
                  Diagnostics& diagnostics) {
  for (const Field& key : f.unknown_members(known))
    diagnostics.unknown_field(key.where(), key.path());
}

// A bound on what one scenario may generate, so a typo in a rate fails fast instead of
// exhausting memory.
constexpr std::size_t kMaxGeneratedPods = 200'000;
constexpr std::size_t kMaxPoolNodes = 20'000;
constexpr int kMaxGpusPerNode = 64;

struct Size {
  double weight = 1;
  PodShape shape;  // everything except name, queue, class and run time
};

Size size_of(const Field& f, Diagnostics& diagnostics) {
  f.expect_map();
  warn_unknown(f,
               {"weight", "gpus", "gpuFraction", "gpuMemoryMib", "migProfile", "migInstances",
                "cpu", "memory"},
               diagnostics);
  Size s;
  if (!f.member("weight").is_null()) {
    s.weight = f.member("weight").number();
    if (!(s.weight > 0)) f.member("weight").fail("must be positive");
  }
  int kinds = 0;
  if (!f.member("gpus").is_null()) {
    const std::optional<int> n = f.member("gpus").optional_int();
    if (!n || *n < 1) f.member("gpus").fail("must be a whole number of GPUs >= 1");
    s.shape.gpus = *n;
    ++kinds;
  }
  if (!f.member("gpuFraction").is_null()) {
    const double x = f.member("gpuFraction").number();
    if (!(x > 0 && x < 1)) f.member("gpuFraction").fail("must be between 0 and 1 (exclusive)");
    s.shape.gpu_fraction = x;
    ++kinds;
  }
  if (!f.member("gpuMemoryMib").is_null()) {
    const std::optional<int> mib = f.member("gpuMemoryMib").optional_int();
    if (!mib || *mib < 1) f.member("gpuMemoryMib").fail("must be a whole number of MiB >= 1");
    s.shape.gpu_memory_mib = *mib;
    ++kinds;
  }
  if (!f.member("migProfile").is_null()) {
    const Field profile = f.member("migProfile");
    const std::string name = profile.string();
    // "<N>g.<M>gb": the form of every MIG profile name (the node pools say which exist).
    const std::size_t g = name.find("g.");
    const bool ok = g != std::string::npos && g > 0 && name.ends_with("gb") &&
                    name.size() > g + 4 && name.find_first_not_of("0123456789") == g &&
                    name.substr(g + 2, name.size() - g - 4).find_first_not_of("0123456789") ==
                        std::string::npos;
    if (!ok) profile.fail("not a MIG profile name such as \"1g.10gb\": \"" + name + "\"");
    s.shape.mig_profile = name;
    ++kinds;
  }
  if (!f.member("migInstances").is_null()) {
    const std::optional<int> n = f.member("migInstances").optional_int();
    if (!n || *n < 1 || *n > 64)
      f.member("migInstances").fail("must be a whole number of instances from 1 to 64");
    if (s.shape.mig_profile.empty()) f.member("migInstances").fail("needs migProfile");
    s.shape.mig_instances = *n;
  }
  if (kinds > 1) f.fail("give one of gpus, gpuFraction, gpuMemoryMib, migProfile");
  s.shape.cpu = f.member("cpu").is_null() ? "" : f.member("cpu").string();
  s.shape.memory = f.member("memory").is_null() ? "" : f.member("memory").string();
  return s;
}

// Run time draws. exponential: mean; uniform: [min, max]; lognormal: median and sigma.
class Runtime {
 public:
  Runtime(const Field& f, Diagnostics& diagnostics) {
    if (f.is_null()) return;
    f.expect_map();
    warn_unknown(f, {"fixed", "exponential", "uniform", "lognormal"}, diagnostics);
    if (!f.member("fixed").is_null()) {
      kind_ = Kind::FIXED;
      a_ = static_cast<double>(duration_of(f.member("fixed")));
    } else if (!f.member("exponential").is_null()) {
      kind_ = Kind::EXPONENTIAL;
      a_ = static_cast<double>(duration_of(f.member("exponential")));
    } else if (!f.member("uniform").is_null()) {
      const Field u = f.member("uniform");
      u.expect_sequence();
      if (u.size() != 2) u.fail("expected [min, max]");
      kind_ = Kind::UNIFORM;
      a_ = static_cast<double>(duration_of(u.item(0)));
      b_ = static_cast<double>(duration_of(u.item(1)));
      if (b_ < a_) u.fail("max is below min");
    } else if (!f.member("lognormal").is_null()) {
      const Field l = f.member("lognormal");
      l.expect_map();
      kind_ = Kind::LOGNORMAL;
      a_ = static_cast<double>(duration_of(l.member("median")));
      b_ = l.member("sigma").number();
      if (!(b_ >= 0)) l.member("sigma").fail("must be >= 0");
    } else {
      f.fail("expected one of fixed, exponential, uniform, lognormal");
    }
  }

  /// Milliseconds (at least 1), or -1 when the pods run until deleted.
  std::int64_t draw(std::mt19937_64& rng) const {
    double ms = -1;
    switch (kind_) {
      case Kind::NONE:
        return -1;
      case Kind::FIXED:
        ms = a_;
        break;
      case Kind::EXPONENTIAL:
        ms = -a_ * std::log1p(-uniform(rng));
        break;
      case Kind::UNIFORM:
        ms = a_ + (b_ - a_) * uniform(rng);
        break;
      case Kind::LOGNORMAL: {
        // Box-Muller from two uniforms; 1 - u keeps the log's argument in (0, 1].
        const double u1 = 1.0 - uniform(rng), u2 = uniform(rng);
        const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
        ms = a_ * std::exp(b_ * z);
        break;
      }
    }
    return std::max<std::int64_t>(1, std::llround(ms));
  }

 private:
  enum class Kind { NONE, FIXED, EXPONENTIAL, UNIFORM, LOGNORMAL };
  Kind kind_ = Kind::NONE;
  double a_ = 0, b_ = 0;
};

// `mig: {1g.5gb: 7}`: MIG instances per GPU, checked against the model's profiles and slices.
std::map<std::string, int> mig_layout(const Field& pool, const model::GpuModel* gpu_model,
                                      int gpus) {
  std::map<std::string, int> layout;
  const Field mig = pool.member("mig");
  if (mig.is_null()) return layout;
  mig.expect_map();
  if (gpu_model == nullptr)
    mig.fail("needs a known \"gpuModel\" (MIG-capable: " + model::gpu_model_names(true) + ")");
  if (!gpu_model->mig_capable()) {
    mig.fail(gpu_model->name + " has no MIG (MIG-capable: " + model::gpu_model_names(true) + ")");
  }
  if (gpus < 1) mig.fail("needs gpusPerNode >= 1");
  int compute = 0, memory = 0;
  for (auto it = mig.node().begin(); it != mig.node().end(); ++it) {
    const std::string name = it->first.Scalar();
    const Field count_field = mig.member(name);
    const model::MigProfile* profile = gpu_model->profile(name);
    if (profile == nullptr) {
      std::string known;
      for (const model::MigProfile& p : gpu_model->mig_profiles)
        known += (known.empty() ? "" : ", ") + p.name;
      count_field.fail("not a MIG profile of " + gpu_model->name + " (" + known + ")");
    }
    const std::optional<int> n = count_field.optional_int();
    if (!n || *n < 1 || *n > profile->max_instances) {
      count_field.fail("instances per GPU must be 1 to " + std::to_string(profile->max_instances));
    }
    compute += profile->compute_slices * *n;
    memory += profile->memory_slices * *n;
    layout[name] = *n;
  }
  if (compute > gpu_model->compute_slices || memory > gpu_model->memory_slices) {
    mig.fail("the instances need " + std::to_string(compute) + " compute and " +
             std::to_string(memory) + " memory slices; one " + gpu_model->name + " has " +
             std::to_string(gpu_model->compute_slices) + " and " +
             std::to_string(gpu_model->memory_slices));
  }
  return layout;
}

}  // namespace

double uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

std::vector<std::pair<std::string, std::string>> bare_pod_annotations(const PodShape& p) {
  std::vector<std::pair<std::string, std::string>> out;
  if (p.gpu_fraction > 0) out.emplace_back("gpu-fraction", go_json_number(p.gpu_fraction));
  if (p.gpu_memory_mib > 0) out.emplace_back("gpu-memory", std::to_string(p.gpu_memory_mib));
  if (p.runtime_ms > 0) out.emplace_back(kRuntimeAnnotation, duration_text(p.runtime_ms));
  return out;
}

std::string mig_resource(const PodShape& p) {
  return p.mig_profile.empty() ? std::string() : "nvidia.com/mig-" + p.mig_profile;
}

double shape_gpus(const PodShape& p) {
  if (p.gpu_fraction > 0) return p.gpu_fraction;
  const std::string mig = mig_resource(p);
  return static_cast<double>(p.gpus) + (mig.empty()
                                            ? 0.0
                                            : static_cast<double>(model::mig_profile_gpus(mig)) *
                                                  static_cast<double>(p.mig_instances));
}

YAML::Node bare_pod_manifest(const PodShape& p) {
  YAML::Node pod;
  pod["apiVersion"] = "v1";
  pod["kind"] = "Pod";
  pod["metadata"]["name"] = p.name;
  pod["metadata"]["namespace"] = p.ns;
  pod["metadata"]["labels"]["kai.scheduler/queue"] = p.queue;
  pod["metadata"]["annotations"] = YAML::Node(YAML::NodeType::Map);
  YAML::Node annotations = pod["metadata"]["annotations"];
  for (const auto& [key, value] : bare_pod_annotations(p)) annotations[key] = value;
  pod["spec"]["schedulerName"] = "kai-scheduler";
  pod["spec"]["priorityClassName"] = p.priority_class;
  YAML::Node container;
  container["name"] = "main";
  container["image"] = "busybox";
  if (p.gpus > 0) container["resources"]["limits"]["nvidia.com/gpu"] = std::to_string(p.gpus);
  if (!p.mig_profile.empty())
    container["resources"]["limits"][mig_resource(p)] = std::to_string(p.mig_instances);
  if (!p.cpu.empty()) container["resources"]["requests"]["cpu"] = p.cpu;
  if (!p.memory.empty()) container["resources"]["requests"]["memory"] = p.memory;
  pod["spec"]["containers"].push_back(container);
  return pod;
}

std::vector<Manifest> expand_node_pools(const Field& pools, const std::string& file,
                                        Diagnostics& diagnostics) {
  std::vector<Manifest> out;
  std::size_t nodes = 0;
  if (pools.is_null()) return out;
  pools.expect_sequence();
  for (std::size_t p = 0; p < pools.size(); ++p) {
    const Field pool = pools.item(p);
    pool.expect_map();
    warn_unknown(pool,
                 {"name", "count", "gpusPerNode", "gpuModel", "gpuMemoryMib", "mig", "cpu",
                  "memory", "pods", "labels", "taints"},
                 diagnostics);
    const std::string name = pool.member("name").string();
    const std::optional<int> count =
        pool.member("count").is_null() ? 1 : pool.member("count").optional_int();
    if (!count || *count < 1) pool.member("count").fail("must be a whole number >= 1");
    nodes += static_cast<std::size_t>(*count);
    if (nodes > kMaxPoolNodes) {
      pool.member("count").fail("node pools may hold at most " + std::to_string(kMaxPoolNodes) +
                                " nodes together (Kubernetes supports 5,000 per cluster)");
    }
    const std::optional<int> gpus =
        pool.member("gpusPerNode").is_null() ? 0 : pool.member("gpusPerNode").optional_int();
    if (!gpus || *gpus < 0 || *gpus > kMaxGpusPerNode) {
      pool.member("gpusPerNode")
          .fail("must be a whole number from 0 to " + std::to_string(kMaxGpusPerNode));
    }
    int memory_mib = 0;
    const model::GpuModel* gpu_model = nullptr;
    if (!pool.member("gpuModel").is_null() && (*gpus > 0 || !pool.member("mig").is_null())) {
      const Field model_field = pool.member("gpuModel");
      const std::string m = model_field.string();
      gpu_model = model::find_gpu_model(m);
      if (gpu_model == nullptr && pool.member("gpuMemoryMib").is_null()) {
        model_field.fail("unknown GPU model \"" + m + "\" (known: " + model::gpu_model_names() +
                         "; or give gpuMemoryMib)");
      }
      if (gpu_model != nullptr) memory_mib = gpu_model->memory_mib;
    }
    if (!pool.member("gpuMemoryMib").is_null()) {
      const std::optional<int> m = pool.member("gpuMemoryMib").optional_int();
      if (!m || *m < 1) pool.member("gpuMemoryMib").fail("must be a whole number of MiB >= 1");
      memory_mib = *m;
    } else if (*gpus > 0 && gpu_model == nullptr) {
      pool.fail("missing \"gpuModel\" or \"gpuMemoryMib\" for a pool with GPUs");
    }
    const std::map<std::string, int> mig = mig_layout(pool, gpu_model, *gpus);
    for (int i = 0; i < *count; ++i) {
      YAML::Node node;
      node["apiVersion"] = "v1";
      node["kind"] = "Node";
      node["metadata"]["name"] = name + "-" + std::to_string(i);
      YAML::Node labels = node["metadata"]["labels"];
      labels["kubernetes.io/hostname"] =
          node["metadata"]["name"].Scalar();  // as the kubelet labels its node
      labels["kaisim/pool"] = name;
      if (!mig.empty()) {
        // The GPU Operator's mixed strategy: every GPU partitioned, MIG instances as resources.
        labels["nvidia.com/mig.strategy"] = "mixed";
        labels["nvidia.com/mig.config"] = "kaisim-layout";
      }
      if (*gpus > 0) {
        labels["nvidia.com/gpu.present"] = "true";
        labels["nvidia.com/gpu.product"] =
            "NVIDIA-" + pool.member("gpuModel").optional_string().value_or("custom");
        labels["nvidia.com/gpu.memory"] = std::to_string(memory_mib);
        labels["nvidia.com/gpu.count"] = std::to_string(*gpus);
      }
      const Field extra_labels = pool.member("labels");
      if (!extra_labels.is_null()) {
        extra_labels.expect_map();
        for (const auto& kv : extra_labels.node())
          labels[kv.first.Scalar()] = YAML::Clone(kv.second);
      }
      if (!pool.member("taints").is_null())
        node["spec"]["taints"] = YAML::Clone(pool.member("taints").node());
      YAML::Node allocatable = node["status"]["allocatable"];
      allocatable["cpu"] = pool.member("cpu").optional_string().value_or("64");
      allocatable["memory"] = pool.member("memory").optional_string().value_or("512Gi");
      allocatable["pods"] = pool.member("pods").optional_string().value_or("110");
      allocatable["nvidia.com/gpu"] = mig.empty() ? std::to_string(*gpus) : "0";
      for (const auto& [profile, per_gpu] : mig)
        allocatable["nvidia.com/mig-" + profile] = std::to_string(per_gpu * *gpus);
      YAML::Node ready;
      ready["type"] = "Ready";
      ready["status"] = "True";
      node["status"]["conditions"].push_back(ready);
      out.push_back({node, file});
    }
  }
  return out;
}

void expand_generators(const Field& generators, std::uint64_t seed, std::int64_t duration_ms,
                       const std::set<std::string>& queues, const std::string& file,
                       std::vector<Step>& steps, Diagnostics& diagnostics) {
  if (generators.is_null()) return;
  generators.expect_sequence();
  std::size_t generated = 0;
  for (std::size_t g = 0; g < generators.size(); ++g) {
    const Field gen = generators.item(g);
    gen.expect_map();
    warn_unknown(gen,
                 {"name", "queue", "namespace", "priorityClass", "start", "end", "arrivalsPerHour",
                  "maxJobs", "sizes", "runtime"},
                 diagnostics);
    const std::string name = gen.member("name").string();
    const std::string queue = gen.member("queue").string();
    const std::string ns = gen.member("namespace").optional_string().value_or("default");
    const std::string priority_class =
        gen.member("priorityClass").optional_string().value_or("train");
    const std::int64_t start = gen.member("start").is_null() ? 0 : duration_of(gen.member("start"));
    const std::int64_t end =
        gen.member("end").is_null() ? duration_ms : duration_of(gen.member("end"));
    for (const char* bound : {"start", "end"}) {
      if (!gen.member(bound).is_null() && duration_of(gen.member(bound)) > duration_ms) {
        gen.member(bound).fail(
            "is after the end of the scenario (its duration): no pod would arrive then");
      }
    }
    const double rate = gen.member("arrivalsPerHour").number();
    if (!(rate > 0)) gen.member("arrivalsPerHour").fail("must be positive");
    const std::optional<int> max_jobs = gen.member("maxJobs").is_null()
                                            ? std::optional<int>(1'000'000)
                                            : gen.member("maxJobs").optional_int();
    if (!max_jobs || *max_jobs < 0) gen.member("maxJobs").fail("must be a whole number >= 0");
    // Fail before building anything when the expected count alone is past the bound.
    const double expected =
        std::min(static_cast<double>(*max_jobs),
                 rate * static_cast<double>(std::max<std::int64_t>(0, end - start)) / 3'600'000.0);
    if (static_cast<double>(generated) + expected > static_cast<double>(kMaxGeneratedPods) * 1.01) {
      gen.member("arrivalsPerHour")
          .fail("the generators would create more than " + std::to_string(kMaxGeneratedPods) +
                " pods; lower the rates or set maxJobs");
    }
    const Field sizes_field = gen.member("sizes");
    std::vector<Size> sizes;
    if (sizes_field.is_null()) {
      sizes.push_back(Size{});
    } else {
      sizes_field.expect_sequence();
      if (sizes_field.size() == 0) sizes_field.fail("expected at least one size");
      for (std::size_t i = 0; i < sizes_field.size(); ++i)
        sizes.push_back(size_of(sizes_field.item(i), diagnostics));
    }
    double total_weight = 0;
    for (const Size& s : sizes) total_weight += s.weight;
    const Runtime runtime(gen.member("runtime"), diagnostics);
    if (!queues.contains(queue)) {
      std::string known;
      for (const std::string& q : queues) known += (known.empty() ? "" : ", ") + q;
      gen.member("queue").fail("no Queue named \"" + queue + "\" in this scenario (queues: " +
                               (known.empty() ? "none" : known) + ")");
    }

    // One engine per generator: adding a generator does not change the others' pods.
    std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ULL + g);
    const double mean_gap_ms = 3'600'000.0 / rate;
    double t = static_cast<double>(start);
    for (int i = 0; i < *max_jobs; ++i) {
      t += -mean_gap_ms * std::log1p(-uniform(rng));
      const std::int64_t at = std::llround(t);
      if (at > end) break;
      if (++generated > kMaxGeneratedPods) {
        gen.member("arrivalsPerHour")
            .fail("the generators would create more than " + std::to_string(kMaxGeneratedPods) +
                  " pods; lower the rates or set maxJobs");
      }
      double pick = uniform(rng) * total_weight;
      std::size_t k = 0;
      while (k + 1 < sizes.size() && pick >= sizes[k].weight) pick -= sizes[k++].weight;
      const std::int64_t run_ms = runtime.draw(rng);
      Step step;
      step.at_ms = at;
      step.name = name;
      PodShape pod = sizes[k].shape;
      pod.name = name + "-" + std::to_string(i);
      pod.ns = ns;
      pod.queue = queue;
      pod.priority_class = priority_class;
      pod.runtime_ms = run_ms;
      step.pods.push_back(std::move(pod));
      step.pods_file = file;
      steps.push_back(std::move(step));
    }
  }
}

}  // namespace sim::replay
