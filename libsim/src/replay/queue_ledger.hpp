#pragma once
// Private: every pod's part of the sums a cycle needs (the usage a session opens with, the
// timeline's columns, the GPU memory stranded on shared devices), kept up to date pod by pod as
// a replay's pods change. Sums are exact (sched/pod_sums.hpp), so a ledger kept up to date equals
// one rebuilt from the state, and a cycle with nothing pending costs what changed.

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/model/cluster.hpp"
#include "sim/sched/plugins/pod_sums.hpp"

namespace sim::replay {

/// A queue's pods and its descendants' as the timeline shows them.
struct TimelineSums {
  ResourceVec allocated = ResourceVec::Zero();     ///< allocated pods' accepted (plugin units)
  ResourceVec allocated_np = ResourceVec::Zero();  ///< of those, non-preemptible jobs'
  ResourceVec requested = ResourceVec::Zero();     ///< and pending or pipelined pods' request
};

class QueueLedger {
 public:
  /// Records every pod of `state` anew, and its nodes' capacity.
  void rebuild(const model::ClusterState& state);
  /// Records the pod as `task` of `state` now is, in place of what its key had. False for a pod
  /// of another scheduler, which changes the capacity: the ledger must then be rebuilt.
  bool record(const model::ClusterState& state, const model::Task& task);
  /// Forgets the pod "namespace/name".
  void forget(const std::string& pod);

  /// What a session opening on `state`, the state these pods are in, counts.
  model::OpenSums open_sums(const model::ClusterState& state) const;
  /// The proportion plugin's capacity.
  const ResourceVec& capacity() const { return capacity_; }
  IdVector<QueueId, TimelineSums> timeline() const;
  /// GPUs of schedulable nodes.
  double cluster_gpus() const { return cluster_gpus_; }
  /// Idle GPU memory on shared devices in use of schedulable nodes (MiB).
  std::int64_t stranded_mib() const { return stranded_mib_; }
  /// Whether some pod is pending.
  bool any_pending() const { return pending_ > 0; }

 private:
  struct Entry {
    QueueId queue = QueueId::invalid();
    bool preemptible = true;
    sched::PodPart part;
    bool listed = false;  // pending or pipelined: its request counts in the timeline's requested
    std::array<ExactSum::Term, 3> request{};
    NodeId node = NodeId::invalid();  // shared GPU memory: where, in which groups, how much
    std::vector<std::string> groups;
    std::int64_t mib = 0;
    bool may_pend = false;
    bool may_be_stale = false;
    bool anti_affinity = false, preferred_affinity = false;
  };
  struct Group {
    int pods = 0;
    std::int64_t mib = 0;
  };
  Entry entry(const model::ClusterState& state, const model::Task& task) const;
  void apply(const Entry& e, int sign);
  void add_to_group(NodeId node, const std::string& group, std::int64_t mib, int sign);

  std::unordered_map<std::string, Entry> pods_;  // by "namespace/name"
  sched::QueueSums open_;
  IdVector<QueueId, std::array<ExactSum, 3>> requested_;
  std::map<std::pair<NodeId, std::string>, Group> groups_;
  std::vector<std::int64_t> node_memory_mib_;  // per device; 0 for nodes that are not schedulable
  std::set<std::string> may_pend_;             // pods that are pending or in no queue
  std::set<std::string> may_be_stale_;         // pods whose job can be stale
  ResourceVec capacity_ = ResourceVec::Zero();
  double cluster_gpus_ = 0;
  std::int64_t stranded_mib_ = 0;
  std::int64_t pending_ = 0, anti_affinity_ = 0, preferred_affinity_ = 0;
};

}  // namespace sim::replay
