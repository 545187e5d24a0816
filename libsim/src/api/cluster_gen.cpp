// `kaisim gen cluster`: a production-shaped cluster state (docs/cluster-gen.md). The pools, mixes
// and fill levels are kaisim's own choices: what large shared GPU clusters look like (several GPU
// generations, a MIG pool and an L40S pool for inference fractions, CPU nodes, DaemonSet pods on
// every node, distributed training gangs, a few thousand jobs waiting).

#include "sim/api/cluster_gen.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <numbers>
#include <random>
#include <sstream>
#include <vector>

#include "io/yaml_field.hpp"
#include "replay/generators.hpp"
#include "sim/core/error.hpp"
#include "sim/core/go_json.hpp"
#include "sim/io/output_folder.hpp"
#include "sim/model/cluster.hpp"
#include "sim/model/gpu_models.hpp"

namespace sim::api {
namespace {

using nlohmann::ordered_json;
using replay::pick;
using replay::uniform;

enum class PoolKind { WHOLE, SHARED, MIG, CPU };

struct Pool {
  const char* name;
  const char* model;  // kaisim's GPU model name (gpu_models.cpp); "" for CPU nodes
  int gpus;
  double share;  // of the nodes
  int cpu;       // cores
  int memory_gi;
  PoolKind kind;
};

constexpr Pool kPools[] = {
    {"h100", "H100-80GB", 8, 0.25, 192, 2048, PoolKind::WHOLE},
    {"a100", "A100-80GB", 8, 0.20, 128, 1024, PoolKind::WHOLE},
    {"l40s", "L40S", 4, 0.20, 64, 512, PoolKind::SHARED},
    {"cpu", "", 0, 0.20, 96, 768, PoolKind::CPU},
    {"a100-mig", "A100-40GB", 8, 0.10, 128, 1024, PoolKind::MIG},
    {"h200", "H200-141GB", 8, 0.05, 192, 2048, PoolKind::WHOLE},
};
// The MIG pool's layout per GPU (GPU Operator mixed strategy): 3 + 2 + 1 + 1 compute slices of 7,
// 4 + 2 + 1 + 1 memory slices of 8.
struct MigSlot {
  const char* profile;
  int per_gpu;
  int gpu_share;  // KAI counts an instance of `Ng.*` as N GPUs
};
constexpr MigSlot kMigLayout[] = {{"1g.5gb", 2, 1}, {"2g.10gb", 1, 2}, {"3g.20gb", 1, 3}};

constexpr int kPodsPerNode = 110;
constexpr int kSystemPodsPerNode = 4;
constexpr std::int64_t kNowSeconds = 1767225600;  // 2026-01-01T00:00:00Z: the replay's time 0

double lognormal(std::mt19937_64& rng, double median, double sigma) {
  const double u1 = 1.0 - uniform(rng), u2 = uniform(rng);
  const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  return median * std::exp(sigma * z);
}

std::string uid(std::mt19937_64& rng) {
  const std::uint64_t a = rng(), b = rng();
  char buf[40];
  std::snprintf(
      buf, sizeof buf, "%08llx-%04llx-4%03llx-8%03llx-%012llx",
      static_cast<unsigned long long>(a >> 32), static_cast<unsigned long long>((a >> 16) & 0xffff),
      static_cast<unsigned long long>(a & 0xfff), static_cast<unsigned long long>(b >> 52),
      static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}

struct GenNode {
  std::string name;
  const Pool* pool;
  double cpu_free;  // cores
  double memory_free_gi;
  int pods = 0;
};

struct QueueNode {
  std::string name, parent;
  double gpu_quota = 0;
  double weight = 1;  // overQuotaWeight
  double limit = -1;
  double draw = 0;  // leaves: how much work lands here
};

// One pod: what the files need about it.
struct GenPod {
  std::string name, ns, queue, group, node, selector_pool, gpu_group, mig_profile;
  std::string priority_class, owner_kind, owner_name;
  double cpu = 0, memory_gi = 0, fraction = 0;
  int gpus = 0;
  bool running = false, system = false;
  std::int64_t created_s = 0, runtime_s = -1;
};

struct GenJob {
  std::string name, queue, priority_class;
  int min_member = 1;
  std::int64_t created_s = 0;
};

std::string quantity(double cores) {
  const auto milli = std::llround(cores * 1000);
  return milli % 1000 == 0 ? std::to_string(milli / 1000) : std::to_string(milli) + "m";
}

class Generator {
 public:
  Generator(const ClusterGenOptions& o) : o_(o), rng_(o.seed * 0x9E3779B97F4A7C15ULL + 0xC1057E4) {}

  GeneratedCluster run() {
    make_nodes();
    make_queues();
    make_system_pods();
    make_running();
    make_pending();
    GeneratedCluster out;
    out.nodes = nodes_.size();
    out.gpus = static_cast<std::size_t>(physical_gpus_);
    out.queues = queues_.size();
    out.pods = pods_.size();
    for (const GenPod& p : pods_) {
      out.running_pods += p.running ? 1U : 0U;
      out.pending_pods += p.running ? 0U : 1U;
      out.system_pods += p.system ? 1U : 0U;
    }
    out.pending_jobs = pending_jobs_;
    out.pending_gangs = pending_gangs_;
    out.files["snapshot.json"] = snapshot();
    out.files["cluster.yaml"] = manifests();
    out.files["arrivals.csv"] = arrivals(out.arrivals);
    out.files["scenario.yaml"] = scenario();
    return out;
  }

 private:
  const ClusterGenOptions& o_;
  std::mt19937_64 rng_;
  std::vector<GenNode> nodes_;
  std::vector<std::pair<const Pool*, int>> pool_counts_;
  std::vector<QueueNode> queues_;
  std::vector<std::size_t> leaves_;
  std::vector<double> cumulative_;  // leaves' loads summed, for draw_queue
  std::vector<GenPod> pods_;
  std::vector<GenJob> jobs_;
  double gpu_capacity_ = 0;  // whole GPUs plus MIG instances at their GPU share
  double physical_gpus_ = 0;
  std::size_t pending_jobs_ = 0, pending_gangs_ = 0;
  int job_counter_ = 0;

  int total_pods() const { return o_.pods; }

  void make_nodes() {
    // Largest remainder: each pool gets its share of the nodes, at least one when there are enough.
    const int n = o_.nodes;
    std::vector<int> counts;
    std::vector<std::pair<double, std::size_t>> remainders;
    int given = 0;
    for (std::size_t i = 0; i < std::size(kPools); ++i) {
      const double exact = kPools[i].share * n;
      int c = static_cast<int>(std::floor(exact));
      if (c == 0 && n >= static_cast<int>(std::size(kPools))) c = 1;
      counts.push_back(c);
      given += c;
      remainders.emplace_back(exact - std::floor(exact), i);
    }
    std::stable_sort(remainders.begin(), remainders.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    for (std::size_t k = 0; given < n; k = (k + 1) % remainders.size()) {
      ++counts[remainders[k].second];
      ++given;
    }
    for (std::size_t k = remainders.size(); given > n; k = k == 0 ? remainders.size() - 1 : k - 1) {
      const std::size_t i = remainders[k % remainders.size()].second;
      if (counts[i] > 1) --counts[i], --given;
    }
    for (std::size_t i = 0; i < std::size(kPools); ++i) {
      if (counts[i] == 0) continue;
      const Pool& p = kPools[i];
      pool_counts_.emplace_back(&p, counts[i]);
      for (int k = 0; k < counts[i]; ++k) {
        nodes_.push_back({std::string(p.name) + "-" + std::to_string(k), &p,
                          static_cast<double>(p.cpu), static_cast<double>(p.memory_gi)});
      }
      physical_gpus_ += static_cast<double>(counts[i]) * p.gpus;
      if (p.kind == PoolKind::MIG) {
        for (const MigSlot& s : kMigLayout)
          gpu_capacity_ += static_cast<double>(counts[i]) * p.gpus * s.per_gpu * s.gpu_share;
      } else {
        gpu_capacity_ += static_cast<double>(counts[i]) * p.gpus;
      }
    }
  }

  void make_queues() {
    const int leaves = o_.queues;
    const int depts = o_.levels == 3
                          ? std::clamp(static_cast<int>(std::lround(std::sqrt(leaves) / 3)), 2, 20)
                          : std::max(2, static_cast<int>(std::lround(std::sqrt(leaves))));
    const int teams =
        o_.levels == 3 ? std::max(depts, static_cast<int>(std::lround(std::sqrt(leaves)))) : 0;
    for (int d = 0; d < depts; ++d) queues_.push_back({"dept-" + std::to_string(d), ""});
    for (int t = 0; t < teams; ++t)
      queues_.push_back({"team-" + std::to_string(t), "dept-" + std::to_string(t % depts)});
    double total = 0;
    for (int l = 0; l < leaves; ++l) {
      QueueNode q{"queue-" + std::to_string(l), teams > 0 ? "team-" + std::to_string(l % teams)
                                                          : "dept-" + std::to_string(l % depts)};
      q.draw = lognormal(rng_, 1.0, 1.0);
      static constexpr double kWeights[] = {1, 1, 1, 2, 4};
      static constexpr double kEven[] = {1, 1, 1, 1, 1};
      q.weight = kWeights[pick(rng_, kEven)];
      total += q.draw;
      leaves_.push_back(queues_.size());
      queues_.push_back(std::move(q));
    }
    // 90% of the GPUs handed out as quota, in proportion to each leaf's load; a tenth of the leaves
    // capped at twice their quota.
    for (std::size_t i : leaves_) {
      QueueNode& q = queues_[i];
      q.gpu_quota = std::floor(0.9 * gpu_capacity_ * q.draw / total);
      if (uniform(rng_) < 0.1) q.limit = std::max(8.0, 2 * q.gpu_quota);
    }
    for (std::size_t k = queues_.size(); k-- > 0;) {
      if (queues_[k].parent.empty()) continue;
      for (QueueNode& parent : queues_) {
        if (parent.name == queues_[k].parent) parent.gpu_quota += queues_[k].gpu_quota;
      }
    }
  }

  // A leaf queue in proportion to its load.
  const QueueNode& draw_queue() {
    if (cumulative_.empty()) {
      double total = 0;
      for (std::size_t i : leaves_) cumulative_.push_back(total += queues_[i].draw);
    }
    const double x = uniform(rng_) * cumulative_.back();
    const auto k = static_cast<std::size_t>(
        std::upper_bound(cumulative_.begin(), cumulative_.end(), x) - cumulative_.begin());
    return queues_[leaves_[std::min(k, leaves_.size() - 1)]];
  }

  std::int64_t runtime() {
    return std::clamp<std::int64_t>(std::llround(lognormal(rng_, 6 * 3600.0, 1.0)), 60, 72 * 3600);
  }

  GenJob& new_job(const QueueNode& q, const char* priority_class, int min_member,
                  std::int64_t created_s) {
    jobs_.push_back(
        {"job-" + std::to_string(job_counter_++), q.name, priority_class, min_member, created_s});
    return jobs_.back();
  }

  GenPod& add_pod(const GenJob& job, int index, GenNode* node, double cpu, double memory_gi) {
    GenPod p;
    p.name = job.name + "-" + std::to_string(index);
    p.ns = "ns-" + job.queue;
    p.queue = job.queue;
    p.group = "pg-" + job.name;
    p.priority_class = job.priority_class;
    p.owner_kind = job.min_member > 1 ? "PyTorchJob" : "Job";
    p.owner_name = job.name;
    p.cpu = cpu;
    p.memory_gi = memory_gi;
    p.created_s = job.created_s;
    p.runtime_s = runtime();
    if (node != nullptr) {
      p.node = node->name;
      p.running = true;
      node->cpu_free -= cpu;
      node->memory_free_gi -= memory_gi;
      ++node->pods;
    }
    pods_.push_back(std::move(p));
    return pods_.back();
  }

  void make_system_pods() {
    for (GenNode& n : nodes_) {
      const bool gpu = n.pool->gpus > 0;
      const std::pair<const char*, const char*> daemons[kSystemPodsPerNode] = {
          {"kube-system", "kube-proxy"},
          {"monitoring", "node-exporter"},
          {"logging", "fluent-bit"},
          gpu ? std::pair{"gpu-operator", "nvidia-dcgm-exporter"}
              : std::pair{"kube-system", "csi-node"}};
      for (const auto& [ns, daemon] : daemons) {
        GenPod p;
        p.name = std::string(daemon) + "-" + n.name;
        p.ns = ns;
        p.owner_kind = "DaemonSet";
        p.owner_name = daemon;
        p.cpu = 0.1;
        p.memory_gi = 0.25;
        p.node = n.name;
        p.running = p.system = true;
        p.created_s = kNowSeconds - 30 * 86400;
        n.cpu_free -= p.cpu;
        n.memory_free_gi -= p.memory_gi;
        ++n.pods;
        pods_.push_back(std::move(p));
      }
    }
  }

  std::int64_t running_created() {
    return kNowSeconds - 60 - static_cast<std::int64_t>(uniform(rng_) * 7 * 86400);
  }

  void make_running() {
    int budget = total_pods() - static_cast<int>(pods_.size()) - o_.pending_pods;
    std::vector<std::size_t> order(nodes_.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), rng_);
    std::vector<bool> full(nodes_.size(), false);
    for (std::size_t i : order) {
      if (budget <= 0) break;
      GenNode& n = nodes_[i];
      if (full[i]) continue;
      const Pool& p = *n.pool;
      const double cpu_per_gpu = p.gpus > 0 ? 0.6 * p.cpu / p.gpus : 0;
      const double mem_per_gpu = p.gpus > 0 ? 0.6 * p.memory_gi / p.gpus : 0;
      if (p.kind == PoolKind::WHOLE) {
        // A quarter of the empty 8-GPU nodes start a running gang over this and the next free
        // nodes.
        if (uniform(rng_) < 0.25) {
          static constexpr int kSizes[] = {2, 4, 8};
          static constexpr double kSizeWeights[] = {5, 3, 2};
          const int size = kSizes[pick(rng_, kSizeWeights)];
          std::vector<std::size_t> members{i};
          for (std::size_t k = i + 1; k < nodes_.size() && static_cast<int>(members.size()) < size;
               ++k) {
            if (nodes_[k].pool == n.pool && !full[k] && nodes_[k].pods == kSystemPodsPerNode)
              members.push_back(k);
          }
          if (static_cast<int>(members.size()) == size && size <= budget) {
            const GenJob job = new_job(draw_queue(), "train", size, running_created());
            for (int m = 0; m < size; ++m) {
              GenPod& pod = add_pod(job, m, &nodes_[members[static_cast<std::size_t>(m)]],
                                    8 * cpu_per_gpu, 8 * mem_per_gpu);
              pod.gpus = 8;
              full[members[static_cast<std::size_t>(m)]] = true;
            }
            budget -= size;
            continue;
          }
        }
        int free = uniform(rng_) < 0.6 ? p.gpus : 4 + static_cast<int>(uniform(rng_) * 4);
        static constexpr int kWhole[] = {1, 2, 4, 8};
        static constexpr double kWholeWeights[] = {40, 20, 20, 20};
        while (free > 0 && budget > 0) {
          int g = kWhole[pick(rng_, kWholeWeights)];
          while (g > free) g /= 2;
          const GenJob job = new_job(draw_queue(), "train", 1, running_created());
          add_pod(job, 0, &n, g * cpu_per_gpu, g * mem_per_gpu).gpus = g;
          free -= g;
          --budget;
        }
      } else if (p.kind == PoolKind::SHARED) {
        // Each GPU: one whole pod, or inference fractions sharing it (one GPU group), or idle.
        static constexpr double kPatterns[] = {30, 30, 20, 10, 10};
        static constexpr double kSplits[][4] = {{1, 0, 0, 0},
                                                {0.5, 0.5, 0, 0},
                                                {0.25, 0.25, 0.25, 0.25},
                                                {0.5, 0.25, 0, 0},
                                                {0, 0, 0, 0}};
        for (int g = 0; g < p.gpus && budget > 0; ++g) {
          const std::size_t pattern = pick(rng_, kPatterns);
          if (pattern == 0) {
            const GenJob job = new_job(draw_queue(), "train", 1, running_created());
            add_pod(job, 0, &n, cpu_per_gpu, mem_per_gpu).gpus = 1;
            --budget;
            continue;
          }
          for (double f : kSplits[pattern]) {
            if (f == 0 || budget <= 0) continue;
            const GenJob job = new_job(draw_queue(), "inference", 1, running_created());
            GenPod& pod = add_pod(job, 0, &n, 2, 8);
            pod.fraction = f;
            pod.gpu_group = n.name + "-shared-" + std::to_string(g);
            --budget;
          }
        }
      } else if (p.kind == PoolKind::MIG) {
        for (const MigSlot& s : kMigLayout) {
          for (int k = 0; k < s.per_gpu * p.gpus && budget > 0; ++k) {
            if (uniform(rng_) >= 0.85) continue;
            const GenJob job = new_job(draw_queue(), "inference", 1, running_created());
            add_pod(job, 0, &n, 2.0 * s.gpu_share, 8.0 * s.gpu_share).mig_profile = s.profile;
            --budget;
          }
        }
      }
    }
    // CPU pods fill the rest of the budget, one per node per pass, where they fit.
    static constexpr double kCpu[] = {0.25, 0.5, 1, 2, 4};
    static constexpr double kCpuWeights[] = {20, 30, 25, 15, 10};
    bool placed = true;
    while (budget > 0 && placed) {
      placed = false;
      for (std::size_t i : order) {
        if (budget <= 0) break;
        GenNode& n = nodes_[i];
        const double cpu = kCpu[pick(rng_, kCpuWeights)];
        const double mem = cpu * 4;
        if (n.pods >= kPodsPerNode || n.cpu_free < cpu || n.memory_free_gi < mem) continue;
        const GenJob job =
            new_job(draw_queue(), uniform(rng_) < 0.3 ? "build" : "train", 1, running_created());
        add_pod(job, 0, &n, cpu, mem);
        --budget;
        placed = true;
      }
    }
  }

  void make_pending() {
    int left = o_.pending_pods;
    // Kinds: 1, 2, 4, 8 whole GPUs; a gang of 8-GPU pods; an L40S fraction; a MIG instance; CPU
    // only.
    static constexpr double kKinds[] = {30, 10, 8, 10, 8, 12, 10, 12};
    while (left > 0) {
      const std::size_t kind = pick(rng_, kKinds);
      const QueueNode& q = draw_queue();
      const std::int64_t created =
          kNowSeconds - 1 - static_cast<std::int64_t>(uniform(rng_) * 3600);
      const char* cls = uniform(rng_) < 0.15 ? "inference" : "train";
      ++pending_jobs_;
      if (kind <= 3) {
        const int g = 1 << kind;
        const GenJob job = new_job(q, cls, 1, created);
        add_pod(job, 0, nullptr, 14.0 * g, 150.0 * g).gpus = g;
        --left;
      } else if (kind == 4) {
        static constexpr int kSizes[] = {2, 4, 8, 16};
        static constexpr double kSizeWeights[] = {4, 3, 2, 1};
        const int size = std::min(left, kSizes[pick(rng_, kSizeWeights)]);
        const GenJob job = new_job(q, "train", size, created);
        for (int m = 0; m < size; ++m) add_pod(job, m, nullptr, 112, 1200).gpus = 8;
        pending_gangs_ += size > 1 ? 1U : 0U;
        left -= size;
      } else if (kind == 5) {
        static constexpr double kFractions[] = {0.25, 0.5};
        const GenJob job = new_job(q, "inference", 1, created);
        GenPod& pod = add_pod(job, 0, nullptr, 2, 8);
        pod.fraction = kFractions[pick(rng_, {1.0, 1.0})];
        pod.selector_pool = "l40s";
        --left;
      } else if (kind == 6) {
        const MigSlot& s = kMigLayout[pick(rng_, {3.0, 2.0, 1.0})];
        const GenJob job = new_job(q, "inference", 1, created);
        add_pod(job, 0, nullptr, 2.0 * s.gpu_share, 8.0 * s.gpu_share).mig_profile = s.profile;
        --left;
      } else {
        const GenJob job = new_job(q, "build", 1, created);
        add_pod(job, 0, nullptr, 1 + static_cast<int>(uniform(rng_) * 4), 8);
        --left;
      }
    }
  }

  // ------------------------------------------------------------------ objects

  ordered_json node_json(const GenNode& n) const {
    // The labels and resources `cluster.nodePools` gives a node (replay/generators.cpp), so the
    // snapshot and the scenario hold the same nodes.
    const Pool& p = *n.pool;
    ordered_json labels = {{"kubernetes.io/hostname", n.name}, {"kaisim/pool", p.name}};
    if (p.kind == PoolKind::MIG) {
      labels["nvidia.com/mig.strategy"] = "mixed";
      labels["nvidia.com/mig.config"] = "kaisim-layout";
    }
    if (p.gpus > 0) {
      labels["nvidia.com/gpu.present"] = "true";
      labels["nvidia.com/gpu.product"] = std::string("NVIDIA-") + p.model;
      labels["nvidia.com/gpu.memory"] = std::to_string(model::find_gpu_model(p.model)->memory_mib);
      labels["nvidia.com/gpu.count"] = std::to_string(p.gpus);
    }
    ordered_json allocatable = {
        {"cpu", std::to_string(p.cpu)},
        {"memory", std::to_string(p.memory_gi) + "Gi"},
        {"pods", std::to_string(kPodsPerNode)},
        {"nvidia.com/gpu", p.kind == PoolKind::MIG ? "0" : std::to_string(p.gpus)}};
    if (p.kind == PoolKind::MIG) {
      for (const MigSlot& s : kMigLayout)
        allocatable[std::string("nvidia.com/mig-") + s.profile] =
            std::to_string(s.per_gpu * p.gpus);
    }
    return {{"apiVersion", "v1"},
            {"kind", "Node"},
            {"metadata", {{"name", n.name}, {"labels", labels}}},
            {"status",
             {{"capacity", allocatable},  // as stored; KAI warns when the two differ
              {"allocatable", allocatable},
              {"conditions", ordered_json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
  }

  // Queues were created a minute apart in list order, 90 days before the snapshot: KAI's queue
  // order ends with the older queue first, and without creation times that last tie falls to
  // the order its heaps were filled in, which is Go's map order (proportion/queue_order).
  ordered_json queue_json(const QueueNode& q, std::size_t index) const {
    const std::int64_t created_s = kNowSeconds - 90 * 86400 + static_cast<std::int64_t>(index) * 60;
    ordered_json spec;
    if (!q.parent.empty()) spec["parentQueue"] = q.parent;
    spec["resources"] = {
        {"gpu", {{"quota", q.gpu_quota}, {"limit", q.limit}, {"overQuotaWeight", q.weight}}},
        {"cpu", {{"quota", -1}, {"limit", -1}, {"overQuotaWeight", 1}}},
        {"memory", {{"quota", -1}, {"limit", -1}, {"overQuotaWeight", 1}}}};
    return {{"apiVersion", "scheduling.run.ai/v2"},
            {"kind", "Queue"},
            {"metadata", {{"name", q.name}, {"creationTimestamp", io::format_rfc3339(created_s)}}},
            {"spec", spec}};
  }

  ordered_json pod_group_json(const GenJob& j) const {
    return {{"apiVersion", "scheduling.run.ai/v2alpha2"},
            {"kind", "PodGroup"},
            {"metadata",
             {{"name", "pg-" + j.name},
              {"namespace", "ns-" + j.queue},
              {"creationTimestamp", io::format_rfc3339(j.created_s)}}},
            {"spec",
             {{"queue", j.queue},
              {"minMember", j.min_member},
              {"priorityClassName", j.priority_class}}}};
  }

  ordered_json pod_json(const GenPod& p, std::mt19937_64& uids) const {
    ordered_json metadata = {{"name", p.name},
                             {"namespace", p.ns},
                             {"uid", uid(uids)},
                             {"creationTimestamp", io::format_rfc3339(p.created_s)}};
    ordered_json labels = ordered_json::object(), annotations = ordered_json::object();
    if (!p.system) {
      labels["kai.scheduler/queue"] = p.queue;
      annotations["pod-group-name"] = p.group;
      if (p.runtime_s > 0)
        annotations[replay::kRuntimeAnnotation] = std::to_string(p.runtime_s) + "s";
    } else {
      labels["app"] = p.owner_name;
    }
    if (p.fraction > 0) {
      annotations["gpu-fraction"] = go_json_number(p.fraction);
      if (p.running) {
        labels["runai-gpu-group"] = p.gpu_group;
        annotations["received-resource-type"] = "Fraction";
      }
    }
    metadata["labels"] = labels;
    if (!annotations.empty()) metadata["annotations"] = annotations;
    metadata["ownerReferences"] =
        ordered_json::array({{{"apiVersion", p.system ? "apps/v1" : "batch/v1"},
                              {"kind", p.owner_kind},
                              {"name", p.owner_name},
                              {"uid", uid(uids)},
                              {"controller", true}}});
    ordered_json requests = {{"cpu", quantity(p.cpu)},
                             {"memory", std::to_string(std::llround(p.memory_gi * 1024)) + "Mi"}};
    ordered_json limits = ordered_json::object();
    // GPUs and MIG slices as the API server stores them, the request defaulted from the limit:
    // KAI reads the requests of the objects as given (its snapshot tool skips that defaulting).
    auto extended = [&](const std::string& name, const std::string& amount) {
      requests[name] = amount;
      limits[name] = amount;
    };
    if (p.gpus > 0) extended("nvidia.com/gpu", std::to_string(p.gpus));
    if (!p.mig_profile.empty()) extended("nvidia.com/mig-" + p.mig_profile, "1");
    ordered_json resources = {{"requests", requests}};
    if (!limits.empty()) resources["limits"] = limits;
    ordered_json spec = {{"schedulerName", p.system ? "default-scheduler" : "kai-scheduler"}};
    if (!p.priority_class.empty()) spec["priorityClassName"] = p.priority_class;
    if (!p.node.empty()) spec["nodeName"] = p.node;
    if (!p.selector_pool.empty()) spec["nodeSelector"] = {{"kaisim/pool", p.selector_pool}};
    spec["containers"] = ordered_json::array(
        {{{"name", "main"},
          {"image", p.system ? "registry.k8s.io/" + p.owner_name : "ghcr.io/example/trainer:1.4"},
          {"resources", resources}}});
    return {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", metadata},
            {"spec", spec},
            {"status", {{"phase", p.running ? "Running" : "Pending"}}}};
  }

  static ordered_json priority_classes() {
    ordered_json out = ordered_json::array();
    for (const auto& [name, value] :
         {std::pair{"train", 50}, {"build-preemptible", 75}, {"build", 100}, {"inference", 125}}) {
      out.push_back({{"apiVersion", "scheduling.k8s.io/v1"},
                     {"kind", "PriorityClass"},
                     {"metadata", {{"name", name}}},
                     {"value", value}});
    }
    return out;
  }

  // Every object once, as one JSON line each; the snapshot and the manifests share the lines.
  template <typename Sink>
  void for_each_object(Sink&& sink) const {
    std::mt19937_64 uids(o_.seed ^ 0x5EED0FC1D5ULL);
    for (const ordered_json& pc : priority_classes()) sink("priorityClasses", pc.dump());
    for (std::size_t i = 0; i < queues_.size(); ++i)
      sink("queues", queue_json(queues_[i], i).dump());
    for (const GenJob& j : jobs_) sink("podGroups", pod_group_json(j).dump());
    for (const GenPod& p : pods_) sink("pods", pod_json(p, uids).dump());
  }

  // KAI's default scheduler configuration, written out as its snapshot plugin writes the one in
  // force (conf_util/scheduler_conf_util.go defaultSchedulerConf): KAI's snapshot tool runs only
  // the actions a snapshot names, and its victim searches only with the sg-* generators listed.
  static std::string default_config() {
    const model::SchedulerConfig flags;
    // kaisim's default list is KAI's, less the plugins that change no decision kaisim models.
    ordered_json plugins = ordered_json::array();
    std::vector<model::PluginOption> list = model::enabled_plugins(flags);
    for (const char* name : {"snapshot", "sg-nodelocalgreedy", "sg-multinodegang"})
      list.push_back({name, {}});
    for (const model::PluginOption& p : list) {
      ordered_json plugin{{"name", p.name}};
      if (p.name == "nodeplacement") {
        plugin["arguments"] = {{"cpu", flags.cpu_binpack ? "binpack" : "spread"},
                               {"gpu", flags.gpu_binpack ? "binpack" : "spread"}};
      }
      plugins.push_back(std::move(plugin));
    }
    std::string actions;
    for (const std::string& a : flags.actions) actions += (actions.empty() ? "" : ", ") + a;
    ordered_json config{{"actions", actions},
                        {"tiers", ordered_json::array({ordered_json{{"plugins", plugins}}})}};
    // The scheduler's flags at their defaults (cmd/scheduler/app/options/options.go), as the
    // plugin writes them: KAI reads a flag left out as false, kaisim as its default. No node
    // pool (KAI's cache dereferences partitionParams).
    ordered_json params{{"schedulerName", "kai-scheduler"},
                        {"partitionParams", {{"NodePoolLabelKey", ""}, {"NodePoolLabelValue", ""}}},
                        {"maxNumberConsolidationPreemptees", flags.max_consolidation_preemptees},
                        {"useSchedulingSignatures", flags.use_scheduling_signatures},
                        {"fullHierarchyFairness", true},
                        {"allowConsolidatingReclaim", flags.allow_consolidating_reclaim},
                        {"globalDefaultStalenessGracePeriod", flags.staleness_grace_ns},
                        {"queueLabelKey", flags.queue_label_key}};
    return "\"config\":" + config.dump() + ",\n\"schedulerParams\":" + params.dump();
  }

  std::string snapshot() const {
    // KAI's snapshot.json (pkg/scheduler/plugins/snapshot): KAI's default config and scheduler
    // parameters, the objects under rawObjects by kind.
    std::string out = "{" + default_config() + ",\n\"rawObjects\":{\n\"nodes\":[";
    for (std::size_t i = 0; i < nodes_.size(); ++i)
      out += (i ? ",\n" : "\n") + node_json(nodes_[i]).dump();
    out += "]";
    std::string current;
    bool first = true;
    for_each_object([&](const char* list, const std::string& json) {
      if (current != list) {
        out += std::string(current.empty() ? "" : "]") + ",\n\"" + std::string(list) + "\":[";
        current = list;
        first = true;
      }
      out += (first ? "\n" : ",\n") + json;
      first = false;
    });
    out += "]}}\n";
    return out;
  }

  std::string manifests() const {
    std::string out =
        "# Generated by `kaisim gen cluster` with the objects of snapshot.json, one JSON document "
        "each.\n";
    for_each_object([&](const char*, const std::string& json) { out += "---\n" + json + "\n"; });
    return out;
  }

  std::string arrivals(std::size_t& count) {
    // A day of single-pod arrivals for the scenario: whole GPUs, fractions and CPU pods.
    std::ostringstream csv;
    csv << "submit_s,name,queue,namespace,priority_class,gpus,gpu_fraction,gpu_memory_mib,cpu,"
           "memory,runtime_s\n";
    std::vector<std::int64_t> at(static_cast<std::size_t>(o_.arrivals));
    for (std::int64_t& t : at) t = static_cast<std::int64_t>(uniform(rng_) * 86400);
    std::sort(at.begin(), at.end());
    static constexpr double kKinds[] = {50, 25, 25};
    for (std::size_t i = 0; i < at.size(); ++i) {
      const QueueNode& q = draw_queue();
      const std::size_t kind = pick(rng_, kKinds);
      csv << at[i] << ",arrival-" << i << "," << q.name << ",ns-" << q.name << ","
          << (kind == 1 ? "inference" : "train") << ",";
      if (kind == 0)
        csv << (1 << pick(rng_, {50.0, 20.0, 15.0, 15.0})) << ",,,8,64Gi,";
      else if (kind == 1)
        csv << "," << (uniform(rng_) < 0.5 ? "0.25" : "0.5") << ",,2,8Gi,";
      else
        csv << ",,," << 1 + static_cast<int>(uniform(rng_) * 4) << ",8Gi,";
      csv << runtime() << "\n";
    }
    count = at.size();
    return csv.str();
  }

  std::string scenario() const {
    std::ostringstream sc;
    sc << "# Generated by `kaisim gen cluster --seed " << o_.seed << " --nodes " << o_.nodes
       << " --pods " << o_.pods << " --pending-pods " << o_.pending_pods << " --queues "
       << o_.queues << " --levels " << o_.levels << " --arrivals " << o_.arrivals << "`.\n"
       << "# The state of snapshot.json at time 0 (cluster.yaml), then a day of arrivals "
          "(arrivals.csv).\n"
       << "schema_version: 1\n"
       << "name: generated-cluster\n"
       << "seed: " << o_.seed << "\n"
       << "schedulePeriod: 1s\n"
       << "duration: 24h\n"
       << "cluster:\n  nodePools:\n";
    for (const auto& [p, count] : pool_counts_) {
      sc << "    - {name: " << p->name << ", count: " << count << ", gpusPerNode: " << p->gpus;
      if (p->gpus > 0) sc << ", gpuModel: " << p->model;
      if (p->kind == PoolKind::MIG) {
        sc << ", mig: {";
        for (std::size_t k = 0; k < std::size(kMigLayout); ++k)
          sc << (k ? ", " : "") << kMigLayout[k].profile << ": " << kMigLayout[k].per_gpu;
        sc << "}";
      }
      sc << ", cpu: \"" << p->cpu << "\", memory: " << p->memory_gi << "Gi}\n";
    }
    sc << "manifests: [cluster.yaml]\n"
       << "trace: arrivals.csv\n";
    return sc.str();
  }
};

}  // namespace

GeneratedCluster generate_cluster(const ClusterGenOptions& options) {
  ClusterGenOptions o = options;
  if (o.nodes < 1 || o.nodes > 20'000)
    throw InputError({}, "nodes", "must be between 1 and 20000, got " + std::to_string(o.nodes));
  const long long system = static_cast<long long>(o.nodes) * kSystemPodsPerNode;
  if (o.pods < 0) o.pods = kDefaultPodsPerNode * o.nodes;
  if (o.pods < system || o.pods > static_cast<long long>(o.nodes) * kPodsPerNode) {
    throw InputError({}, "pods",
                     "must be between " + std::to_string(system) + " (the system pods, " +
                         std::to_string(kSystemPodsPerNode) + " per node) and " +
                         std::to_string(static_cast<long long>(o.nodes) * kPodsPerNode) +
                         " (110 per node), got " + std::to_string(o.pods));
  }
  if (o.pending_pods < 0) o.pending_pods = o.pods / 20;
  if (o.pending_pods > o.pods - system) {
    throw InputError({}, "pending_pods",
                     "must be between 0 and " + std::to_string(o.pods - system) +
                         " (the pods less the system pods), got " + std::to_string(o.pending_pods));
  }
  if (o.queues < 0) o.queues = std::clamp(o.nodes / 8, 50, 500);
  if (o.queues < 1 || o.queues > 5000)
    throw InputError({}, "queues", "must be between 1 and 5000, got " + std::to_string(o.queues));
  if (o.levels != 2 && o.levels != 3)
    throw InputError({}, "levels", "must be 2 or 3, got " + std::to_string(o.levels));
  if (o.arrivals < 0) o.arrivals = std::min(200'000, o.pods / 10);
  if (o.arrivals > 200'000)
    throw InputError({}, "arrivals",
                     "must be between 0 and 200000, got " + std::to_string(o.arrivals));
  GeneratedCluster out = Generator(o).run();
  if (!o.out_dir.empty())
    out.output_notes = io::write_output_folder(o.out_dir, out.files, "cluster").notes();
  return out;
}

}  // namespace sim::api
