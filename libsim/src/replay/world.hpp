#pragma once
// Private: the replayed cluster as the API server would hold it, a set of Kubernetes objects,
// plus what the kubelet, the binder and the pod-grouper do to them (bind, run, terminate, group).

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/snapshot_fields.hpp"
#include "scenario.hpp"
#include "sim/model/cluster.hpp"
#include "sim/sched/framework/session.hpp"
#include "timers.hpp"

namespace sim::replay {

/// What happened to a pod (events.jsonl's `type`, docs/replay-output.md).
enum class PodEventType { SUBMIT, BIND, PIPELINE, EVICT, DELETE, GONE, RECREATE, COMPLETE, LOST };
/// Its name in events.jsonl: submit, bind, pipeline, evict, delete, gone, recreate, complete, lost.
std::string_view event_name(PodEventType type);

/// What happened to a pod, for events.jsonl and the metrics.
struct PodEvent {
  std::int64_t at_ms;
  PodEventType type;
  std::string pod;  ///< ns/name
  std::string queue;
  std::string node;
  std::string reason;  ///< evict: reclaim/preempt/consolidation/stalegang
  std::string beneficiary;
  double gpus = 0;  ///< GPUs the pod requests (fraction allowed)
  std::string beneficiary_queue = {};
};

class World {
 public:
  explicit World(std::int64_t default_grace_ms) : default_grace_ms_(default_grace_ms) {}
  // order_ points into objects_: a copy would point into the original.
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  /// Creates or updates the object (kubectl apply). Bare KAI pods get their PodGroup as the
  /// pod-grouper would create it.
  void apply(const Manifest& m, std::int64_t now_ms, std::vector<PodEvent>& events);
  /// The same with a manifest the world may keep as it is (no copy).
  void apply(Manifest&& m, std::int64_t now_ms, std::vector<PodEvent>& events);
  /// Applies the bare pod of a generator or trace row (from `file`): its manifest is kept for
  /// dumps, but the cycles read the pod and its PodGroup as typed from `shape`, not from the text.
  void apply(const PodShape& shape, const std::string& file, std::int64_t now_ms,
             std::vector<PodEvent>& events);
  /// Deletes the object; running pods terminate over their grace period first.
  void remove(const ObjectRef& ref, std::int64_t now_ms, std::vector<PodEvent>& events);
  /// Finishes the binds, completions, taint evictions and terminations due at `now_ms`.
  void advance(std::int64_t now_ms, std::vector<PodEvent>& events);
  /// Earliest pending bind, completion, taint eviction or termination, or -1.
  std::int64_t next_due() const;

  /// The cluster state a scheduling cycle starting now sees.
  model::ClusterState snapshot(std::int64_t now_ms, Diagnostics& diagnostics);
  /// The same, leaving what the world remembers for a later update as it is (for checks).
  model::ClusterState snapshot_aside(std::int64_t now_ms, Diagnostics& diagnostics);
  /// Hands a finished cycle's state back: the next snapshot is built in its memory.
  void recycle(model::ClusterState&& state) { spare_state_ = std::move(state); }
  /// Writes a finished cycle's committed decisions back into the objects.
  void apply_decisions(const sched::Session& ssn, std::int64_t now_ms, std::int64_t bind_delay_ms,
                       std::vector<PodEvent>& events);

  /// Current phase of a pod as a user sees it: Pending, Running, Releasing, Deleted or Succeeded.
  std::string pod_phase(const std::string& key) const;
  /// spec.nodeName of a pod that exists ("namespace/name"); empty when unbound or gone.
  std::string pod_node(const std::string& key) const;
  /// Grows with every change to the objects: equal versions mean an unchanged cluster.
  std::uint64_t version() const { return version_; }
  /// Like version(), but three changes do not count: bound pods that start running, bare pods
  /// that complete (gone with the PodGroup the pod-grouper made for them), and bare pods that
  /// arrive (with that PodGroup). Equal quiet versions mean nothing else changed.
  std::uint64_t quiet_version() const { return version_ - started_ - finished_ - arrived_; }
  /// Brings the state of an earlier cycle up to date with the pods and PodGroups changed since
  /// (those three changes, and the binds and scheduler marks that cycle's decisions wrote), as a
  /// new snapshot would read them; forgets those changes. The caller must have seen that the quiet
  /// version did not move since that cycle, and that io::updatable(state) held then. False when
  /// the update cannot follow a change: a new snapshot is then needed. `pods_moved` tells whether
  /// pods came or went; `touched` gets every pod changed or gone ("namespace/name", repeats
  /// allowed).
  bool update_snapshot(model::ClusterState& state, std::int64_t now_ms, bool& pods_moved,
                       std::vector<std::string>& touched, Diagnostics& diagnostics);
  /// The pods changed (their typed readings) and gone ("namespace/name") since the last call,
  /// the last snapshot or the last update, for a cycle that reads them beside a kept state
  /// without bringing it up to date. False when bare pods arrived since the last snapshot or
  /// update: the state must then be brought up to date.
  bool recent_pod_changes(std::vector<const io::ParsedObjects*>& pods,
                          std::vector<std::string>& gone, Diagnostics& diagnostics);
  /// True while any pod exists (pending, running or terminating).
  bool has_pods() const;
  /// The object of `kind` ("Pod", "PodGroup", "Node", "Queue", ...), or nullptr; `ns` is ignored
  /// for cluster-wide kinds.
  const YAML::Node* find(const std::string& kind, const std::string& ns,
                         const std::string& name) const;
  /// Every object of `kind`, in key order.
  std::vector<const YAML::Node*> objects_of(const std::string& kind) const;
  std::uint64_t next_gpu_group = 0;

 private:
  struct Object {
    YAML::Node doc;
    std::shared_ptr<const std::string> file;
    /// The typed reading of `doc`, kept until the doc changes: a cycle then reads only the
    /// objects that changed since the last one.
    std::shared_ptr<const io::ParsedObjects> parsed = {};
    /// PodGroups: the scheduler's last-start and stale annotations as the doc holds them, read
    /// once, so writing back an unchanged value costs no YAML lookup.
    std::optional<std::pair<std::string, std::string>> scheduler_marks = {};
  };
  /// The object's document, for a change: forgets its typed reading and counts a new version.
  YAML::Node edit(Object& obj);
  /// Adds (or replaces) and removes objects, keeping `order_` in step.
  void put(const std::string& key, Object obj);
  void drop(const std::string& key);
  std::string key_of(const YAML::Node& doc) const;
  void apply(Manifest&& m, std::int64_t now_ms, std::vector<PodEvent>& events,
             const PodShape* shape);
  /// The PodGroup the pod-grouper made.
  struct Grouped {
    std::string key, name, queue, priority_class, preemptibility;
  };
  /// Creates the pod-grouper's PodGroup for `pod`.
  Grouped group_bare_pod(YAML::Node pod, const std::string& file, std::int64_t now_ms);
  /// Sets the typed readings of a bare pod applied from `shape` and of its PodGroup.
  void read_generated(const PodShape& shape, Object& pod, const Grouped& group, Object& pg,
                      std::int64_t now_ms);
  double requested_gpus(const YAML::Node& pod) const;
  std::string queue_of(const YAML::Node& pod) const;
  double claim_gpus(const YAML::Node& pod) const;
  void mark_running(const std::string& key, std::int64_t since_ms);
  // The node lifecycle controller (node_lifecycle.cpp): taints a node that stops being Ready and
  // evicts its pods once their toleration runs out.
  void node_condition_changed(const std::string& node, const YAML::Node& doc, std::int64_t now_ms,
                              std::vector<PodEvent>& events);
  void schedule_taint_eviction(const std::string& key, std::int64_t now_ms,
                               std::vector<PodEvent>& events);
  void evict_for_taints(std::int64_t now_ms, std::vector<PodEvent>& events);
  void evict_for_taint(const std::string& key, std::int64_t now_ms, std::vector<PodEvent>& events);
  void start_termination(const std::string& key, std::int64_t now_ms,
                         std::vector<PodEvent>& events);
  // The resourceclaim controller (claim_controller.cpp): claims made from templates for a new pod,
  // or for the pods of a namespace once a template arrives; deleted with their pod; reservations
  // of pods that are gone released.
  void claims_from_templates(const std::string& pod_key, std::int64_t now_ms);
  void template_applied(const std::string& ns, std::int64_t now_ms);
  void drop_generated_claims(const std::string& pod_key);
  void release_claims();
  void record_claims(const model::ClusterState& state, const model::Task& bound);

  std::int64_t default_grace_ms_;
  std::map<std::string, Object> objects_;                      // kind/namespace/name -> object
  std::vector<std::pair<const std::string*, Object*>> order_;  // objects_ in key order
  Timers terminating_;                                         // pod key -> removal time
  Timers binding_;                                             // pod key -> running time
  Timers completing_;       // pod key -> completion time (kaisim/runtime)
  Timers taint_evictions_;  // pod key -> when the node lifecycle controller deletes it
  std::map<std::string, std::int64_t>
      taint_since_;  // pod key -> when its eviction was first scheduled
  std::map<std::string, std::string> node_taints_;  // node -> its NoExecute lifecycle taint
  std::uint64_t version_ = 0;
  std::uint64_t started_ = 0;   // changes of version_ that only marked a bound pod Running
  std::uint64_t finished_ = 0;  // changes of version_ by bare pods completing
  std::uint64_t arrived_ = 0;   // changes of version_ by bare pods arriving
  /// Pods and PodGroups changed since the last snapshot or update (io::PodChanges, by key).
  struct Changes {
    std::vector<std::string> gone_pods, gone_groups;  // "namespace/name"
    std::vector<std::string> pods, groups;            // object keys
    std::size_t arrived = 0;                          // pods among them that are new
    std::size_t pods_seen = 0, gone_seen = 0;         // entries recent_pod_changes gave already
  } changes_;
  /// Notes each job's scheduler marks as `state` holds them, for apply_decisions to compare with.
  void remember_marks(const model::ClusterState& state);
  /// The typed reading of an object, made now if the object changed since the last one.
  const io::ParsedObjects* parsed(Object& obj, Diagnostics& diagnostics);
  std::map<std::string, int> recreated_;     // controller-owned pods recreated so far
  std::map<std::string, std::string> gone_;  // pods deleted for good -> "Deleted"
  std::uint64_t next_uid_ = 0;
  std::map<std::string, std::vector<std::string>>
      generated_claims_;  // pod key -> claims made from templates
  model::ClusterState spare_state_;
  /// Each job's last-start and stale marks as the last snapshot read them from its PodGroup.
  std::vector<std::pair<std::optional<std::int64_t>, std::optional<std::int64_t>>> snapshot_marks_;
};

/// Timestamps in the objects are RFC 3339; virtual time 0 is this instant (2026-01-01T00:00:00Z).
std::string format_time(std::int64_t ms);
std::int64_t epoch_ns(std::int64_t ms);

}  // namespace sim::replay
