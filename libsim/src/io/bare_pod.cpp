#include "bare_pod.hpp"

#include "sim/io/quantity.hpp"

namespace sim::io {
namespace {

// A request as read_resource_list reads it, or nothing where it would fail.
std::optional<double> quantity_amount(const std::string& text, bool milli) {
  const std::optional<Quantity> q = parse_quantity(text);
  if (!q || q->negative) return std::nullopt;
  const std::optional<std::int64_t> v = milli ? q->milli_value() : q->value();
  if (!v) return std::nullopt;
  return static_cast<double>(*v);
}

// What check_gpu_request (gpu_request_rules.cpp) refuses, and set_gpu_request would not read.
bool admitted(const BarePod& pod) {
  if (!(pod.gpu_fraction >= 0) || pod.gpu_fraction >= 1) return false;
  if (pod.gpu_fraction > 0 && pod.gpus > 0) return false;
  if (pod.gpu_memory_mib < 0) return false;
  if (pod.gpu_memory_mib > 0 && (pod.gpu_fraction > 0 || pod.gpus > 0)) return false;
  return pod.gpus >= 0 && pod.mig_instances >= 0;
}

bool admitted(const BareGroup& group) {  // read_pod_group's check
  return group.preemptibility.empty() || group.preemptibility == "preemptible" ||
         group.preemptibility == "non-preemptible";
}

}  // namespace

std::optional<std::pair<std::shared_ptr<const ParsedObjects>, std::shared_ptr<const ParsedObjects>>>
read_bare_pod(const BarePod& bare, const Field& pod_doc, const BareGroup& group,
              const Field& group_doc) {
  if (!admitted(bare) || !admitted(group)) return std::nullopt;
  PodObject pod{pod_doc};
  pod.name = bare.name;
  pod.ns = bare.ns;
  pod.uid = bare.uid;
  pod.labels = bare.labels;
  pod.annotations = bare.annotations;
  pod.created_ns = bare.created_ns;
  pod.scheduler_name = kSchedulerName;
  pod.priority_class = bare.priority_class;
  pod.phase = "Pending";
  // container_requests: a GPU or MIG limit is requested at the limit.
  ResourceList& requests = pod.requests;
  if (!bare.cpu.empty()) {
    const std::optional<double> cpu = quantity_amount(bare.cpu, true);
    if (!cpu) return std::nullopt;
    at(requests.base, Resource::CPU) = *cpu;
  }
  if (!bare.memory.empty()) {
    const std::optional<double> memory = quantity_amount(bare.memory, false);
    if (!memory) return std::nullopt;
    at(requests.base, Resource::MEMORY) = *memory;
  }
  if (bare.gpus > 0) {
    requests.has_gpu = true;
    requests.gpu = bare.gpus;
    at(requests.base, Resource::GPU) = bare.gpus;
  }
  if (!bare.mig_resource.empty()) requests.scalars[bare.mig_resource] = bare.mig_instances;
  at(requests.base, Resource::PODS) = 1;
  pod.gpu_request = gpu_request_of(requests, bare.gpu_memory_mib, bare.gpu_fraction, std::nullopt);
  derive_from_marks(pod);

  PodGroupObject pg{group_doc};
  pg.name = group.name;
  pg.ns = bare.ns;
  pg.queue = group.queue;
  pg.priority_class = group.priority_class;
  pg.preemptibility = group.preemptibility;
  pg.created_ns = bare.created_ns;
  pg.name_hash = name_hash(pg.name);

  auto pod_part = std::make_shared<ParsedObjects>();
  pod_part->latest_time = bare.created_ns;
  pod_part->pods.push_back(std::move(pod));
  pod_part->mark_kinds();
  auto group_part = std::make_shared<ParsedObjects>();
  group_part->latest_time = bare.created_ns;
  group_part->pod_groups.push_back(std::move(pg));
  group_part->mark_kinds();
  return std::pair(std::move(pod_part), std::move(group_part));
}

}  // namespace sim::io
