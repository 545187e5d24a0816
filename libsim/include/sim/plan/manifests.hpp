#pragma once
// The manifests of a plan folder (docs/plan-format.md, "The plan folder"): what a platform team
// applies to the host cluster to put a plan in place, in the runbook's form. Queues always carry
// a cpu and a memory block (an omitted block means limit 0 in KAI, which a LimitRange's default
// requests then run into), the KAI chart's PriorityClasses, the `nvidia` RuntimeClass, one
// vCluster values file per team, and the queue-guard admission policy that binds each tenant
// namespace to its queue.

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sim::plan {

/// One resource block of a Queue's `spec.resources`, in CRD units (GPU devices, CPU millicores,
/// memory MB of 10^6 bytes); -1 is unlimited.
struct QueueResource {
  double quota = -1;
  double limit = -1;
  double over_quota_weight = 1;
  friend bool operator==(const QueueResource&, const QueueResource&) = default;
};

/// A Queue as the plan writes it (scheduling.run.ai/v2).
struct PlannedQueue {
  std::string name;
  std::string parent;           ///< empty: top level
  std::optional<int> priority;  ///< written only when set (KAI's default is 100)
  std::string display_name;     ///< spec.displayName, when set
  std::string preempt_min_runtime, reclaim_min_runtime;  ///< Go durations, when set
  QueueResource gpu{0, 0, 1};
  QueueResource cpu;  ///< default unlimited, so LimitRange defaults never hit limit 0
  QueueResource memory;
};

/// A team with its own vCluster: host namespace `vcluster-<team>`, vCluster name `<team>`
/// (the value vCluster writes into the `vcluster.loft.sh/managed-by` label), and its KAI queue.
struct Tenant {
  std::string team;
  std::string queue;
  /// The vCluster's ResourceQuota entries (policies.resourceQuota.quota), by name; the
  /// runbook's single-node figures unless the plan gives others.
  std::map<std::string, std::string> resource_quota;
  std::string namespace_name() const { return "vcluster-" + team; }
};

/// The runbook's ResourceQuota figures for one vCluster (a single-node reproduction's bounds).
std::map<std::string, std::string> runbook_resource_quota();

/// `queues.yaml`: every queue, parents before children, in the order given otherwise.
std::string queues_yaml(const std::vector<PlannedQueue>& queues, const std::string& header);
/// `priorityclasses.yaml`: KAI v0.16.4 chart's train (50), build-preemptible (75), build (100)
/// and inference (125).
std::string priority_classes_yaml();
/// `runtimeclass.yaml`: the `nvidia` RuntimeClass (handler nvidia) that KAI's
/// admission.gpuFractionRuntimeClassName names and the GPU Operator creates.
std::string runtime_class_yaml();
/// `vcluster-<team>.yaml`: the runbook's vcluster.yaml for one team.
std::string vcluster_values_yaml(const Tenant& tenant);
/// `queue-guard.yaml`: the ValidatingAdmissionPolicy and its Binding. A pod with GPU access (a
/// gpu-fraction or gpu-memory annotation, an nvidia.com/gpu or nvidia.com/mig-* resource, any
/// runtimeClassName, an NVIDIA_VISIBLE_DEVICES variable) in a tenant namespace must carry that
/// tenant's managed-by label and queue label, schedulerName kai-scheduler, and no ephemeral
/// containers.
std::string queue_guard_yaml(const std::vector<Tenant>& tenants);

/// Every manifest file of the folder by name. Throws InputError when a queue, team or parent
/// name is not a valid Kubernetes name or a tenant's queue is not among `queues`.
std::map<std::string, std::string> plan_manifests(const std::vector<PlannedQueue>& queues,
                                                  const std::vector<Tenant>& tenants,
                                                  const std::string& header);

}  // namespace sim::plan
