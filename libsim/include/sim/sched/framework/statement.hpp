#pragma once
// A transaction over the session (KAI framework/statement.go): every allocate, pipeline and
// evict is applied to the session at once and logged with what it replaced; checkpoint() is a
// position in the log, rollback() undoes back to it, commit() turns the surviving operations into
// decisions. Undoing appends an "undo" record (itself undoable), exactly like KAI, so a later
// rollback past it re-applies the undone operation. No copy of the cluster is ever made.

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/sched/framework/session.hpp"

namespace sim::sched {

class Statement {
 public:
  explicit Statement(Session& session) : ssn_(session) {}

  std::size_t checkpoint() const { return ops_.size(); }
  /// Room for `operations` log records (each operation and each undo is one), so the log does
  /// not move its records as it grows.
  void reserve(std::size_t operations) { ops_.reserve(operations); }
  void rollback(std::size_t checkpoint);
  void discard();
  /// Applies the valid operations in log order: evictions and pipelines become decisions,
  /// allocations become binds (status Binding).
  void commit();

  /// Places a pending task on a node whose idle resources fit it now.
  void allocate(TaskId task, NodeId node);
  /// Places a task on releasing resources. If the task was evicted from this very node earlier in
  /// this statement and its GPU placement is unchanged, the eviction is undone instead (unless
  /// `update_if_exists`).
  void pipeline(TaskId task, NodeId node, bool update_if_exists);
  /// Virtually evicts a running task (it becomes Releasing on its node). `object` names which
  /// copy of the pod is evicted (0: the session's own). KAI's solver evicts the pods it was handed,
  /// and a scenario can hand the same pod twice (a recorded victim's clone, then the pod itself):
  /// each copy keeps its own status, so the second eviction remembers the status the pod had
  /// before the first, and the session's job holds whichever copy was changed last
  /// (framework/statement.go Evict, podgroup_info CloneWithTasks).
  void evict(TaskId task, std::string reason, JobId beneficiary, int object = 0);
  /// Declares copy `object` (> 0) of `task`, with the status the copy was taken with (declared
  /// again: the status is replaced).
  void declare_copy(TaskId task, int object, model::TaskStatus status);
  /// The status of copy `object` of `task` now.
  model::TaskStatus copy_status(TaskId task, int object) const;
  /// Re-labels every allocation of `job` in this statement as a pipeline (gang waits as a whole).
  void convert_all_allocated_to_pipelined(JobId job);

  bool empty() const { return ops_.empty(); }

 private:
  enum class Kind { ALLOCATE, PIPELINE, EVICT, UNDO };
  struct Op {
    Op(Kind k, TaskId t) : kind(k), task(t) {}
    /// Records what an eviction or a pipelining changes on the task, for its undo.
    Op(Kind k, const model::Task& t)
        : kind(k),
          task(t.id),
          previous_status(t.status),
          previous_node(t.node),
          previous_groups(t.gpu_groups),
          previous_numa(t.devices->numa_placement),
          previous_claims(t.devices->claim_memory),
          previous_virtual(t.virtual_status) {}
    Kind kind;
    TaskId task;
    model::TaskStatus previous_status = model::TaskStatus::PENDING;
    NodeId previous_node = NodeId::invalid();
    NodeId next_node = NodeId::invalid();
    std::vector<std::string> previous_groups;
    std::vector<model::ZoneAmounts> previous_numa;
    std::map<std::string, std::optional<model::DraAllocation>> previous_claims;
    bool previous_virtual = false;
    std::string reason;
    JobId beneficiary = JobId::invalid();
    std::size_t undone_index = 0;  ///< for UNDO
    /// The first UNDO record that names this one (kNoUndo: none), which decides valid().
    std::size_t first_undo = kNoUndo;
    int object = 0;  ///< for EVICT: the copy of the pod that was evicted
  };

  static constexpr std::size_t kNoUndo = static_cast<std::size_t>(-1);
  bool valid(std::size_t index) const;
  /// Appends an UNDO record of operation `index`.
  void record_undo(std::size_t index);
  /// first_undo of every record again, after records were dropped from the log.
  void find_undo_records();
  void undo(std::size_t index);
  void reverse(const Op& op);
  void unevict(const Op& op);
  void unpipeline(const Op& op);
  void unallocate(TaskId task, bool previous_virtual);
  void set_status(model::Task& task, model::TaskStatus status);
  void set_virtual(model::Task& task, bool virtual_status);
  /// Makes copy `object` the one the session's job holds (its status becomes the task's).
  void hold(model::Task& task, int object);

  /// A declared copy of a pod (object > 0) and its status while the session's job does not
  /// hold it.
  struct Copy {
    TaskId task;
    int object;
    model::TaskStatus status;
  };
  /// Which copy of a pod the session's job holds (absent: 0, its own), and the own copy's status
  /// while another one is held.
  struct Holder {
    TaskId task;
    int object = 0;
    model::TaskStatus own_status = model::TaskStatus::PENDING;
  };
  static constexpr std::size_t kNoCopy = static_cast<std::size_t>(-1);
  /// The declared copy's place in `copies_`, or kNoCopy.
  std::size_t find_copy(TaskId task, int object) const;
  /// The declared copy; std::out_of_range when it is not.
  Copy& copy(TaskId task, int object) { return copies_[copy_at(task, object)]; }
  const Copy& copy(TaskId task, int object) const { return copies_[copy_at(task, object)]; }
  std::size_t copy_at(TaskId task, int object) const;
  /// Where `task`'s holder is or would go in `holders_`.
  std::size_t holder_slot(TaskId task) const;
  const Holder* holder(TaskId task) const;

  Session& ssn_;
  std::vector<Op> ops_;
  /// Flat, as a search declares a handful of copies per scenario and makes thousands of
  /// scenarios: while `dense_copies_`, copy k sits at copies_[k - 1] (the solver numbers its
  /// entries 1, 2, ...), otherwise it is searched for.
  std::vector<Copy> copies_;
  bool dense_copies_ = true;
  std::vector<Holder> holders_;  ///< by task
};

}  // namespace sim::sched
