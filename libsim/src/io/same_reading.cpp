#include "bare_pod.hpp"

namespace sim::io {
namespace {

bool same_gpu(const model::GpuRequirement& a, const model::GpuRequirement& b) {
  return a.count == b.count && a.portion == b.portion && a.memory_mib == b.memory_mib &&
         a.mig == b.mig && a.dra == b.dra;
}

bool same_requests(const ResourceList& a, const ResourceList& b) {
  return (a.base == b.base).all() && a.scalars == b.scalars && a.has_gpu == b.has_gpu &&
         a.gpu == b.gpu;
}

// The part of a Task a pod's reading decides (task_template).
bool same_task(const model::Task& a, const model::Task& b) {
  return a.uid == b.uid && a.name == b.name && a.ns == b.ns && a.created_ns == b.created_ns &&
         a.controller_owned == b.controller_owned && a.labels == b.labels &&
         a.placement->empty() == b.placement->empty() && a.nominated_node == b.nominated_node &&
         (a.request == b.request).all() && a.reservation == b.reservation &&
         a.task_priority == b.task_priority && a.has_task_priority == b.has_task_priority &&
         a.foreign == b.foreign && a.qos_guaranteed == b.qos_guaranteed && same_gpu(a.gpu, b.gpu) &&
         a.request_type == b.request_type && a.legacy_mig == b.legacy_mig &&
         a.scalars == b.scalars && a.gpu_groups == b.gpu_groups &&
         a.received_type == b.received_type;
}

}  // namespace

bool same_pod_reading(const PodObject& a, const PodObject& b) {
  return a.name == b.name && a.ns == b.ns && a.uid == b.uid && a.labels == b.labels &&
         a.annotations == b.annotations && a.created_ns == b.created_ns &&
         a.deleted_ns == b.deleted_ns && a.controller_owned == b.controller_owned &&
         a.node_name == b.node_name && a.scheduler_name == b.scheduler_name &&
         a.priority_class == b.priority_class && a.phase == b.phase &&
         a.nominated_node == b.nominated_node && a.gated == b.gated &&
         same_requests(a.requests, b.requests) && same_gpu(a.gpu_request.gpu, b.gpu_request.gpu) &&
         a.gpu_request.type == b.gpu_request.type &&
         a.gpu_request.legacy_mig == b.gpu_request.legacy_mig &&
         a.placement->empty() == b.placement->empty() && same_task(a.base, b.base) &&
         a.reservation_label == b.reservation_label && a.pod_group == b.pod_group &&
         a.sub_group == b.sub_group && (a.grouper == nullptr) == (b.grouper == nullptr) &&
         a.grouper_class == b.grouper_class && a.group_hash == b.group_hash &&
         a.guaranteed == b.guaranteed && (a.numa_units == nullptr) == (b.numa_units == nullptr) &&
         a.numa_observed == b.numa_observed && a.numa_predicted == b.numa_predicted &&
         a.claims.size() == b.claims.size();
}

bool same_group_reading(const PodGroupObject& a, const PodGroupObject& b) {
  return a.name == b.name && a.ns == b.ns && a.queue == b.queue &&
         a.priority_class == b.priority_class && a.preemptibility == b.preemptibility &&
         a.min_member == b.min_member && a.groups == b.groups && a.created_ns == b.created_ns &&
         a.last_start_ns == b.last_start_ns && a.stale_since_ns == b.stale_since_ns &&
         a.name_hash == b.name_hash;
}

}  // namespace sim::io
