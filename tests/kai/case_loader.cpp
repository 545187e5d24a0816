#include "case_loader.hpp"

#include <algorithm>
#include <cmath>

#include "sim/core/go_json.hpp"
#include "sim/io/quantity.hpp"

namespace kai_cases {
namespace {

using nlohmann::json;
using sim::Resource;
namespace model = sim::model;

constexpr std::int64_t kNow = 1'767'225'600'000'000'000;  // 2026-01-01T00:00:00Z
constexpr std::int64_t kMinute = 60'000'000'000;

model::TaskStatus parse_status(const std::string& s) {
  static const std::map<std::string, model::TaskStatus> table = {
      {"Pending", model::TaskStatus::PENDING},
      {"Gated", model::TaskStatus::GATED},
      {"Allocated", model::TaskStatus::ALLOCATED},
      {"Pipelined", model::TaskStatus::PIPELINED},
      {"Binding", model::TaskStatus::BINDING},
      {"Bound", model::TaskStatus::BOUND},
      {"Running", model::TaskStatus::RUNNING},
      {"Releasing", model::TaskStatus::RELEASING},
      {"StuckInReleasing", model::TaskStatus::STUCK_IN_RELEASING},
      {"Succeeded", model::TaskStatus::SUCCEEDED},
      {"Failed", model::TaskStatus::FAILED},
      {"Unknown", model::TaskStatus::UNKNOWN}};
  auto it = table.find(s);
  if (it == table.end()) throw std::runtime_error("unknown pod status " + s);
  return it->second;
}

model::QuotaSpec quota(const json& j) {
  return model::QuotaSpec{j.at("quota").get<double>(), j.at("limit").get<double>(),
                          j.at("oqw").get<double>()};
}

}  // namespace

std::map<std::string, PodState> initial_pods(const json& c) {
  std::map<std::string, PodState> pods;
  for (const json& job : c.at("jobs")) {
    for (const json& t : job.at("tasks")) {
      PodState p;
      p.status = t.at("status").get<std::string>();
      if (!t.at("node").is_null()) p.node = t.at("node").get<std::string>();
      if (t.contains("gpu_groups"))
        p.gpu_groups = t.at("gpu_groups").get<std::vector<std::string>>();
      pods[t.at("name").get<std::string>()] = p;
    }
  }
  return pods;
}

// A test's own plugin list, as KAI's tests give it.
void apply_plugin_list(const json& list, model::SchedulerConfig& config) {
  std::vector<model::PluginOption> plugins;
  for (const json& plugin : list) {
    model::PluginOption option{plugin.at("name").get<std::string>(), {}};
    const json arguments = plugin.value("arguments", json::object());
    for (const auto& [key, value] : arguments.items())
      option.arguments[key] = value.get<std::string>();
    plugins.push_back(std::move(option));
  }
  const bool predicates = config.predicates_enabled;  // the case states it on its own
  model::apply_plugin_list(config, plugins);
  config.predicates_enabled = predicates;
}

model::TopologyConstraint constraint(const json& owner) {
  if (!owner.contains("topology") || owner.at("topology").is_null()) return {};
  const json& t = owner.at("topology");
  return {t.at("topology").get<std::string>(), t.at("required_level").get<std::string>(),
          t.at("preferred_level").get<std::string>()};
}

// A resource list of the case ({"cpu": "4"}) in milli-units.
model::Amounts amounts(const json& list) {
  model::Amounts out;
  for (const auto& [name, q] : list.items()) {
    const std::optional<sim::io::Quantity> parsed = sim::io::parse_quantity(q.get<std::string>());
    if (!parsed || !parsed->milli_value()) throw std::runtime_error("bad quantity " + q.dump());
    out[name] = *parsed->milli_value();
  }
  return out;
}

// nodes_fake: a node's NUMA zones ({policy, scope, zones: [{id, allocatable, available}]}).
model::NumaTopology numa_topology(const json& n) {
  model::NumaTopology t;
  const std::string policy = n.at("policy").get<std::string>();
  t.policy = policy == "single-numa-node" ? model::NumaPolicy::SINGLE_NUMA_NODE
             : policy == "restricted"     ? model::NumaPolicy::RESTRICTED
             : policy == "best-effort"    ? model::NumaPolicy::BEST_EFFORT
                                          : model::NumaPolicy::NONE;
  t.pod_scope = n.at("scope").get<std::string>() == "pod";
  for (const json& z : n.at("zones")) {
    t.zones.push_back(
        {z.at("id").get<std::string>(), amounts(z.at("allocatable")), amounts(z.at("available"))});
  }
  model::finish_numa_topology(t);
  return t;
}

// A kai.scheduler/numa-placement-* annotation: [{"zone": id, "amount": {resource: quantity}}].
std::vector<model::ZoneAmounts> numa_record(const std::string& text) {
  std::vector<model::ZoneAmounts> out;
  for (const json& z : json::parse(text))
    out.push_back({-1, z.at("zone").get<std::string>(), amounts(z.at("amount"))});
  return out;
}

// dra_fake / test_utils_builder getDRAObjects: device classes without selectors, one slice of
// `count` devices named "0".. per entry (pool = its node), claims of one ExactCount request. A
// node's GPU slices add their devices to its GPUs (populateDRAGPUs).
void add_dra(const json& dra, model::ClusterState& state) {
  for (const json& name : dra.value("device_classes", json::array()))
    state.device_classes.push_back({name.get<std::string>(), {}});
  for (const json& sl : dra.value("resource_slices", json::array())) {
    model::DraSlice slice;
    slice.name = sl.at("name").get<std::string>();
    slice.driver = sl.value("driver", std::string("nvidia.com/gpu"));
    slice.node = sl.value("node", std::string());
    slice.pool = slice.node;
    slice.all_nodes = sl.value("all_nodes", false);
    for (std::int64_t i = 0; i < sl.at("count").get<std::int64_t>(); ++i)
      slice.devices.push_back({std::to_string(i), {}, {}});
    if (model::is_gpu_device_class(slice.driver) && !slice.all_nodes) {
      const sim::NodeId n = state.find_node(slice.node);
      if (n.valid()) {
        model::Node& node = state.nodes[n];
        const double gpus = static_cast<double>(slice.devices.size());
        sim::at(node.allocatable, Resource::GPU) += gpus;
        sim::at(node.idle, Resource::GPU) += gpus;
        node.dra_gpus = true;
      }
    }
    state.resource_slices.push_back(std::move(slice));
  }
  for (const json& cl : dra.value("resource_claims", json::array())) {
    model::ResourceClaim claim;
    claim.name = cl.at("name").get<std::string>();
    claim.ns = cl.at("namespace").get<std::string>();
    claim.labels = model::Labels(cl.value("labels", json::object()).get<model::Labels::Map>());
    claim.requests.push_back({"request",
                              cl.at("device_class").get<std::string>(),
                              cl.at("count").get<std::int64_t>(),
                              false,
                              {},
                              false,
                              {}});
    if (cl.contains("status")) {
      const json& st = cl.at("status");
      if (st.contains("allocation") && !st.at("allocation").is_null()) {
        model::DraAllocation a;
        for (const json& r : st.at("allocation").at("devices").at("results")) {
          a.devices.push_back({r.at("driver").get<std::string>(), r.at("pool").get<std::string>(),
                               r.at("device").get<std::string>()});
        }
        a.node = st.at("allocation").value("node", std::string());  // only in kaisim's write-back
        claim.allocation = a;
      }
      for (const json& r : st.value("reservedFor", json::array()))
        claim.reserved_for.push_back(r.at("uid").get<std::string>());
    }
    state.claims.push_back(std::move(claim));
  }
}

// A SubGroupSet of the case (`{name, min_subgroup?, subgroups, podsets}`) and all below it.
void add_set(const json& set, int index, model::SubGroupTree& tree) {
  tree.sets[static_cast<std::size_t>(index)].name = set.value("name", "");
  tree.sets[static_cast<std::size_t>(index)].topology = constraint(set);
  if (set.contains("min_subgroup"))
    tree.sets[static_cast<std::size_t>(index)].min_subgroup =
        set.at("min_subgroup").get<std::int64_t>();
  for (const json& ps : set.at("podsets")) {
    tree.sets[static_cast<std::size_t>(index)].pod_sets.push_back(
        static_cast<int>(tree.pod_sets.size()));
    tree.pod_sets.push_back({ps.at("name").get<std::string>(),
                             ps.at("min_available").get<std::int64_t>(), index, constraint(ps)});
  }
  for (const json& child : set.at("subgroups")) {
    const int child_index = static_cast<int>(tree.sets.size());
    tree.sets.push_back({});
    tree.sets.back().parent = index;
    tree.sets[static_cast<std::size_t>(index)].child_sets.push_back(child_index);
    add_set(child, child_index, tree);
  }
}

std::shared_ptr<const model::SubGroupTree> subgroup_tree(const json& root) {
  auto tree = std::make_shared<model::SubGroupTree>();
  tree->declared = true;
  tree->pod_sets.clear();
  add_set(root, 0, *tree);
  return tree;
}

model::ClusterState build_state(const json& c, const std::map<std::string, PodState>& pods) {
  model::ClusterState state;
  state.now_ns = kNow;
  const json& cfg = c.at("config");
  state.config.predicates_enabled = cfg.at("predicates_enabled").get<bool>();
  state.config.plugins.numa = cfg.value("numa_plugin_enabled", false);
  if (cfg.at("plugins").is_array()) apply_plugin_list(cfg.at("plugins"), state.config);
  state.config.max_consolidation_preemptees = cfg.at("max_consolidation_preemptees").get<int>();
  state.config.allow_consolidating_reclaim = cfg.at("allow_consolidating_reclaim").get<bool>();
  state.config.use_scheduling_signatures = cfg.at("use_scheduling_signatures").get<bool>();
  state.config.staleness_grace_ns =
      static_cast<std::int64_t>(cfg.at("staleness_grace_s").get<double>() * 1e9);
  state.config.k_value = 0;
  state.priority_classes = model::default_priority_classes();
  for (const json& t : c.value("topologies", json::array())) {
    state.topologies.push_back(
        {t.at("name").get<std::string>(), t.at("levels").get<std::vector<std::string>>()});
  }

  // Nodes.
  for (const json& n : c.at("nodes")) {
    model::Node node;
    node.name = n.at("name").get<std::string>();
    node.labels = model::Labels(n.at("labels").get<model::Labels::Map>());
    sim::ResourceVec alloc = sim::ResourceVec::Zero();
    sim::at(alloc, Resource::CPU) = n.at("cpu_milli").get<double>();
    sim::at(alloc, Resource::MEMORY) = n.at("memory_bytes").get<double>();
    sim::at(alloc, Resource::GPU) = n.at("allocatable_gpus").get<double>();
    sim::at(alloc, Resource::PODS) = n.at("pods").get<double>();
    if (n.contains("mig")) {
      for (const auto& [name, count] : n.at("mig").items())
        node.scalars_allocatable[name] = count.get<double>();
    }
    node.init(alloc);
    if (n.contains("numa")) node.numa = numa_topology(n.at("numa"));
    node.gpu_memory_mib = n.at("gpu_memory_mib").get<std::int64_t>();
    node.gpu_memory_synced = n.at("gpu_memory_synced").get<bool>();
    if (auto it = node.labels.find("nvidia.com/gpu.count"); it != node.labels.end()) {
      node.gpu_count_label = std::stoll(it->second);
    }
    state.node_by_name[node.name] = state.nodes.next_id();
    state.nodes.push_back(std::move(node));
  }
  if (c.contains("dra")) add_dra(c.at("dra"), state);
  state.min_node_gpu_memory_mib = cfg.at("min_node_gpu_memory_mib").get<std::int64_t>();
  state.max_node_gpu_memory_mib = cfg.at("max_node_gpu_memory_mib").get<std::int64_t>();

  // Queues. KAI's test harness builds the session's queue map directly, so the
  // full-hierarchy-fairness flattening of the snapshot path never applies here.
  std::vector<model::QueueSpec> specs;
  for (const json& q : c.at("queues")) {
    model::QueueSpec s;
    s.name = q.at("name").get<std::string>();
    s.parent = q.at("parent").get<std::string>();
    s.priority = q.at("priority").get<int>();
    s.gpu = quota(q.at("gpu"));
    s.cpu = quota(q.at("cpu_milli"));
    s.memory = quota(q.at("memory_mb"));
    s.created = model::CreationTime{kNow + q.at("created_rank").get<std::int64_t>() * kMinute, 0};
    specs.push_back(s);
  }
  std::vector<model::QueueLink> links;
  for (const auto& s : specs) {
    model::QueueLink link;
    link.uid = s.name;
    link.parent = s.parent;
    link.path = s.name;
    links.push_back(std::move(link));
  }
  sim::Diagnostics diagnostics;
  state.queue_tree = model::QueueTree::build(links, diagnostics);
  state.queues.resize(state.queue_tree.size());
  for (sim::QueueId q : state.queue_tree.level_order())
    state.queues[q] = specs[state.queue_tree.source_index(q)];

  // Jobs and pods; pods join their nodes in name order, as KAI's fake cluster adds them.
  std::vector<sim::TaskId> on_nodes;
  for (const json& j : c.at("jobs")) {
    model::Job job;
    job.name = j.at("name").get<std::string>();
    job.ns = j.at("namespace").get<std::string>();
    job.queue_name = j.at("queue").get<std::string>();
    job.queue = state.queue_tree.find(job.queue_name);
    job.priority = j.at("priority").get<int>();
    job.preemptible = j.at("preemptible").get<bool>();
    if (j.contains("subgroups") && !j.at("subgroups").is_null()) {
      job.groups = subgroup_tree(j.at("subgroups"));
    } else {
      job.groups = model::SubGroupTree::single(j.value("min_available", std::int64_t{1}));
    }
    job.created_ns = kNow - j.at("age_minutes").get<std::int64_t>() * kMinute;
    if (j.contains("stale_for_s") && !j.at("stale_for_s").is_null()) {
      job.stale_since_ns =
          kNow - static_cast<std::int64_t>(j.at("stale_for_s").get<double>() * 1e9);
    }
    const sim::JobId job_id = state.jobs.next_id();
    for (const json& t : j.at("tasks")) {
      model::Task task;
      task.id = state.tasks.next_id();
      task.name = t.at("name").get<std::string>();
      task.uid = task.name;
      task.ns = job.ns;
      task.job = job_id;
      task.pod_set = job.groups->find_pod_set(t.value("subgroup", std::string("default")));
      task.created_ns = job.created_ns;
      const PodState& p = pods.at(task.name);
      task.status = parse_status(p.status);
      if (!p.node.empty()) task.node = state.find_node(p.node);
      task.gpu_groups = p.gpu_groups;
      const json& r = t.at("request");
      sim::at(task.request, Resource::CPU) = r.at("cpu_milli").get<double>();
      sim::at(task.request, Resource::MEMORY) = r.at("memory_bytes").get<double>();
      sim::at(task.request, Resource::PODS) = r.value("pods", 1.0);
      const double whole = r.value("gpu_whole", 0.0);
      if (whole > 0) task.gpu = model::GpuRequirement::with_gpus(whole, 0);
      if (r.contains("gpu_memory_mib")) {
        task.gpu = model::GpuRequirement::with_gpus(0, r.at("gpu_memory_mib").get<std::int64_t>());
        task.request_type = model::RequestType::GPU_MEMORY;
      }
      if (r.contains("gpu_fraction")) {
        task.gpu = model::GpuRequirement::with_gpus(r.at("gpu_fraction").get<double>(), 0);
        task.request_type = model::RequestType::FRACTION;
      }
      if (r.contains("fraction_devices")) {
        task.gpu = model::GpuRequirement::multi_fraction(
            r.at("fraction_devices").get<std::int64_t>(), r.value("gpu_fraction", 0.0),
            r.value("gpu_memory_mib", std::int64_t{0}));
      }
      if (r.contains("mig")) {
        task.gpu = model::GpuRequirement{};
        for (const auto& [name, count] : r.at("mig").items()) {
          task.gpu.mig.set(name, count.get<std::int64_t>());
          task.scalars.set(name, count.get<double>());
        }
        task.request_type = model::RequestType::MIG;
      }
      task.legacy_mig = t.value("legacy_mig", false);
      for (const json& name : t.value("resource_claims", json::array())) {
        model::PodClaim pc{name.get<std::string>(), -1, name.get<std::string>(), false};
        for (std::size_t k = 0; k < state.claims.size(); ++k) {
          if (state.claims[k].name == pc.claim_name && state.claims[k].ns == task.ns)
            pc.claim = static_cast<int>(k);
        }
        if (pc.claim >= 0) {
          const model::ResourceClaim& claim = state.claims[static_cast<std::size_t>(pc.claim)];
          task.gpu.dra += claim.gpu_devices();
          task.devices.edit().claim_memory[pc.name] = claim.allocation;
        }
        task.devices.edit().claims.push_back(std::move(pc));
      }
      if (j.value("qos_class", std::string()) == "Guaranteed") {
        // pods_fake: one container requesting the task's cpu, memory and GPUs.
        task.qos_guaranteed = true;
        auto units = std::make_shared<model::NumaUnits>();
        units->pod = {{"cpu", r.at("cpu_milli").get<std::int64_t>()},
                      {"memory", r.at("memory_bytes").get<std::int64_t>() * 1000}};
        if (whole > 0) units->pod["nvidia.com/gpu"] = static_cast<std::int64_t>(whole * 1000);
        units->concurrent = {units->pod};
        task.devices.edit().numa_units = units;
      }
      if (t.contains("annotations")) {
        const json& a = t.at("annotations");
        for (const char* key :
             {"kai.scheduler/numa-placement-observed", "kai.scheduler/numa-placement-predicted"}) {
          if (a.contains(key) && task.devices->numa_record.empty())
            task.devices.edit().numa_record = numa_record(a.at(key).get<std::string>());
        }
      }
      sim::at(task.request, Resource::GPU) = task.gpu.gpus() + static_cast<double>(task.gpu.dra);
      if (t.contains("received_resource_type")) {
        const std::string rt = t.at("received_resource_type").get<std::string>();
        task.received_type = rt == "Fraction"      ? model::ReceivedType::FRACTION
                             : rt == "MigInstance" ? model::ReceivedType::MIG
                                                   : model::ReceivedType::REGULAR;
      }
      model::Labels::Map labels = {{"job-name", task.name}};
      if (t.contains("task_priority")) {
        task.task_priority = t.at("task_priority").get<std::int64_t>();
        task.has_task_priority = true;
        labels["kai.scheduler/task-priority"] = std::to_string(task.task_priority);
      }
      if (t.contains("pod_affinity")) {
        // tasks_fake: the labels are the pod's own and the selector of each required term.
        const json& pa = t.at("pod_affinity");
        std::vector<model::SelectorRequirement> selector;
        for (const auto& [key, value] : pa.at("labels").items()) {
          labels[key] = value.get<std::string>();
          selector.push_back({key, "In", {value.get<std::string>()}});
        }
        const std::string affinity_key = pa.at("affinity_topology_key").get<std::string>();
        const std::string anti_key = pa.at("anti_affinity_topology_key").get<std::string>();
        task.placement.edit([&](model::PlacementRules& rules) {
          if (!affinity_key.empty())
            rules.pod_affinity.push_back({selector, {}, false, affinity_key});
          if (!anti_key.empty()) rules.pod_anti_affinity.push_back({selector, {}, false, anti_key});
        });
      }
      task.labels = model::Labels(std::move(labels));
      if (t.contains("node_affinity")) {
        model::NodeSelectorTerm term;
        term.expressions.push_back(
            {"kai.scheduler/type", "In", t.at("node_affinity").get<std::vector<std::string>>()});
        task.placement.edit([&](model::PlacementRules& rules) { rules.required.push_back(term); });
      }
      // jobs_fake: a job with an allocated pod started a minute ago.
      if (model::is_allocated(task.status)) job.last_start_ns = kNow - kMinute;
      job.tasks.push_back(task.id);
      if (task.node.valid() && model::is_active_used(task.status)) on_nodes.push_back(task.id);
      state.tasks.push_back(std::move(task));
    }
    state.jobs.push_back(std::move(job));
  }
  std::sort(on_nodes.begin(), on_nodes.end(), [&](sim::TaskId a, sim::TaskId b) {
    return state.tasks[a].name < state.tasks[b].name;
  });
  for (sim::TaskId t : on_nodes) state.nodes[state.tasks[t].node].add_task(state.tasks[t]);
  return state;
}

void write_back_claims(const model::ClusterState& state, json& c) {
  if (!c.contains("dra")) return;
  json& claims = c["dra"]["resource_claims"];
  for (std::size_t k = 0; k < claims.size() && k < state.claims.size(); ++k) {
    const model::ResourceClaim& claim = state.claims[k];
    if (!claim.allocation && claim.reserved_for.empty()) {
      claims[k].erase("status");
      continue;
    }
    json status = json::object();
    if (claim.allocation) {
      json results = json::array();
      for (const model::DraDevice& d : claim.allocation->devices) {
        results.push_back(
            {{"request", "request"}, {"driver", d.driver}, {"pool", d.pool}, {"device", d.name}});
      }
      status["allocation"] = {{"devices", {{"results", results}}},
                              {"node", claim.allocation->node}};
    }
    json reserved = json::array();
    for (const std::string& uid : claim.reserved_for)
      reserved.push_back({{"resource", "pods"}, {"uid", uid}});
    status["reservedFor"] = reserved;
    claims[k]["status"] = status;
  }
}

std::vector<std::string> check(const json& expect, const sim::sched::Session& ssn,
                               std::size_t binds, std::size_t evictions, std::size_t pipelines) {
  std::vector<std::string> errors;
  const model::ClusterState& state = ssn.state;
  auto find_job = [&](const std::string& name) {
    for (std::size_t i = 0; i < state.jobs.size(); ++i) {
      if (state.jobs[sim::JobId(static_cast<sim::JobId::value_type>(i))].name == name)
        return sim::JobId(static_cast<sim::JobId::value_type>(i));
    }
    return sim::JobId::invalid();
  };
  auto node_name = [&](sim::NodeId n) { return n.valid() ? state.nodes[n].name : std::string(); };
  for (const auto& [name, want] : expect.at("jobs").items()) {
    const sim::JobId j = find_job(name);
    if (!j.valid()) {
      errors.push_back("job " + name + " not found");
      continue;
    }
    const std::string want_status = want.at("status").get<std::string>();
    double gpus = 0;
    for (sim::TaskId t : state.jobs[j].tasks) {
      const model::Task& task = state.tasks[t];
      if (std::string(model::to_string(task.status)) != want_status) {
        errors.push_back(task.name + ": status " + std::string(model::to_string(task.status)) +
                         ", want " + want_status);
      }
      if (want.contains("node") && !want.at("node").get<std::string>().empty() &&
          node_name(task.node) != want.at("node").get<std::string>()) {
        errors.push_back(task.name + ": node " + node_name(task.node) + ", want " +
                         want.at("node").get<std::string>());
      }
      gpus += task.gpu.gpus();
    }
    if (gpus != want.at("gpus_required").get<double>()) {
      errors.push_back(name + ": GPUs required " + sim::go_json_number(gpus));
    }
    if (want.contains("numa_zones")) {
      std::vector<int> zones;
      for (sim::TaskId t : state.jobs[j].tasks) {
        for (const model::ZoneAmounts& z : state.tasks[t].devices->numa_placement)
          zones.push_back(z.zone);
      }
      if (zones != want.at("numa_zones").get<std::vector<int>>())
        errors.push_back(name + ": NUMA zones differ");
    }
    static const std::set<std::string> allocated = {"Allocated", "Binding", "Bound", "Running"};
    if (allocated.contains(want_status) && !state.jobs[j].last_start_ns) {
      errors.push_back(name + ": last start timestamp not set");
    }
  }
  for (const auto& [name, want] : expect.at("tasks").items()) {
    for (const model::Task& task : state.tasks) {
      if (task.name != name) continue;
      const std::string want_status = want.at("status").get<std::string>();
      if (std::string(model::to_string(task.status)) != want_status) {
        errors.push_back(task.name + ": status " + std::string(model::to_string(task.status)) +
                         ", want " + want_status);
      }
      if (want.contains("node") && !want.at("node").get<std::string>().empty() &&
          node_name(task.node) != want.at("node").get<std::string>()) {
        errors.push_back(task.name + ": node " + node_name(task.node) + ", want " +
                         want.at("node").get<std::string>());
      }
    }
  }
  for (const auto& [name, want] : expect.at("nodes").items()) {
    const sim::NodeId n = state.find_node(name);
    if (!n.valid()) continue;
    if (want.contains("idle_gpus") &&
        sim::at(state.nodes[n].idle, Resource::GPU) != want.at("idle_gpus").get<double>()) {
      errors.push_back("node " + name + ": idle GPUs " +
                       sim::go_json_number(sim::at(state.nodes[n].idle, Resource::GPU)));
    }
    if (want.contains("releasing_gpus") && sim::at(state.nodes[n].releasing, Resource::GPU) !=
                                               want.at("releasing_gpus").get<double>()) {
      errors.push_back("node " + name + ": releasing GPUs " +
                       sim::go_json_number(sim::at(state.nodes[n].releasing, Resource::GPU)));
    }
    if (want.contains("numa_zones_available")) {
      for (const auto& [zone, list] : want.at("numa_zones_available").items()) {
        const std::size_t z = std::stoul(zone);
        const model::NumaTopology* numa = state.nodes[n].numa ? &*state.nodes[n].numa : nullptr;
        if (!numa || z >= numa->zones.size()) {
          errors.push_back("node " + name + ": no NUMA zone " + zone);
          continue;
        }
        for (const auto& [resource, amount] : amounts(list)) {
          auto have = numa->zones[z].available.find(resource);
          if ((have == numa->zones[z].available.end() ? 0 : have->second) != amount) {
            errors.push_back("node " + name + ": NUMA zone " + zone + " " + resource +
                             " available differs");
          }
        }
      }
    }
  }
  auto bound = [&](const char* key, std::size_t actual) {
    if (expect.contains(key) && !expect.at(key).is_null() &&
        actual > expect.at(key).get<std::size_t>()) {
      errors.push_back(std::string(key) + " exceeded: " + std::to_string(actual));
    }
  };
  bound("max_binds", binds);
  bound("max_evictions", evictions);
  bound("max_pipelines", pipelines);
  return errors;
}

}  // namespace kai_cases
