#include "fit_alone.hpp"

#include <algorithm>
#include <cmath>

#include "sim/sched/framework/gang.hpp"
#include "sim/sched/framework/node_fit.hpp"

namespace sim::sched {
namespace {

constexpr int kGpu = index_of(Resource::GPU);

// A pod AllocateJob places (PodSet 0: a pod of no PodSet is skipped) whose fit on a node only gets
// harder as other pods are placed: no required pod affinity (another pod placed may satisfy it),
// no DRA claims or NUMA alignment (device matching), no legacy MIG.
bool monotone_pod(const model::Task& t) {
  return t.pod_set == 0 && !t.legacy_mig && t.gpu.dra == 0 && t.devices->claims.empty() &&
         !t.devices->numa_units && t.placement->pod_affinity.empty();
}

// Everything a node filter reads of the pod: each copy is refused by the same nodes.
bool same_pod(const model::Task& a, const model::Task& b) {
  const model::PlacementRules& pa = *a.placement;
  const model::PlacementRules& pb = *b.placement;
  return a.same_requests(b) && a.ns == b.ns && a.labels == b.labels &&
         pa.node_selector == pb.node_selector && pa.required == pb.required &&
         pa.tolerations == pb.tolerations && pa.pod_anti_affinity == pb.pod_anti_affinity;
}

}  // namespace

std::vector<TaskId> alike_pending_tasks(const Session& ssn, const JobView& preemptor) {
  if (ssn.hooks.numa_placement || !is_single_pod_set(preemptor) || preemptor.groups->any_topology())
    return {};
  std::vector<TaskId> tasks = tasks_to_allocate(ssn, preemptor, false);
  if (tasks.empty()) return {};
  const model::Task& first = ssn.state.tasks[tasks.front()];
  // Fraction pods placed before one that fails keep their GPU groups (see solve_scenario), so
  // the search must place them: only a single fraction pod, which leaves none, is judged here.
  if (first.is_fraction_candidate() && tasks.size() > 1) return {};
  for (TaskId id : tasks) {
    const model::Task& t = ssn.state.tasks[id];
    if (!monotone_pod(t) || !same_pod(t, first)) return {};
  }
  return tasks;
}

bool may_fit_alone(Session& ssn, JobId job, const std::vector<TaskId>& tasks,
                   const std::vector<NodeId>& nodes, const std::vector<char>* in_nodes) {
  // AllocateJob asks the queue first (allocate.go), then places the pods one by one.
  if (ssn.job_over_capacity(job, tasks)) return false;
  const model::Task& pod = ssn.state.tasks[tasks.front()];
  // Every copy placed takes the pod's CPU, memory and pod slot from its node, and its whole GPUs
  // when it asks for whole GPUs (Node::set_accepted; fractions and MIG are booked apart).
  const bool whole_gpus = pod.is_regular_gpu_request() && pod.request[kGpu] == pod.gpu.gpus();
  const std::size_t wanted = tasks.size();
  std::size_t room = 0;
  // Adds the copies node `n` holds; true once they are enough. The sum does not depend on the
  // order the nodes come in.
  auto add_room = [&](NodeId n) {
    // A node holds no more copies than its free resources divide into (Node::task_fits asks for
    // the request on idle plus releasing); rounding of the division only raises the count.
    const ResourceVec& free = ssn.free_capacity.of(n);
    std::size_t copies = wanted;
    for (int i = 0; i < kResourceCount && copies > 0; ++i) {
      if (pod.request[i] <= 0 || (i == kGpu && !whole_gpus)) continue;
      const double fit = std::floor(free[i] / pod.request[i]);
      copies = fit < 1 ? 0 : std::min(copies, static_cast<std::size_t>(std::min(fit, 1e9)));
    }
    if (copies == 0 || !fitting_node(ssn, pod.id, n)) return false;
    room += copies;
    return room >= wanted;
  };
  if (in_nodes != nullptr && whole_gpus && pod.request[kGpu] >= 1) {
    // Only nodes with as many free GPUs as one copy asks can hold one: the index hands out those.
    bool enough = false;
    ssn.free_capacity.for_each_with_gpus(pod.request[kGpu], [&](NodeId n) {
      return (*in_nodes)[n.index()] && (enough = add_room(n));
    });
    return enough;
  }
  for (NodeId n : nodes) {
    if (add_room(n)) return true;
  }
  return false;
}

}  // namespace sim::sched
