#include "sim/sched/framework/node_fit.hpp"

#include <algorithm>
#include <utility>

namespace sim::sched {
namespace {

constexpr int kGpu = index_of(Resource::GPU);

}  // namespace

bool fitting_node(Session& ssn, TaskId task_id, NodeId node_id, std::string* why) {
  const model::Task& task = ssn.state.tasks[task_id];
  // The dense table first: when nobody asks why, a node short of the request stays unopened.
  if (why == nullptr &&
      !ssn.free_capacity.covers(node_id, task.request, task.fits_gpus_by_vector()))
    return false;
  const model::Node& node = ssn.state.nodes[node_id];
  if (!node.task_fits(task, node.non_allocated(), true)) {
    if (!why) return false;
    const std::string lacking = node.lacking(task, node.non_allocated(), true);
    *why =
        "node " + node.name + ": " +
        (lacking.empty() ? "not enough free resources" : "not enough free resources: " + lacking);
    return false;
  }
  for (const auto& predicate : ssn.hooks.predicates) {
    std::string reason;
    if (predicate(ssn, task_id, node_id, why ? &reason : nullptr)) continue;
    if (why) *why = "node " + node.name + ": " + reason;
    return false;
  }
  return true;
}

const std::string& whole_gpu_marker() {
  static const std::string marker(kWholeGpu);
  return marker;
}

std::vector<const std::string*> fitting_gpus(const Session& ssn, const model::Node& node,
                                             const model::Task& task) {
  // Names, not copies: group ids are longer than a short string, and a fraction pod is fitted on
  // many nodes in every scenario of the victim search.
  std::vector<const std::string*> candidates;
  node.for_each_fitting_group(task.gpu, [&](const std::string& group) {
    candidates.push_back(&group);
    return false;
  });
  const double idle = node.idle[kGpu], releasing = node.releasing[kGpu];
  if (idle > 0 || releasing > 0) {
    // All markers are alike and sort together; the caller takes at most gpu.count of them, so
    // listing more (KAI lists one per whole GPU) changes nothing but the work.
    const std::int64_t whole = std::min<std::int64_t>(
        static_cast<std::int64_t>(idle) + static_cast<std::int64_t>(releasing),
        std::max<std::int64_t>(task.gpu.count, 1));
    for (std::int64_t i = 0; i < whole; ++i) candidates.push_back(&whole_gpu_marker());
  }
  // sortGPUs: by summed GpuOrderFn score, best first; a candidate a plugin cannot score is left
  // out. Equal scores keep candidate order (groups by id, whole GPUs last): a stable sort.
  std::vector<std::pair<double, const std::string*>> scored;
  scored.reserve(candidates.size());
  for (const std::string* c : candidates) {
    double score = 0;
    bool failed = false;
    for (const auto& fn : ssn.hooks.gpu_order) {
      const std::optional<double> s = fn(node, task, *c);
      if (!s) {
        failed = true;
        break;
      }
      score += *s;
    }
    if (!failed) scored.emplace_back(score, c);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<const std::string*> sorted;
  sorted.reserve(scored.size());
  for (const auto& [score, c] : scored) sorted.push_back(c);
  return sorted;
}

std::optional<GpuChoice> preferable_gpus(Session& ssn, const model::Node& node,
                                         const model::Task& task, bool pipeline_only,
                                         bool assign_new_ids) {
  GpuChoice choice;
  const auto count = static_cast<std::size_t>(task.gpu.count);
  for (const std::string* candidate : fitting_gpus(ssn, node, task)) {
    const std::string& gpu = *candidate;
    if (gpu == kWholeGpu) {
      // findGpuForSharingOnNode: a new group; releasing unless the task fits idle now.
      const bool releasing = pipeline_only || !node.task_fits(task, node.idle, false);
      choice.releasing = choice.releasing || releasing;
      choice.needs_new_group = true;
      choice.groups.push_back(assign_new_ids ? ssn.new_gpu_group_id(node) : std::string("new"));
    } else {
      choice.releasing = choice.releasing || !node.enough_idle_on_group(task.gpu, gpu) ||
                         !node.task_fits(task, node.idle, false);
      choice.groups.push_back(gpu);
    }
    if (choice.groups.size() == count) return choice;
  }
  return std::nullopt;
}

NodeOrder ordered_nodes(Session& ssn, TaskId task, const std::vector<NodeId>& offered,
                        bool fitting_only, const std::vector<char>* in_offered) {
  // The session's scratch vectors: allocating them anew for every task was measurable.
  std::vector<double>& scores = ssn.scratch.scores;
  std::vector<char>& dropped = ssn.scratch.dropped;
  const std::vector<NodeId>* scored_nodes = &offered;
  if (fitting_only) {
    // FittingNode's first check, made before scoring instead of after: a node the task does not
    // fit is never the one chosen, and most nodes of a busy cluster are full. The dense table
    // of free resources turns most of them away without opening their books.
    const model::Task& t = ssn.state.tasks[task];
    std::vector<NodeId>& fitting = ssn.scratch.fitting;
    fitting.clear();
    // For a plain pod the table's check is the whole of it: the node's books stay closed.
    const bool covered = t.fits_by_vector_only();
    auto add_if_fits = [&](NodeId id) {
      if (!ssn.free_capacity.covers(id, t.request, t.fits_gpus_by_vector())) return;
      const model::Node& node = ssn.state.nodes[id];
      SIM_ASSERT(!covered || node.task_fits(t, node.non_allocated(), true));
      if (covered || node.task_fits(t, node.non_allocated(), true)) fitting.push_back(id);
    };
    if (in_offered != nullptr && t.fits_gpus_by_vector() && t.request[kGpu] >= 1) {
      ssn.free_capacity.for_each_with_gpus(t.request[kGpu], [&](NodeId id) {
        if ((*in_offered)[id.index()]) add_if_fits(id);
        return false;
      });
#ifndef NDEBUG
      // The proof: the nodes the walk over `offered` finds, in another order.
      std::vector<NodeId> walked;
      for (NodeId id : offered) {
        const model::Node& node = ssn.state.nodes[id];
        if (node.task_fits(t, node.non_allocated(), true)) walked.push_back(id);
      }
      std::vector<NodeId> found = fitting;
      std::sort(walked.begin(), walked.end());
      std::sort(found.begin(), found.end());
      SIM_ASSERT(found == walked);
#endif
    } else {
      for (NodeId id : offered) add_if_fits(id);
    }
    scored_nodes = &fitting;
  }
  const std::vector<NodeId>& nodes = *scored_nodes;
  scores.assign(nodes.size(), 0.0);
  dropped.assign(nodes.size(), 0);
  for (NodeScorer* scorer : ssn.hooks.node_scorers)
    scorer->score(ssn, task, offered, nodes, scores, dropped);
  std::vector<std::pair<double, NodeId>> scored;
  scored.reserve(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (!dropped[i]) scored.emplace_back(scores[i], nodes[i]);
  }
  return NodeOrder(std::move(scored), ssn.node_name_ranks());
}

bool NodeOrder::next(NodeId& node) {
  if (handed_ == scored_.size()) return false;
  if (handed_ == sorted_) {
    // Highest score first, ties by node name (ranks are unique, so the order is total): the
    // next few (twice as many each time) sorted out of the rest.
    const std::vector<std::uint32_t>& rank = *ranks_;
    auto better = [&](const auto& a, const auto& b) {
      if (a.first != b.first) return a.first > b.first;
      return rank[a.second.index()] < rank[b.second.index()];
    };
    if (sorted_ == 0) {
      // The best alone, in one pass: most walks take the first node and stop.
      std::iter_swap(scored_.begin(), std::min_element(scored_.begin(), scored_.end(), better));
      sorted_ = 1;
    } else {
      const std::size_t upto = std::min(scored_.size(), std::max<std::size_t>(8, 2 * sorted_));
      const auto begin = scored_.begin() + static_cast<std::ptrdiff_t>(sorted_);
      std::partial_sort(begin, scored_.begin() + static_cast<std::ptrdiff_t>(upto), scored_.end(),
                        better);
      sorted_ = upto;
    }
  }
  node = scored_[handed_++].second;
  return true;
}

}  // namespace sim::sched
