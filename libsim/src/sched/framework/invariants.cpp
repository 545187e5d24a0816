#include "sim/sched/framework/invariants.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

namespace sim::sched {
namespace {

constexpr double kTolerance = 1e-6;

bool close(double a, double b) { return std::abs(a - b) <= kTolerance * std::max({1.0, std::abs(a), std::abs(b)}); }

// Over capacity, counted from the pods on the node rather than from its idle vector (KAI's idle
// goes below zero for a moment when a pipelined pod is evicted in a simulation). The pods that are
// neither releasing nor pipelined fit the node, devices included (whole GPUs plus one per shared
// GPU in use, no shared GPU holding more memory than it has); with the pipelined ones added, CPU,
// memory and pod slots still fit. Pipelined pods wait for releasing devices, which KAI matches
// loosely (several may wait for the same one), so their devices are not counted.
std::string capacity_problem(const model::Node& node) {
  ResourceVec active = ResourceVec::Zero(), committed = ResourceVec::Zero();
  std::map<std::string, std::int64_t> shared;
  for (const auto& [task, rec] : node.tasks) {
    if (rec.status == model::TaskStatus::RELEASING || rec.status == model::TaskStatus::STUCK_IN_RELEASING) continue;
    committed += rec.tracked;
    if (rec.status == model::TaskStatus::PIPELINED) continue;
    active += rec.tracked;
    if (!rec.shared) continue;
    for (const std::string& group : rec.gpu_groups) shared[group] += rec.gpu_memory_mib;
  }
  at(active, Resource::GPU) += static_cast<double>(shared.size());  // each shared GPU is one device
  at(committed, Resource::GPU) = 0;
  auto over = [&](const ResourceVec& held, const char* who) -> std::string {
    for (int r = 0; r < kResourceCount; ++r) {
      if (held[r] > node.allocatable[r] + kTolerance * std::max(1.0, node.allocatable[r])) {
        return std::string(resource_name(static_cast<Resource>(r))) + " held " + std::to_string(held[r]) + " of " +
               std::to_string(node.allocatable[r]) + who;
      }
    }
    return {};
  };
  if (std::string p = over(active, ""); !p.empty()) return p;
  if (std::string p = over(committed, " with pipelined pods"); !p.empty()) return p;
  for (const auto& [group, mib] : shared) {
    if (mib > node.gpu_memory_mib) return "shared GPU " + group + " holds " + std::to_string(mib) + " MiB of " + std::to_string(node.gpu_memory_mib);
  }
  return {};
}

}  // namespace

InvariantChecker::InvariantChecker(const Session& ssn) {
  for (const model::Node& n : ssn.state.nodes) node_ok_.push_back(capacity_problem(n).empty());
  for (const model::Task& t : ssn.state.tasks) pipelined_at_open_.push_back(t.status == model::TaskStatus::PIPELINED);
}

std::vector<std::string> InvariantChecker::violations(const Session& ssn) const {
  std::vector<std::string> out;
  const model::ClusterState& state = ssn.state;
  for (std::size_t i = 0; i < state.nodes.size() && i < node_ok_.size(); ++i) {
    if (!node_ok_[i]) continue;
    const model::Node& node = state.nodes[NodeId(static_cast<NodeId::value_type>(i))];
    if (std::string p = capacity_problem(node); !p.empty()) out.push_back("node " + node.name + ": " + p);
  }
  IdVector<QueueId, ResourceVec> sums(state.queue_tree.size(), ResourceVec::Zero());
  for (const model::Task& t : state.tasks) {
    for (double portion : {t.gpu.portion, t.accepted_gpu.portion}) {
      if (portion < 0 || portion > 1) out.push_back("pod " + t.key() + ": GPU portion " + std::to_string(portion));
    }
    // What the proportion plugin counts as allocated: placed pods, and pods pipelined this session
    // (a pod already Pipelined when the session opened is not counted).
    const bool pipelined_now = t.status == model::TaskStatus::PIPELINED &&
                               !(t.id.index() < pipelined_at_open_.size() && pipelined_at_open_[t.id.index()]);
    if (!t.job.valid() || !(model::is_allocated(t.status) || pipelined_now)) continue;
    const model::Job& job = state.jobs[t.job];
    const ResourceVec amount = Session::quantify_accepted(t);
    for (QueueId q = job.queue; q.valid(); q = state.queue_tree.parent(q)) sums[q] += amount;
  }
  if (ssn.dra && ssn.dra->held_counts() != DraDevices::count_held(state)) {
    out.push_back("DRA: the session's held devices differ from those its claims' allocations name");
  }
  for (std::size_t i = 0; i < sums.size(); ++i) {
    const QueueId q(static_cast<QueueId::value_type>(i));
    for (Resource r : kQuotaResources) {
      const double drift = ssn.copy_drift.empty() ? 0.0 : at(ssn.copy_drift[q], r);
      if (!close(ssn.queues[q][r].allocated + drift, at(sums[q], r))) {
        out.push_back("queue " + state.queue_tree.uid(q) + ": allocated " + std::string(resource_name(r)) + " " +
                      std::to_string(ssn.queues[q][r].allocated) + ", its pods hold " + std::to_string(at(sums[q], r)));
      }
    }
  }
  return out;
}

void InvariantChecker::check(const Session& ssn, const std::string& action) const {
#ifndef NDEBUG
  const std::vector<std::string> found = violations(ssn);
  if (found.empty()) return;
  std::fprintf(stderr, "internal invariant failed after action %s:\n", action.c_str());
  for (const std::string& v : found) std::fprintf(stderr, "  %s\n", v.c_str());
  std::abort();
#else
  (void)ssn;
  (void)action;
#endif
}

}  // namespace sim::sched
