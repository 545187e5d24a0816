#include "sim/sched/framework/invariants.hpp"

#include <cmath>
#include <cstdint>
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
//
// `moved` (by task index) marks the pods that more than one node's books hold: a pod moved this
// session leaves a Releasing record on its old node, as in KAI. Placing such a pod again on its
// old node unevicts it instead (Statement.Pipeline, Unevict: the statement's earliest eviction of
// the pod), which puts it back on the node it was evicted from, past any pod placed there since,
// with no fit check: KAI's books go over that node the same way, so a node holding such a pod
// pipelined is not held to its capacity with pipelined pods.
std::string capacity_problem(const model::Node& node, const std::vector<char>& moved) {
  ResourceVec active = ResourceVec::Zero(), committed = ResourceVec::Zero();
  bool moved_back = false;
  std::map<std::string, std::int64_t> shared;
  std::set<std::string> oversized;  // groups holding a request larger than the GPU (see below)
  for (const auto& [task, rec] : node.tasks) {
    if (rec.status == model::TaskStatus::RELEASING ||
        rec.status == model::TaskStatus::STUCK_IN_RELEASING)
      continue;
    committed += rec.tracked;
    if (rec.status == model::TaskStatus::PIPELINED) {
      moved_back = moved_back || (task.index() < moved.size() && moved[task.index()]);
      continue;
    }
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
  if (std::string p = over(committed, " with pipelined pods"); !p.empty() && !moved_back) return p;
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

// Per task: held by the books of more than one node.
std::vector<char> moved_pods(const model::ClusterState& state) {
  std::vector<std::uint8_t> holders(state.tasks.size(), 0);
  for (const model::Node& n : state.nodes) {
    for (const auto& [task, rec] : n.tasks) {
      if (task.index() < holders.size() && holders[task.index()] < 2) ++holders[task.index()];
    }
  }
  std::vector<char> moved(holders.size(), 0);
  for (std::size_t i = 0; i < holders.size(); ++i) moved[i] = holders[i] > 1;
  return moved;
}

}  // namespace

InvariantChecker::InvariantChecker(const Session& ssn) {
  const std::vector<char> moved = moved_pods(ssn.state);
  for (const model::Node& n : ssn.state.nodes)
    node_ok_.push_back(capacity_problem(n, moved).empty());
  for (const model::Task& t : ssn.state.tasks)
    pipelined_at_open_.push_back(t.status == model::TaskStatus::PIPELINED);
}

std::vector<std::string> InvariantChecker::violations(const Session& ssn) const {
  std::vector<std::string> out;
  const model::ClusterState& state = ssn.state;
  const std::vector<char> moved = moved_pods(state);
  for (std::size_t i = 0; i < state.nodes.size() && i < node_ok_.size(); ++i) {
    if (!node_ok_[i]) continue;
    const model::Node& node = state.nodes[NodeId(static_cast<NodeId::value_type>(i))];
    if (std::string p = capacity_problem(node, moved); !p.empty())
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
