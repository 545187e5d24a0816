#pragma once
// Why a job waits, typed: KAI's api.SchedulableResult carries a Reason, a Message and Details
// with the queue's numbers (pkg/apis/scheduling/v2alpha2/podgroup_types.go,
// UnschedulableExplanation, QuotaDetails); the node-fit causes KAI keeps only as text (FitErrors)
// kaisim classifies here, from the nodes it tried, so a replay can say why a pod waited without
// reading its own messages back.

#include <cstdint>
#include <string>
#include <string_view>

#include "sim/core/resource_vec.hpp"

namespace sim::sched {

enum class WaitCause : std::uint8_t {
  OverLimit,  ///< the queue (or a parent) would exceed its limit (KAI v2alpha2.OverLimit)
  NonPreemptibleOverQuota,  ///< a non-preemptible job would take a queue over its quota
  OverQuota,      ///< no node has room and the queue holds its fair share: reclaim may not help it
  NotEnoughGpus,  ///< no node has enough free whole GPUs, nor the cluster in total
  NotEnoughGpuMemory,  ///< no GPU has the free memory share the pod asks for, nor the cluster in
                       ///< total
  Fragmentation,  ///< enough GPU free in total, but split over nodes (or GPUs) none of which holds
                  ///< it
  NotEnoughResources,  ///< another resource (cpu, memory, pods, a MIG profile) is short on every
                       ///< node
  NodeRules,  ///< every node was ruled out by a predicate (taints, selectors, affinity, readiness)
  Gang,       ///< the gang's minimum is not met (not enough pods exist, or room for too few)
  Topology,   ///< the topology constraint finds no domain that can hold the pods
  Queue,      ///< the job's queue does not exist or is not a leaf
  Other,      ///< anything else; the message says what
};

/// The cause's name in outputs ("OverLimit", "NotEnoughGpus", ...).
std::string_view wait_cause_name(WaitCause cause);

/// One reason a job waits. Numbers are in the proportion plugin's units: GPU devices, CPU
/// millicores, memory bytes; node-fit GPU numbers in GPU devices (fractions of one GPU for
/// shared-GPU pods).
struct WaitReason {
  WaitCause cause = WaitCause::Other;
  std::string message;  ///< plain words, as `kaisim cycle` prints them

  // Capacity causes (OverLimit, NonPreemptibleOverQuota, OverQuota).
  std::string queue;  ///< the queue whose bound is hit (may be a parent of the job's)
  Resource resource = Resource::GPU;
  double bound = 0;      ///< its limit, quota or fair share of `resource`
  double allocated = 0;  ///< what it holds (non-preemptible only, for NonPreemptibleOverQuota)
  double requested = 0;  ///< what the job (node causes: one pod) asks for
  bool stated = true;    ///< false: the Queue has no block for `resource` (KAI reads 0)

  // Node-fit causes (and OverQuota, which keeps the node cause in `shortage`).
  WaitCause shortage = WaitCause::Other;
  int nodes = 0;            ///< nodes tried
  double largest_free = 0;  ///< most of `resource` free on one node (one GPU, for shared GPUs)
  double total_free = 0;    ///< summed over the nodes tried
  std::string
      short_resource;  ///< NotEnoughResources: the resource's name ("cpu", "nvidia.com/mig-1g.5gb")

  // Gang: a PodSet short of its minimum.
  int gang_min = 0;    ///< pods the gang needs at once (0: not a gang reason)
  int gang_ready = 0;  ///< pods that exist (not ready) or found room (placement)

  bool operator==(const WaitReason&) const = default;
};

}  // namespace sim::sched
