#include "sim/api/cycle_report.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "api/cycle_table.hpp"
#include "api/pending_reasons.hpp"
#include "sim/core/go_json.hpp"
#include "sim/io/quantity.hpp"
#include "sim/sched/cycle.hpp"
#include "sim/sched/plugins/proportion.hpp"

namespace sim::api {
namespace {

using nlohmann::ordered_json;

// Numbers go out in Go's float format; nlohmann would print 0.33 as 0.33 too, but we keep one
// formatter for every output so CLI, server and files agree byte for byte.
ordered_json number(double v) { return ordered_json::parse(go_json_number(v)); }

ordered_json resources(const ResourceVec& v) {
  ordered_json out = ordered_json::object();
  out["gpu"] = number(at(v, Resource::GPU));
  out["cpu"] = number(at(v, Resource::CPU));
  out["memory"] = number(at(v, Resource::MEMORY));
  return out;
}

// Queue.status style quantities: GPUs and CPU in milli units ("330m"), memory in bytes.
ordered_json status_quantities(const ResourceVec& v) {
  ordered_json out = ordered_json::object();
  out["nvidia.com/gpu"] = io::format_milli_quantity(std::llround(at(v, Resource::GPU) * 1000));
  out["cpu"] = io::format_milli_quantity(std::llround(at(v, Resource::CPU)));
  out["memory"] = std::to_string(std::llround(at(v, Resource::MEMORY)));
  return out;
}

ordered_json groups(const std::vector<std::string>& ids) {
  ordered_json out = ordered_json::array();
  for (const std::string& id : ids) out.push_back(id);
  return out;
}

// The NUMA zones a pod is charged to, as a BindRequest's predictedNUMAZones: zone ids and
// quantities.
ordered_json numa_zones(const model::Task& t, const model::Node& node) {
  ordered_json out = ordered_json::array();
  for (const model::ZoneAmounts& z : t.devices->numa_placement) {
    if (!node.numa || z.zone < 0 || static_cast<std::size_t>(z.zone) >= node.numa->zones.size())
      continue;
    ordered_json amount = ordered_json::object();
    for (const auto& [resource, milli] : z.amount)
      amount[resource] = io::format_milli_quantity(milli);
    out.push_back(
        {{"zone", node.numa->zones[static_cast<std::size_t>(z.zone)].id}, {"amount", amount}});
  }
  return out;
}

// The pod's DRA claims and the devices each holds, as a BindRequest's resourceClaimAllocations.
ordered_json claim_allocations(const model::ClusterState& state, const model::Task& t) {
  ordered_json out = ordered_json::array();
  for (const model::PodClaim& pc : t.devices->claims) {
    ordered_json devices = ordered_json::array();
    if (pc.claim >= 0) {
      const model::ResourceClaim& claim = state.claims[static_cast<std::size_t>(pc.claim)];
      if (claim.allocation) {
        for (const model::DraDevice& d : claim.allocation->devices)
          devices.push_back(d.driver + "/" + d.pool + "/" + d.name);
      }
    }
    out.push_back({{"name", pc.name}, {"claim", pc.claim_name}, {"devices", devices}});
  }
  return out;
}

}  // namespace

std::string run_cycle_report(const std::vector<io::SnapshotSource>& sources,
                             const io::SnapshotOptions& options, Diagnostics& diagnostics,
                             CycleFormat format) {
  model::ClusterState state = io::load_snapshot(sources, options, diagnostics);
  sched::Session ssn = sched::run_cycle(state);
  const model::QueueTree& tree = state.queue_tree;

  ordered_json report = ordered_json::object();
  report["schema_version"] = 1;

  // Without the proportion plugin (a custom plugin list) there is no fair share: 0 throughout.
  const IdVector<QueueId, fairshare::QueueShares>* shares = sched::queue_shares(ssn);
  const IdVector<QueueId, fairshare::QueueShares> specs =
      shares ? IdVector<QueueId, fairshare::QueueShares>{}
             : sched::open_queue_attributes(ssn.state);
  if (!shares) shares = &specs;
  std::vector<QueueId> queues(tree.level_order().begin(), tree.level_order().end());
  std::sort(queues.begin(), queues.end(),
            [&](QueueId a, QueueId b) { return tree.uid(a) < tree.uid(b); });
  ordered_json fair = ordered_json::object();
  for (QueueId q : queues) {
    ResourceVec v = ResourceVec::Zero();
    for (Resource r : kQuotaResources) at(v, r) = (*shares)[q][r].fair_share;
    fair[tree.uid(q)] = resources(v);
  }
  report["fairShare"] = fair;

  ordered_json binds = ordered_json::array();
  for (const sched::BindDecision& b : ssn.binds) {
    const model::Task& t = state.tasks[b.task];
    ordered_json entry = ordered_json::object();
    entry["pod"] = t.key();
    entry["node"] = state.nodes[b.node].name;
    entry["gpuGroups"] = groups(b.gpu_groups);
    entry["gpuFraction"] =
        t.is_shared_gpu_allocation() ? number(t.accepted_gpu.portion) : ordered_json(nullptr);
    entry["gpus"] = number(at(t.accepted, Resource::GPU));
    if (!t.devices->numa_placement.empty()) entry["numaZones"] = numa_zones(t, state.nodes[b.node]);
    if (!t.devices->claims.empty()) entry["resourceClaims"] = claim_allocations(state, t);
    binds.push_back(entry);
  }
  report["binds"] = binds;

  ordered_json pipelined = ordered_json::array();
  for (const sched::PipelineDecision& p : ssn.pipelines) {
    ordered_json entry = ordered_json::object();
    entry["pod"] = state.tasks[p.task].key();
    entry["node"] = state.nodes[p.node].name;
    entry["gpuGroups"] = groups(p.gpu_groups);
    entry["action"] = p.action;
    const model::Task& t = state.tasks[p.task];
    if (!t.devices->numa_placement.empty()) entry["numaZones"] = numa_zones(t, state.nodes[p.node]);
    pipelined.push_back(entry);
  }
  report["pipelined"] = pipelined;

  ordered_json evictions = ordered_json::array();
  for (const sched::EvictionDecision& e : ssn.evictions) {
    const model::Task& t = state.tasks[e.task];
    ordered_json entry = ordered_json::object();
    entry["pod"] = t.key();
    entry["node"] = state.nodes[e.node].name;
    entry["reason"] = e.reason;
    entry["for"] = e.beneficiary.valid() ? ordered_json(state.jobs[e.beneficiary].name)
                                         : ordered_json(nullptr);
    // KAI deletes the pod; only a controller brings it back (as a new Pending pod).
    entry["outcome"] = t.controller_owned ? "recreated-pending" : "deleted";
    evictions.push_back(entry);
  }
  report["evictions"] = evictions;

  // Queue usage once this cycle's decisions take effect: bound pods count as allocated, pipelined
  // and evicted ones do not, pending pods count as requested (Queue.status semantics).
  IdVector<QueueId, ResourceVec> allocated(tree.size(), ResourceVec::Zero());
  IdVector<QueueId, ResourceVec> non_preemptible(tree.size(), ResourceVec::Zero());
  IdVector<QueueId, ResourceVec> requested(tree.size(), ResourceVec::Zero());
  for (const model::Job& job : state.jobs) {
    if (!job.queue.valid()) continue;
    for (TaskId id : job.tasks) {
      const model::Task& t = state.tasks[id];
      ResourceVec amount;
      const bool is_allocated = model::is_allocated(t.status);
      if (is_allocated) {
        amount = sched::Session::quantify_accepted(t);
      } else if (t.status == model::TaskStatus::PENDING ||
                 t.status == model::TaskStatus::PIPELINED) {
        amount = t.request;
      } else {
        continue;
      }
      for (QueueId q = job.queue; q.valid(); q = tree.parent(q)) {
        requested[q] += amount;
        if (is_allocated) {
          allocated[q] += amount;
          if (!job.preemptible) non_preemptible[q] += amount;
        }
      }
    }
  }
  ordered_json queue_report = ordered_json::object();
  for (QueueId q : queues) {
    ordered_json entry = ordered_json::object();
    entry["allocated"] = resources(allocated[q]);
    entry["allocatedNonPreemptible"] = resources(non_preemptible[q]);
    entry["requested"] = resources(requested[q]);
    ordered_json status = ordered_json::object();
    status["allocated"] = status_quantities(allocated[q]);
    status["allocatedNonPreemptible"] = status_quantities(non_preemptible[q]);
    status["requested"] = status_quantities(requested[q]);
    entry["status"] = status;
    queue_report[tree.uid(q)] = entry;
  }
  report["queues"] = queue_report;

  ordered_json pending = ordered_json::array();
  for (const PendingJob& p : pending_jobs(ssn)) {
    const model::Job& job = state.jobs[p.job];
    ordered_json reasons = ordered_json::array();
    for (const sched::WaitReason& why : p.reasons) reasons.push_back(why.message);
    ordered_json entry = ordered_json::object();
    entry["job"] = job.name;
    entry["queue"] = job.queue_name;
    entry["pendingPods"] = p.pending_pods;
    entry["reasons"] = reasons;
    pending.push_back(entry);
  }
  report["pending"] = pending;
  if (format == CycleFormat::Table) {
    std::vector<QueueBounds> bounds;
    for (QueueId q : queues) {
      QueueBounds b{tree.uid(q), ResourceVec::Zero(), ResourceVec::Zero()};
      for (Resource r : kQuotaResources) {
        at(b.quota, r) = (*shares)[q][r].deserved;
        at(b.limit, r) = (*shares)[q][r].max_allowed;
      }
      bounds.push_back(std::move(b));
    }
    return cycle_table(report, bounds, state.now_ns);
  }
  return report.dump(2) + "\n";
}

}  // namespace sim::api
