#include "sim/sched/framework/statement.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "sim/core/assert.hpp"

namespace sim::sched {

using model::TaskStatus;

void Statement::set_status(model::Task& task, TaskStatus status) {
  task.status = status;
  ssn_.note_status_change(task.job);
}

void Statement::set_virtual(model::Task& task, bool virtual_status) {
  task.virtual_status = virtual_status;
  ssn_.note_status_change(task.job);
}

bool Statement::valid(std::size_t index) const {
  // An operation is undone if an UNDO record names it and the first such record is itself still
  // valid (records are appended, so the first is the one at the lowest position).
  const std::size_t u = ops_[index].first_undo;
  SIM_ASSERT(u == [&] {
    for (std::size_t r = 0; r < ops_.size(); ++r) {
      if (ops_[r].kind == Kind::UNDO && ops_[r].undone_index == index) return r;
    }
    return kNoUndo;
  }());
  return u == kNoUndo || !valid(u);
}

void Statement::record_undo(std::size_t index) {
  Op record{Kind::UNDO, ops_[index].task};
  record.undone_index = index;
  if (ops_[index].first_undo == kNoUndo) ops_[index].first_undo = ops_.size();
  ops_.push_back(std::move(record));
}

void Statement::find_undo_records() {
  for (Op& op : ops_) op.first_undo = kNoUndo;
  for (std::size_t u = 0; u < ops_.size(); ++u) {
    if (ops_[u].kind != Kind::UNDO || ops_[u].undone_index >= ops_.size()) continue;
    std::size_t& first = ops_[ops_[u].undone_index].first_undo;
    if (first == kNoUndo) first = u;
  }
}

void Statement::declare_copy(TaskId task, int object, TaskStatus status) {
  SIM_ASSERT(object > 0);
  if (const std::size_t known = find_copy(task, object); known != kNoCopy) {
    copies_[known].status = status;
    return;
  }
  // The solver numbers its copies 1, 2, ...: while every copy sits at its number, it is indexed.
  if (static_cast<std::size_t>(object) != copies_.size() + 1) dense_copies_ = false;
  copies_.push_back({task, object, status});
}

std::size_t Statement::find_copy(TaskId task, int object) const {
  const auto k = static_cast<std::size_t>(object);
  if (dense_copies_)
    return k >= 1 && k <= copies_.size() && copies_[k - 1].task == task ? k - 1 : kNoCopy;
  for (std::size_t i = 0; i < copies_.size(); ++i) {
    if (copies_[i].task == task && copies_[i].object == object) return i;
  }
  return kNoCopy;
}

std::size_t Statement::copy_at(TaskId task, int object) const {
  const std::size_t i = find_copy(task, object);
  if (i == kNoCopy)
    throw std::out_of_range("Statement: copy " + std::to_string(object) + " of a pod not declared");
  return i;
}

std::size_t Statement::holder_slot(TaskId task) const {
  return static_cast<std::size_t>(
      std::lower_bound(holders_.begin(), holders_.end(), task,
                       [](const Holder& h, TaskId t) { return h.task < t; }) -
      holders_.begin());
}

const Statement::Holder* Statement::holder(TaskId task) const {
  const std::size_t i = holder_slot(task);
  return i < holders_.size() && holders_[i].task == task ? &holders_[i] : nullptr;
}

TaskStatus Statement::copy_status(TaskId task, int object) const {
  const Holder* held = holder(task);
  if ((held ? held->object : 0) == object) return ssn_.state.tasks[task].status;
  if (object == 0) return held->own_status;
  return copy(task, object).status;
}

void Statement::hold(model::Task& task, int object) {
  auto it = holders_.begin() + static_cast<std::ptrdiff_t>(holder_slot(task.id));
  if (it == holders_.end() || it->task != task.id) {
    if (object == 0) return;  // the own copy, held already
    it = holders_.insert(it, Holder{task.id});
  }
  if (it->object == object) return;
  // The copy held until now keeps the pod's status.
  if (it->object == 0)
    it->own_status = task.status;
  else
    copy(task.id, it->object).status = task.status;
  const TaskStatus before = task.status;
  set_status(task, object == 0 ? it->own_status : copy(task.id, object).status);
  it->object = object;
  // The pod takes this copy's status with no allocate or deallocate event (see
  // Session::copy_drift). KAI: pkg/scheduler/framework/statement.go Evict puts the clone in its job
  // (UpdateTaskStatus) and calls DeallocateFunc again for a pod an earlier copy already released.
  auto counted = [](TaskStatus s) { return model::is_allocated(s) || s == TaskStatus::PIPELINED; };
  if (counted(before) == counted(task.status) || !task.job.valid()) return;
  if (ssn_.copy_drift.empty()) {
    ssn_.copy_drift =
        IdVector<QueueId, ResourceVec>(ssn_.state.queue_tree.size(), ResourceVec::Zero());
  }
  const ResourceVec amount = Session::quantify_accepted(task) * (counted(task.status) ? 1.0 : -1.0);
  const model::QueueTree& tree = ssn_.state.queue_tree;
  for (QueueId q = ssn_.state.jobs[task.job].queue; q.valid(); q = tree.parent(q)) {
    ssn_.copy_drift[q] += amount;
  }
}

void Statement::evict(TaskId id, std::string reason, JobId beneficiary, int object) {
  model::Task& task = ssn_.task(id);
  SIM_ASSERT(task.node.valid());
  hold(task, object);
  Op op{Kind::EVICT, task};
  op.reason = std::move(reason);
  op.beneficiary = beneficiary;
  op.object = object;
  set_status(task, TaskStatus::RELEASING);
  ssn_.node(task.node).update_task(task);
  ssn_.on_deallocate(task);
  ops_.push_back(std::move(op));
  set_virtual(task, true);
}

void Statement::unevict(const Op& op) {
  model::Task& task = ssn_.task(op.task);
  hold(task, op.object);
  set_status(task, op.previous_status);
  if (op.previous_status == TaskStatus::PENDING && task.job.valid()) ssn_.note_pending(task.job);
  task.gpu_groups = op.previous_groups;
  task.devices.set(&model::TaskDevices::numa_placement, op.previous_numa);
  task.devices.set(&model::TaskDevices::claim_memory, op.previous_claims);
  set_virtual(task, op.previous_virtual);
  if (op.previous_node.valid()) {
    model::Node& n = ssn_.node(op.previous_node);
    if (n.tasks.contains(op.task)) {
      n.update_task(task);
    } else {
      n.add_task(task);
    }
  }
  ssn_.on_allocate(task);
}

void Statement::pipeline(TaskId id, NodeId node_id, bool update_if_exists) {
  model::Task& task = ssn_.task(id);
  model::Node& node = ssn_.node(node_id);
  auto on_node = node.tasks.find(id);
  const bool found = on_node != node.tasks.end();
  bool gpu_placement_changed = false;
  bool numa_placement_changed = false;
  if (found) {
    gpu_placement_changed = !task.gpu_groups.empty() && task.is_shared_gpu_allocation() &&
                            task.gpu_groups != std::vector<std::string>{"-1"} &&
                            task.gpu_groups != on_node->second.gpu_groups;
    numa_placement_changed = !task.devices->numa_placement.empty() &&
                             task.devices->numa_placement != on_node->second.numa_placement;
  }
  if (found && !update_if_exists && !gpu_placement_changed && !numa_placement_changed) {
    // The task was evicted from here earlier in this statement: undo that eviction instead.
    task.gpu_groups = on_node->second.gpu_groups;
    task.devices.set(&model::TaskDevices::numa_placement, on_node->second.numa_placement);
    for (std::size_t i = 0; i < ops_.size(); ++i) {
      if (valid(i) && ops_[i].kind == Kind::EVICT && ops_[i].task == id) {
        undo(i);
        return;
      }
    }
    return;
  }

  Op op{Kind::PIPELINE, task};
  if (numa_placement_changed) op.previous_numa = on_node->second.numa_placement;
  op.next_node = node_id;
  set_status(task, TaskStatus::PIPELINED);
  task.node = node_id;
  if (gpu_placement_changed) {
    // ConsolidateSharedPodInfoToDifferentGPU: KAI drops the node's record of the task without
    // subtracting it, then adds the task again on its new GPU group.
    op.previous_groups = on_node->second.gpu_groups;
    node.tasks.erase(on_node);
    node.add_task(task);
  } else if (found) {
    node.update_task(task);
  } else {
    node.add_task(task);
  }
  ssn_.on_allocate(task);
  ops_.push_back(std::move(op));
  set_virtual(task, true);
}

void Statement::unpipeline(const Op& op) {
  model::Task& task = ssn_.task(op.task);
  set_status(task, op.previous_status);
  if (op.previous_status == TaskStatus::PENDING && task.job.valid()) ssn_.note_pending(task.job);
  const NodeId host = task.node;
  task.gpu_groups = op.previous_groups;
  // Restored before the deallocate event, as KAI does.
  task.devices.set(&model::TaskDevices::claim_memory, op.previous_claims);
  set_virtual(task, op.previous_virtual);
  if (host.valid()) ssn_.node(host).remove_task(op.task);
  ssn_.on_deallocate(task);
  task.node = op.previous_node;
  task.devices.set(&model::TaskDevices::numa_placement, op.previous_numa);
}

void Statement::allocate(TaskId id, NodeId node_id) {
  model::Task& task = ssn_.task(id);
  set_status(task, TaskStatus::ALLOCATED);
  task.node = node_id;
  ssn_.node(node_id).add_task(task);
  ssn_.on_allocate(task);
  Op op{Kind::ALLOCATE, id};
  op.next_node = node_id;
  op.previous_virtual = task.virtual_status;
  ops_.push_back(std::move(op));
  set_virtual(task, true);
}

void Statement::unallocate(TaskId id, bool previous_virtual) {
  model::Task& task = ssn_.task(id);
  set_status(task, TaskStatus::PENDING);
  if (task.job.valid()) ssn_.note_pending(task.job);
  if (task.node.valid()) ssn_.node(task.node).remove_task(id);
  set_virtual(task, previous_virtual);
  ssn_.on_deallocate(task);
  task.node = NodeId::invalid();
}

void Statement::reverse(const Op& op) {
  switch (op.kind) {
    case Kind::EVICT:
      unevict(op);
      break;
    case Kind::PIPELINE:
      unpipeline(op);
      break;
    case Kind::ALLOCATE:
      unallocate(op.task, op.previous_virtual);
      break;
    case Kind::UNDO: {
      // Redo the operation the UNDO record undid (this appends a new record, as in KAI).
      const Op original = ops_[op.undone_index];
      switch (original.kind) {
        case Kind::EVICT:
          evict(original.task, original.reason, original.beneficiary, original.object);
          break;
        case Kind::PIPELINE:
          pipeline(original.task, original.next_node, true);
          break;
        case Kind::ALLOCATE:
          allocate(original.task, original.next_node);
          break;
        case Kind::UNDO:
          undo(original.undone_index);
          break;
      }
      break;
    }
  }
}

void Statement::undo(std::size_t index) {
  if (!valid(index)) return;
  if (ops_[index].kind == Kind::UNDO) {
    const Op op = ops_[index];  // redoing appends to the log, which may move its records
    reverse(op);
  } else {
    reverse(ops_[index]);  // unevict, unpipeline and unallocate append nothing
  }
  record_undo(index);
}

void Statement::rollback(std::size_t checkpoint) {
  SIM_ASSERT(checkpoint <= ops_.size());
  const std::size_t end = ops_.size();
  for (std::size_t i = end; i-- > checkpoint;) undo(i);
  ops_.erase(ops_.begin() + static_cast<std::ptrdiff_t>(checkpoint), ops_.end());
  find_undo_records();
}

void Statement::discard() {
  const std::size_t end = ops_.size();
  for (std::size_t i = end; i-- > 0;) undo(i);
  ops_.clear();
}

void Statement::convert_all_allocated_to_pipelined(JobId job) {
  // Every allocate record of the job, valid or not, as KAI walks them.
  const std::size_t end = ops_.size();
  for (std::size_t i = 0; i < end; ++i) {
    if (ops_[i].kind != Kind::ALLOCATE || ssn_.task(ops_[i].task).job != job) continue;
    const TaskId id = ops_[i].task;
    const NodeId host = ssn_.task(id).node;
    unallocate(id, true);
    pipeline(id, host, true);
  }
  std::vector<Op> kept;
  for (Op& op : ops_) {
    if (!(op.kind == Kind::ALLOCATE && ssn_.task(op.task).job == job))
      kept.push_back(std::move(op));
  }
  ops_ = std::move(kept);
  find_undo_records();
}

void Statement::commit() {
  for (std::size_t i = 0; i < ops_.size(); ++i) {
    if (!valid(i)) continue;
    const Op& op = ops_[i];
    model::Task& task = ssn_.task(op.task);
    switch (op.kind) {
      case Kind::EVICT:
        set_virtual(task, false);
        ssn_.evictions.push_back({op.task, op.previous_node, op.reason, op.beneficiary});
        break;
      case Kind::PIPELINE:
        ssn_.pipelines.push_back({op.task, task.node, task.gpu_groups, ssn_.action});
        break;
      case Kind::ALLOCATE: {
        model::Node& node = ssn_.node(task.node);
        if (task.is_shared_gpu_allocation()) {
          for (const std::string& group : task.gpu_groups)
            node.used_shared_mib.try_emplace(group, 0);
        }
        // BindPod: the BindRequest is created and the task is Binding for the rest of the cycle.
        set_status(task, TaskStatus::BINDING);
        node.update_task(task);
        ssn_.binds.push_back({op.task, task.node, task.gpu_groups, ssn_.action});
        break;
      }
      case Kind::UNDO:
        break;
    }
  }
  ops_.clear();
}

}  // namespace sim::sched
