#include "sim/sched/framework/invariants.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

namespace sim::sched {
namespace {

constexpr double kTolerance = 1e-6;

// Over capacity, counted from the pods on the node rather than from its idle vector (KAI's idle
// goes below zero for a moment when a pipelined pod is evicted in a simulation). The pods that are
// neither releasing nor pipelined fit the node, devices included (whole GPUs plus one per shared
// GPU in use, no shared GPU holding more memory than it has); with the pipelined ones added, CPU,
// memory and pod slots still fit. Pipelined pods wait for releasing devices, which KAI matches
// loosely (several may wait for the same one), so their devices are not counted.
std::string capacity_problem(const model::Node& node) {
  ResourceVec active = ResourceVec::Zero(), committed = ResourceVec::Zero();
  std::map<std::string, std::int64_t> shared;
  std::set<std::string> oversized;  // groups holding a request larger than the GPU (see below)
  for (const auto& [task, rec] : node.tasks) {
    if (rec.status == model::TaskStatus::RELEASING ||
        rec.status == model::TaskStatus::STUCK_IN_RELEASING)
      continue;
    committed += rec.tracked;
    if (rec.status == model::TaskStatus::PIPELINED) continue;
    active += rec.tracked;
    if (!rec.shared) continue;
    for (const std::string& group : rec.gpu_groups) {
      shared[group] += rec.gpu_memory_mib;
      if (rec.gpu_memory_mib > node.gpu_memory_mib) oversized.insert(group);
    }
  }
  at(active, Resource::GPU) += static_cast<double>(shared.size());  // each shared GPU is one device
  at(committed, Resource::GPU) = 0;
  auto over = [&](const ResourceVec& held, const char* who) -> std::string {
    for (int r = 0; r < kResourceCount; ++r) {
      if (held[r] > node.allocatable[r] + kTolerance * std::max(1.0, node.allocatable[r])) {
        return std::string(resource_name(static_cast<Resource>(r))) + " held " +
               std::to_string(held[r]) + " of " + std::to_string(node.allocatable[r]) + who;
      }
    }
    return {};
  };
  if (std::string p = over(active, ""); !p.empty()) return p;
  if (std::string p = over(committed, " with pipelined pods"); !p.empty()) return p;
  for (const auto& [group, mib] : shared) {
    // KAI turns a gpu-memory request into a share of the node's GPU memory without bounding it
    // (node_info/gpu_sharing_node_info.go getGpuMemoryFractionalOnNode), so a request above the
    // GPU's memory binds with a portion above 1; KAI keeps no memory bound for its group either.
    if (oversized.count(group) != 0) continue;
    if (mib > node.gpu_memory_mib)
      return "shared GPU " + group + " holds " + std::to_string(mib) + " MiB of " +
             std::to_string(node.gpu_memory_mib);
  }
  return {};
}

}  // namespace

InvariantChecker::InvariantChecker(const Session& ssn) {
  for (const model::Node& n : ssn.state.nodes) node_ok_.push_back(capacity_problem(n).empty());
  for (const model::Task& t : ssn.state.tasks)
    pipelined_at_open_.push_back(t.status == model::TaskStatus::PIPELINED);
}

std::vector<std::string> InvariantChecker::violations(const Session& ssn) const {
  std::vector<std::string> out;
  const model::ClusterState& state = ssn.state;
  for (std::size_t i = 0; i < state.nodes.size() && i < node_ok_.size(); ++i) {
    if (!node_ok_[i]) continue;
    const model::Node& node = state.nodes[NodeId(static_cast<NodeId::value_type>(i))];
    if (std::string p = capacity_problem(node); !p.empty())
      out.push_back("node " + node.name + ": " + p);
  }
  for (const model::Task& t : state.tasks) {
    for (double portion : {t.gpu.portion, t.accepted_gpu.portion}) {
      // A gpu-memory request's portion is unbounded above (see capacity_problem).
      const bool memory_request = t.gpu.memory_mib > 0;
      if (portion < 0 || (portion > 1 && !memory_request)) {
        out.push_back("pod " + t.key() + ": GPU portion " + std::to_string(portion));
      }
    }
  }
  // The plugins' own books (queue sums, DRA devices held).
  const InvariantContext context{pipelined_at_open_};
  for (const auto& check : ssn.hooks.invariants) check(ssn, context, out);
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
