#pragma once
// Private: Queue.status as KAI's controllers write it, computed from the Kubernetes objects: the
// podgroup-controller sums each PodGroup's pods into PodGroup.status.resourcesStatus, the
// queue-controller sums a queue's PodGroups and its child queues into Queue.status (allocated,
// allocatedNonPreemptible, requested). This is not what the scheduler counts in a session: a
// terminating pod that still runs counts here until it is gone.
//   KAI: pkg/podgroupcontroller/controllers/metadata/pod.go, status_updater.go,
//   patcher/pod_group.go KAI: pkg/queuecontroller/controllers/resource_updater/resource_updater.go

#include <yaml-cpp/yaml.h>

#include <map>
#include <optional>
#include <string>

#include "sim/io/queue_status.hpp"

namespace sim::io {

/// One pod's part of its PodGroup's status (podgroup-controller's PodMetadata), with where it goes.
struct PodStatusPart {
  std::string pod_group;  ///< "namespace/name"; empty when the pod belongs to no PodGroup
  std::string queue;      ///< the PodGroup's spec.queue
  bool preemptible = true;
  ResourceAmounts allocated;
  ResourceAmounts requested;
};

/// The objects a pod's part depends on besides the pod itself. Implementations look them up in
/// whatever holds the cluster (the replay's world, a live snapshot).
class StatusObjects {
 public:
  virtual ~StatusObjects() = default;
  /// The PodGroup object, or nullptr.
  virtual const YAML::Node* pod_group(const std::string& ns, const std::string& name) const = 0;
  /// The Node object, or nullptr.
  virtual const YAML::Node* node(const std::string& name) const = 0;
  /// The value of a PriorityClass, or nullopt when there is none of that name.
  virtual std::optional<int> priority_class(const std::string& name) const = 0;
  /// The value of the globalDefault PriorityClass, or nullopt.
  virtual std::optional<int> global_default_priority() const = 0;
};

/// How pods are read where KAI's own controllers would have written something first.
struct StatusCountOptions {
  /// A KAI pod without the pod-grouper's `pod-group-name` annotation counts as the pod-grouper
  /// would group it (PodGroup pg-<pod>-<uid> of the pod's queue label, else default-queue, with
  /// its priority class, else `train`): a cluster without KAI's controllers, or a plan, can
  /// still be predicted. Off: such a pod counts nowhere, as in KAI.
  bool assume_pod_grouper = false;
  /// A pod without a PodScheduled condition counts as scheduled when it has spec.nodeName (the
  /// replay's world binds by writing spec.nodeName only). Off: only PodScheduled=True counts.
  bool node_name_means_scheduled = false;
};

/// One pod's part of its PodGroup's status.
PodStatusPart pod_status_part(const YAML::Node& pod, const StatusObjects& objects,
                              const StatusCountOptions& options);

/// Whether a PodGroup is preemptible as the podgroup-controller decides it: spec.preemptibility,
/// else its priority class (missing: the globalDefault class, else 50) below 100.
bool pod_group_preemptible(const YAML::Node* pod_group, const std::string& priority_class_name,
                           const StatusObjects& objects);

/// Adds pods' parts up by PodGroup and queue and rolls them up the queue tree: each queue's status
/// is its own PodGroups plus its children's statuses. A preemptible PodGroup keeps the
/// allocatedNonPreemptible its status held (patcher/pod_group.go writes it only for
/// non-preemptible groups); `set_group` gives that for groups read from a cluster.
class QueueStatusSums {
 public:
  /// A PodGroup as the cluster holds it (with or without pods yet).
  void set_group(const std::string& key, const std::string& queue, bool preemptible,
                 ResourceAmounts kept_non_preemptible);
  void add(const PodStatusPart& part);
  void remove(const PodStatusPart& part);
  /// `parents` maps every existing queue to its parent (empty for a top queue); sums of queues
  /// that do not exist are dropped, as KAI's controller never writes them.
  std::map<std::string, QueueStatus> roll_up(
      const std::map<std::string, std::string>& parents) const;

 private:
  std::map<std::string, QueueStatus>
      own_;  // each queue's own PodGroups, kept up to date pod by pod
  struct Kept {
    std::string queue;
    ResourceAmounts non_preemptible;
  };
  std::map<std::string, Kept> kept_;  // preemptible PodGroups with an allocatedNonPreemptible held
};

/// Reads an observed Queue.status (its allocated / allocatedNonPreemptible / requested maps); an
/// absent or null status is all zero. Throws InputError naming `path` for a bad quantity.
QueueStatus read_queue_status(const YAML::Node& status, const std::string& path);

}  // namespace sim::io
