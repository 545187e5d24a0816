#pragma once
// A node and its resource accounting (pkg/scheduler/api/node_info/node_info.go and
// gpu_sharing_node_info.go): idle, used and releasing vectors, plus per shared-GPU group the MiB
// used, allocated and releasing. Fraction pods do not appear in the GPU entry of the vectors; the
// first fraction on a group takes one whole GPU out of idle instead.

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/assert.hpp"
#include "sim/core/resource_vec.hpp"
#include "sim/model/numa.hpp"
#include "sim/model/placement_rules.hpp"
#include "sim/model/task.hpp"

namespace sim::model {

/// Default GPU memory when the node has no usable `nvidia.com/gpu.memory` label (MiB).
inline constexpr std::int64_t kDefaultGpuMemoryMib = 100;

/// What a node remembers of a task it holds: KAI keeps a copy taken when the task was added,
/// and removal subtracts exactly what that copy added.
struct NodeTaskRecord {
  TaskStatus status;
  bool shared = false;
  bool legacy_mig = false;
  ResourceVec tracked =
      ResourceVec::Zero();  ///< accepted without shared GPU (nor GPU for reservations)
  std::vector<std::string> gpu_groups;
  std::int64_t gpu_memory_mib = 0;          ///< memory per device on this node (shared tasks)
  SharedMap<double> scalars;                ///< MIG instances held (the task's, shared)
  std::vector<ZoneAmounts> numa_placement;  ///< the node's copy of the pod's NUMA placement
};

/// The tasks a node holds, in id order: a sorted vector with the lookups of a map. Id order keeps
/// iteration the same however the books were filled, and lets a replay renumber tasks in place.
class TaskBooks {
 public:
  using Entry = std::pair<TaskId, NodeTaskRecord>;
  using iterator = std::vector<Entry>::iterator;
  using const_iterator = std::vector<Entry>::const_iterator;

  iterator begin() { return entries_.begin(); }
  iterator end() { return entries_.end(); }
  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }
  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  iterator find(TaskId id) {
    auto it = lower(id);
    return it != entries_.end() && it->first == id ? it : entries_.end();
  }
  const_iterator find(TaskId id) const { return const_cast<TaskBooks*>(this)->find(id); }
  bool contains(TaskId id) const { return find(id) != end(); }
  const NodeTaskRecord& at(TaskId id) const { return find(id)->second; }
  /// The record of `id`, made empty if new; true when it was added.
  std::pair<iterator, bool> try_emplace(TaskId id) {
    auto it = lower(id);
    if (it != entries_.end() && it->first == id) return {it, false};
    return {entries_.emplace(it, id, NodeTaskRecord{}), true};
  }
  iterator erase(iterator it) { return entries_.erase(it); }

 private:
  iterator lower(TaskId id) {
    return std::lower_bound(entries_.begin(), entries_.end(), id,
                            [](const Entry& e, TaskId t) { return e.first < t; });
  }
  std::vector<Entry> entries_;
};

class Node {
 public:
  std::string name;
  Labels labels;
  std::vector<Taint> taints;
  bool unschedulable = false;
  bool conditions_ok = true;  ///< Ready and no pressure (CheckNodeConditionPredicate)
  ResourceVec allocatable = ResourceVec::Zero();
  ResourceVec idle = ResourceVec::Zero();
  ResourceVec used = ResourceVec::Zero();
  ResourceVec releasing = ResourceVec::Zero();
  std::map<std::string, double> scalars_allocatable;  ///< MIG profiles and other scalars
  std::map<std::string, double> scalars_idle;
  std::map<std::string, double> scalars_releasing;
  std::int64_t gpu_memory_mib = kDefaultGpuMemoryMib;  ///< per device, floored to 100 MiB
  bool gpu_memory_synced = false;
  std::int64_t gpu_count_label = -1;  ///< nvidia.com/gpu.count, -1 if absent
  /// GPUs come from DRA ResourceSlices (HasDRAGPUs): device-plugin GPU pods do not fit here.
  bool dra_gpus = false;
  /// NUMA zones from the node's NodeResourceTopology; zones' `available` is the session's ledger.
  std::optional<NumaTopology> numa;

  // Shared-GPU state per group id; entries persist at 0 once created, as Go map entries do.
  std::map<std::string, std::int64_t> used_shared_mib;
  std::map<std::string, std::int64_t> releasing_shared_mib;
  std::map<std::string, std::int64_t> allocated_shared_mib;
  std::set<std::string> releasing_shared_gpus;  ///< groups counted in `releasing` as a whole GPU

  TaskBooks tasks;
  std::size_t legacy_mig_tasks = 0;  ///< pods using the legacy MIG annotation (block new MIG pods)

  /// Sets allocatable (and idle) and the GPU memory facts from labels.
  void init(const ResourceVec& node_allocatable);

  /// Adds `task` with its current status; fills the task's accepted resources first
  /// (setAcceptedResources). Returns false if the task is already on this node.
  bool add_task(Task& task);
  /// The accepted resources alone, as add_task fills them, for a task that uses this node.
  void set_accepted(Task& task) const;
  /// Removes what `add_task` added for this task. Returns false if it is not here.
  bool remove_task(TaskId id);
  /// As remove_task then add_task (status or groups changed), the record rewritten in place.
  void update_task(Task& task);

  /// GetNumberOfGPUsInNode: label nvidia.com/gpu.count if present, else allocatable GPUs.
  std::int64_t gpu_count() const;
  /// GetResourceGpuMemory: memory per device of `req` on this node (MiB).
  std::int64_t gpu_memory_of(const GpuRequirement& req) const;
  /// getResourceGpuPortion: the request as a portion of one device, rounded up to a percent.
  double gpu_portion_of(const GpuRequirement& req) const;
  /// getGpuMemoryFractionalOnNode: ceil(memory / device memory * 100) / 100.
  double memory_as_portion(std::int64_t memory_mib) const;
  bool is_valid_gpu_portion(const GpuRequirement& req) const;
  /// From the labels and the MIG resources, which do not change once the node is read: worked
  /// out once (a cycle asks for every node and CPU pod).
  bool is_mig_enabled() const;
  /// "single", "mixed" or "none".
  std::string mig_strategy() const;
  bool is_cpu_only_node() const;

  // Shared-GPU queries (gpu_sharing_node_info.go).
  bool task_fits_on_group(const GpuRequirement& req, const std::string& group) const;
  /// Calls `fn(group)` for each shared-GPU group, in id order, that task_fits_on_group accepts,
  /// until `fn` returns true. It walks the three books side by side rather than looking each
  /// group up in them: a fraction pod's fit is asked of every offered node in every scenario.
  template <typename Fn>
  void for_each_fitting_group(const GpuRequirement& req, Fn&& fn) const;
  bool enough_idle_on_group(const GpuRequirement& req, const std::string& group) const;
  std::int64_t fitting_shared_group_count(const Task& task) const;
  int used_shared_gpu_count() const;
  int used_gpu_count() const;
  /// Idle or releasing resources of the node (nonAllocatedVector).
  ResourceVec non_allocated() const { return idle + releasing; }
  /// isTaskAllocatableOnNonAllocatedResources against `available` (idle, or idle + releasing).
  /// `include_releasing` must match `available` (it decides which MIG instances count as free).
  bool task_fits(const Task& task, const ResourceVec& available, bool include_releasing) const {
    // Most pods a cycle fits are plain: their check is the vector's, inlined where it is asked.
    if (task.fits_by_vector_only()) {
      const bool fits = !(task.request > available).any();
      SIM_ASSERT(fits == task_fits_in_full(task, available, include_releasing));
      return fits;
    }
    return task_fits_in_full(task, available, include_releasing);
  }
  /// The resources `task_fits` finds short, comma-separated ("cpu, gpu"); empty when none is.
  std::string lacking(const Task& task, const ResourceVec& available, bool include_releasing) const;
  /// The same resources one by one ("gpu", "cpu", "nvidia.com/mig-1g.5gb"), for typed reasons.
  std::vector<std::string> shortfalls(const Task& task, const ResourceVec& available,
                                      bool include_releasing) const;
  /// GetRequiredInitQuota: the task's request with the GPU entry converted through this node's
  /// memory (count * portion(memory(request))).
  ResourceVec required_init_quota(const Task& task) const;
  /// GetSumOfIdleGPUs / GetSumOfReleasingGPUs: whole GPUs, MIG slices (a `Ng` instance counts
  /// N) and the free part of shared GPUs.
  double idle_gpus_with_shared() const;
  double releasing_gpus_with_shared() const;

 private:
  bool task_fits_in_full(const Task& task, const ResourceVec& available,
                         bool include_releasing) const;
  mutable std::int8_t mig_enabled_ = -1;  // is_mig_enabled(); -1 until asked
  void put_on(NodeTaskRecord& rec, const Task& task);
  void take_off(const NodeTaskRecord& rec);
  void add_shared(const NodeTaskRecord& rec, const std::string& group);
  void remove_shared(const NodeTaskRecord& rec, const std::string& group);
  bool is_pipelined_to_releasing_gpu(std::int64_t memory, const std::string& group) const;
  bool is_gpu_releasing_from_shared(const std::string& group) const;
  /// task_fits_on_group on one group's books (MiB): in use, room for `need`, not all releasing.
  bool fits_on_books(std::int64_t used_mib, std::int64_t allocated_mib, std::int64_t releasing_mib,
                     std::int64_t need) const {
    return used_mib != 0 && gpu_memory_mib - allocated_mib + releasing_mib - need >= 0 &&
           allocated_mib != releasing_mib;
  }
};

template <typename Fn>
void Node::for_each_fitting_group(const GpuRequirement& req, Fn&& fn) const {
  if (used_shared_mib.empty()) return;
  const std::int64_t need = gpu_memory_of(req);
  // A book's entry for `group` (0 if none), its cursor moved past the smaller ids.
  auto entry = [](const std::map<std::string, std::int64_t>& book,
                  std::map<std::string, std::int64_t>::const_iterator& it,
                  const std::string& group) -> std::int64_t {
    for (; it != book.end(); ++it) {
      const int c = it->first.compare(group);
      if (c == 0) return it->second;
      if (c > 0) break;
    }
    return 0;
  };
  auto allocated_at = allocated_shared_mib.begin();
  auto releasing_at = releasing_shared_mib.begin();
  for (const auto& [group, used_mib] : used_shared_mib) {
    const std::int64_t a = entry(allocated_shared_mib, allocated_at, group);
    const std::int64_t r = entry(releasing_shared_mib, releasing_at, group);
    if (fits_on_books(used_mib, a, r, need) && fn(group)) return;
  }
}

}  // namespace sim::model
