#include "sim/model/node.hpp"

#include <cmath>
#include <string_view>

namespace sim::model {
namespace {

constexpr int kGpu = index_of(Resource::GPU);

template <typename Map>
typename Map::mapped_type get(const Map& m, const std::string& key) {
  auto it = m.find(key);
  return it == m.end() ? typename Map::mapped_type{} : it->second;
}

// Go's strconv.ParseBool.
bool parse_go_bool(const std::string& s, bool& out) {
  if (s == "1" || s == "t" || s == "T" || s == "TRUE" || s == "true" || s == "True")
    return out = true, true;
  if (s == "0" || s == "f" || s == "F" || s == "FALSE" || s == "false" || s == "False")
    return out = false, true;
  return false;
}

}  // namespace

void Node::init(const ResourceVec& node_allocatable) {
  allocatable = node_allocatable;
  idle = node_allocatable;
  used.setZero();
  releasing.setZero();
  scalars_idle = scalars_allocatable;
}

std::int64_t Node::gpu_count() const {
  if (gpu_count_label >= 0) return gpu_count_label;
  return static_cast<std::int64_t>(allocatable[kGpu]);
}

std::int64_t Node::gpu_memory_of(const GpuRequirement& req) const {
  if (req.memory_mib > 0) return req.memory_mib;
  return static_cast<std::int64_t>(req.portion * static_cast<double>(gpu_memory_mib));
}

double Node::memory_as_portion(std::int64_t memory_mib) const {
  const double exact = static_cast<double>(memory_mib) / static_cast<double>(gpu_memory_mib);
  return std::ceil(exact * 100) / 100;
}

double Node::gpu_portion_of(const GpuRequirement& req) const {
  if (req.memory_mib > 0) return memory_as_portion(req.memory_mib);
  return req.portion;
}

bool Node::is_valid_gpu_portion(const GpuRequirement& req) const {
  const double p = gpu_portion_of(req);
  return p <= 1 || p == static_cast<double>(static_cast<std::int64_t>(p));
}

bool Node::is_mig_enabled() const {
  if (mig_enabled_ >= 0) return mig_enabled_ == 1;
  bool enabled = false;
  auto it = labels.find("node-role.kubernetes.io/mig-enabled");
  if (it != labels.end()) {
    bool value = false;
    enabled = parse_go_bool(it->second, value) && value;
  } else {
    for (const auto& [resource, amount] : scalars_allocatable)
      enabled = enabled || (is_mig_resource(resource) && amount > 0);
  }
  mig_enabled_ = enabled ? 1 : 0;
  return enabled;
}

std::string Node::mig_strategy() const {
  if (!is_mig_enabled()) return "none";
  auto it = labels.find("nvidia.com/mig.strategy");
  if (it == labels.end() || (it->second != "single" && it->second != "mixed")) return "none";
  return it->second;
}

bool Node::is_cpu_only_node() const {
  return !is_mig_enabled() && allocatable[kGpu] <= 0 && !dra_gpus;
}

int Node::used_shared_gpu_count() const {
  int n = 0;
  for (const auto& [group, mib] : used_shared_mib) n += mib > 0 ? 1 : 0;
  return n;
}

int Node::used_gpu_count() const { return static_cast<int>(used[kGpu]) + used_shared_gpu_count(); }

bool Node::task_fits_on_group(const GpuRequirement& req, const std::string& group) const {
  return fits_on_books(get(used_shared_mib, group), get(allocated_shared_mib, group),
                       get(releasing_shared_mib, group), gpu_memory_of(req));
}

bool Node::enough_idle_on_group(const GpuRequirement& req, const std::string& group) const {
  auto it = allocated_shared_mib.find(group);
  if (it == allocated_shared_mib.end()) return false;  // known only through pipelined tasks
  return gpu_memory_mib - it->second - gpu_memory_of(req) >= 0;
}

std::int64_t Node::fitting_shared_group_count(const Task& task) const {
  std::int64_t matching = 0;
  for_each_fitting_group(task.gpu,
                         [&](const std::string&) { return ++matching >= task.gpu.count; });
  return matching;
}

namespace {

// isTaskAllocatableOnNonAllocatedResources one resource at a time: calls `lacks(name)` for each
// resource the task needs more of than `available` holds, until it returns true (stop).
template <typename Lacks>
void visit_shortfalls(const Node& node, const Task& task, const ResourceVec& available,
                      bool include_releasing, Lacks lacks) {
  const bool whole_gpus = task.fits_gpus_by_vector();
  for (int i = 0; i < kResourceCount; ++i) {
    if (i == kGpu && !whole_gpus) continue;
    if (task.request[i] > available[i] && lacks(resource_name(static_cast<Resource>(i)))) return;
  }
  if (whole_gpus) {
    for (const auto& [resource, amount] : task.scalars) {
      double free = get(node.scalars_idle, resource);
      if (include_releasing) free += get(node.scalars_releasing, resource);
      if (amount > free && lacks(resource)) return;
    }
    return;
  }
  // Fractions: whole idle GPUs plus shared GPUs with room, as many as the task's devices.
  // Enough whole GPUs leave the shared ones uncounted (most nodes a pod is offered).
  const auto whole = static_cast<std::int64_t>(std::floor(available[kGpu]));
  if (whole >= task.gpu.count) return;
  if (whole + node.fitting_shared_group_count(task) < task.gpu.count) (void)lacks("gpu");
}

}  // namespace

bool Node::task_fits_in_full(const Task& task, const ResourceVec& available,
                             bool include_releasing) const {
  if (!is_valid_gpu_portion(task.gpu)) return false;
  bool fits = true;
  visit_shortfalls(*this, task, available, include_releasing,
                   [&](std::string_view) { return !(fits = false); });
  return fits;
}

std::string Node::lacking(const Task& task, const ResourceVec& available,
                          bool include_releasing) const {
  std::string out;
  visit_shortfalls(*this, task, available, include_releasing, [&](std::string_view resource) {
    out += (out.empty() ? "" : ", ") + std::string(resource);
    return false;
  });
  return out;
}

std::vector<std::string> Node::shortfalls(const Task& task, const ResourceVec& available,
                                          bool include_releasing) const {
  std::vector<std::string> out;
  visit_shortfalls(*this, task, available, include_releasing, [&](std::string_view resource) {
    out.emplace_back(resource);
    return false;
  });
  return out;
}

ResourceVec Node::required_init_quota(const Task& task) const {
  ResourceVec result = task.request;
  if (!task.gpu.mig.empty()) {
    result[kGpu] = task.gpu.gpus_quota();
  } else {
    result[kGpu] = static_cast<double>(task.gpu.count) * memory_as_portion(gpu_memory_of(task.gpu));
  }
  return result;
}

namespace {

double mig_gpus(const std::map<std::string, double>& scalars) {
  double total = 0;
  for (const auto& [resource, amount] : scalars) {
    total += static_cast<double>(mig_profile_gpus(resource)) * amount;
  }
  return total;
}

}  // namespace

double Node::idle_gpus_with_shared() const {
  double shared = 0;
  for (const auto& [group, mib] : allocated_shared_mib) {
    if (mib > 0) shared += 1 - memory_as_portion(mib);
  }
  return shared + idle[kGpu] + mig_gpus(scalars_idle);
}

double Node::releasing_gpus_with_shared() const {
  double shared = 0;
  for (const auto& [group, mib] : releasing_shared_mib) {
    if (mib > 0 && !is_gpu_releasing_from_shared(group)) shared += memory_as_portion(mib);
  }
  return shared + releasing[kGpu] + mig_gpus(scalars_releasing);
}

void Node::set_accepted(Task& task) const {
  if (!is_active_used(task.status)) return;
  if (task.is_mig_candidate()) {
    task.received_type = ReceivedType::MIG;
    task.accepted_gpu = GpuRequirement{};
    task.accepted_gpu.mig = task.gpu.mig;
  } else if (task.is_fraction_candidate()) {
    task.received_type = ReceivedType::FRACTION;
    task.accepted_gpu = GpuRequirement::multi_fraction(task.gpu.count, gpu_portion_of(task.gpu),
                                                       gpu_memory_of(task.gpu));
  } else {
    task.received_type = ReceivedType::REGULAR;
    task.accepted_gpu = GpuRequirement::with_gpus(task.gpu.gpus(), 0);
    task.accepted_gpu.dra = task.gpu.dra;
  }
  task.accepted = task.request;
  task.accepted[kGpu] = task.accepted_gpu.gpus() + static_cast<double>(task.accepted_gpu.dra);
}

bool Node::add_task(Task& task) {
  set_accepted(task);
  auto [slot, added] = tasks.try_emplace(task.id);  // one lookup; the record is filled in place
  if (!added) return false;
  put_on(slot->second, task);
  return true;
}

// Fills every field of `rec` from `task` and adds it to the node's sums.
void Node::put_on(NodeTaskRecord& rec, const Task& task) {
  rec.status = task.status;
  rec.shared = task.is_shared_gpu_allocation();
  rec.gpu_groups = task.gpu_groups;
  rec.gpu_memory_mib = gpu_memory_of(task.gpu);
  rec.tracked = task.accepted;
  if (rec.shared || task.reservation) rec.tracked[kGpu] = 0;  // reservation pods: all but GPUs

  used += rec.tracked;
  switch (rec.status) {
    case TaskStatus::RELEASING:
      releasing += rec.tracked;
      idle -= rec.tracked;
      for (const auto& [resource, amount] : task.scalars)
        scalars_releasing[resource] += amount, scalars_idle[resource] -= amount;
      break;
    case TaskStatus::PIPELINED:
      releasing -= rec.tracked;
      for (const auto& [resource, amount] : task.scalars) scalars_releasing[resource] -= amount;
      break;
    default:
      idle -= rec.tracked;
      for (const auto& [resource, amount] : task.scalars) scalars_idle[resource] -= amount;
  }
  if (rec.shared) {
    for (const std::string& group : rec.gpu_groups) add_shared(rec, group);
  }
  rec.scalars = task.scalars;
  rec.numa_placement = task.devices->numa_placement;
  rec.legacy_mig = task.legacy_mig;
  if (rec.legacy_mig) ++legacy_mig_tasks;
}

bool Node::remove_task(TaskId id) {
  auto it = tasks.find(id);
  if (it == tasks.end()) return false;
  const NodeTaskRecord rec = std::move(it->second);
  tasks.erase(it);
  take_off(rec);
  return true;
}

// Takes what put_on added for `rec` off the node's sums (no sum reads the books themselves).
void Node::take_off(const NodeTaskRecord& rec) {
  if (rec.legacy_mig) --legacy_mig_tasks;
  used -= rec.tracked;
  switch (rec.status) {
    case TaskStatus::RELEASING:
      releasing -= rec.tracked;
      idle += rec.tracked;
      for (const auto& [resource, amount] : rec.scalars)
        scalars_releasing[resource] -= amount, scalars_idle[resource] += amount;
      break;
    case TaskStatus::PIPELINED:
      releasing += rec.tracked;
      for (const auto& [resource, amount] : rec.scalars) scalars_releasing[resource] += amount;
      break;
    default:
      idle += rec.tracked;
      for (const auto& [resource, amount] : rec.scalars) scalars_idle[resource] += amount;
  }
  if (rec.shared) {
    for (const std::string& group : rec.gpu_groups) remove_shared(rec, group);
  }
}

// remove_task then add_task, with the record rewritten where it stands instead of erased from the
// sorted books and inserted again: the same sums in the same order.
void Node::update_task(Task& task) {
  auto it = tasks.find(task.id);
  if (it == tasks.end()) {
    add_task(task);
    return;
  }
  NodeTaskRecord& rec = it->second;
  take_off(rec);
  set_accepted(task);
  // What put_on sets only after the shared-GPU sums, as a new record has it.
  rec.scalars = {};
  rec.numa_placement.clear();
  rec.legacy_mig = false;
  put_on(rec, task);
}

void Node::add_shared(const NodeTaskRecord& rec, const std::string& group) {
  const std::int64_t mem = rec.gpu_memory_mib;
  used_shared_mib[group] += mem;
  ResourceVec one_gpu = ResourceVec::Zero();
  one_gpu[kGpu] = 1;
  switch (rec.status) {
    case TaskStatus::RELEASING:
      releasing_shared_mib[group] += mem;
      allocated_shared_mib[group] += mem;
      if (used_shared_mib[group] == releasing_shared_mib[group]) {  // the last holder is releasing
        if (!releasing_shared_gpus.contains(group)) {
          releasing += one_gpu;
          releasing_shared_gpus.insert(group);
        }
        if (static_cast<int>(gpu_count()) < static_cast<int>(idle[kGpu]) + used_gpu_count())
          idle -= one_gpu;
      }
      break;
    case TaskStatus::PIPELINED:
      releasing_shared_mib[group] -= mem;
      if (used_shared_mib[group] - mem == releasing_shared_mib[group] + mem) releasing -= one_gpu;
      break;
    default:
      allocated_shared_mib[group] += mem;
      if (used_shared_mib[group] <= mem) {  // first fraction on this group takes a whole GPU
        if (static_cast<int>(gpu_count()) < static_cast<int>(idle[kGpu]) + used_gpu_count())
          idle -= one_gpu;
      }
      if (releasing_shared_gpus.contains(group)) {
        releasing -= one_gpu;
        releasing_shared_gpus.erase(group);
      }
  }
}

void Node::remove_shared(const NodeTaskRecord& rec, const std::string& group) {
  const std::int64_t mem = rec.gpu_memory_mib;
  used_shared_mib[group] -= mem;
  ResourceVec one_gpu = ResourceVec::Zero();
  one_gpu[kGpu] = 1;
  switch (rec.status) {
    case TaskStatus::RELEASING:
      releasing_shared_mib[group] -= mem;
      allocated_shared_mib[group] -= mem;
      if (used_shared_mib[group] <= 0) {
        if (static_cast<int>(gpu_count()) >= static_cast<int>(idle[kGpu]) + used_gpu_count())
          idle += one_gpu;
        if (releasing_shared_gpus.erase(group) > 0) releasing -= one_gpu;
      }
      break;
    case TaskStatus::PIPELINED:
      releasing_shared_mib[group] += mem;
      if (is_pipelined_to_releasing_gpu(mem, group)) releasing += one_gpu;
      break;
    default:
      allocated_shared_mib[group] -= mem;
      if (used_shared_mib[group] <= 0) {
        if (static_cast<int>(gpu_count()) >= static_cast<int>(idle[kGpu]) + used_gpu_count())
          idle += one_gpu;
      }
      if (is_gpu_releasing_from_shared(group) && !releasing_shared_gpus.contains(group)) {
        releasing += one_gpu;
        releasing_shared_gpus.insert(group);
      }
  }
}

bool Node::is_pipelined_to_releasing_gpu(std::int64_t mem, const std::string& group) const {
  const std::int64_t used_now = get(used_shared_mib, group);
  const std::int64_t releasing_now = get(releasing_shared_mib, group);
  return (used_now + mem == releasing_now - mem) || (used_now == 0 && releasing_now == 0);
}

bool Node::is_gpu_releasing_from_shared(const std::string& group) const {
  auto used_it = used_shared_mib.find(group);
  if (used_it == used_shared_mib.end() || used_it->second == 0) return false;
  auto rel_it = releasing_shared_mib.find(group);
  return rel_it != releasing_shared_mib.end() && rel_it->second == used_it->second;
}

}  // namespace sim::model
