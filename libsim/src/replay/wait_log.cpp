#include "wait_log.hpp"

#include <iterator>

#include "sim/core/go_json.hpp"

namespace sim::replay {
namespace {

using sched::WaitCause;

std::string seconds(std::int64_t ms) { return go_json_number(static_cast<double>(ms) / 1000.0); }

std::string field(const char* name, double v) {
  return std::string(",\"") + name + "\":" + go_json_number(v);
}
std::string field(const char* name, const std::string& v) {
  return std::string(",\"") + name + "\":" + json_string(v);
}

std::string signature(const sched::WaitReason& why) {
  return std::string(sched::wait_cause_name(why.cause)) + "|" + why.queue + "|" +
         std::string(resource_name(why.resource)) + "|" + why.short_resource + "|" +
         std::to_string(why.gang_min);
}

}  // namespace

std::string wait_fields(const sched::WaitReason& why) {
  std::string out = field("cause", std::string(sched::wait_cause_name(why.cause)));
  const std::string resource(resource_name(why.resource));
  switch (why.cause) {
    case WaitCause::OverLimit:
    case WaitCause::NonPreemptibleOverQuota:
      out += field("at_queue", why.queue) + field("resource", resource);
      out += why.cause == WaitCause::OverLimit
                 ? field("limit", why.bound) + field("allocated", why.allocated)
                 : field("quota", why.bound) + field("allocated_non_preemptible", why.allocated);
      out += field("requested", why.requested) + std::string(",\"stated\":") +
             (why.stated ? "true" : "false");
      break;
    case WaitCause::OverQuota:
      out += field("at_queue", why.queue) + field("resource", resource) +
             field("fair_share", why.bound) + field("allocated", why.allocated) +
             field("requested", why.requested) +
             field("shortage", std::string(sched::wait_cause_name(why.shortage))) +
             field("nodes", why.nodes) + field("largest_free", why.largest_free) +
             field("total_free", why.total_free);
      break;
    case WaitCause::NotEnoughGpus:
    case WaitCause::NotEnoughGpuMemory:
    case WaitCause::Fragmentation:
      out += field("requested", why.requested) + field("nodes", why.nodes) +
             field("largest_free", why.largest_free) + field("total_free", why.total_free);
      break;
    case WaitCause::NotEnoughResources:
      out += field("resource", why.short_resource) + field("nodes", why.nodes);
      break;
    case WaitCause::NodeRules:
      out += field("nodes", why.nodes);
      break;
    default:
      break;
  }
  if (why.gang_min > 0)
    out += field("gang_min", why.gang_min) + field("gang_ready", why.gang_ready);
  return out + field("message", why.message);
}

void WaitLog::record(std::int64_t now_ms, const std::string& pod, const std::string& queue,
                     const sched::WaitReason& why, std::string& events) {
  std::string sig = signature(why);
  auto it = open_.find(pod);
  if (it != open_.end()) {
    if (it->second.signature == sig) return;
    close(it, now_ms);
  }
  open_[pod] = {now_ms, queue, std::string(sched::wait_cause_name(why.cause)), std::move(sig)};
  events += "{\"time_s\":" + seconds(now_ms) + ",\"type\":\"wait\",\"pod\":" + json_string(pod) +
            ",\"queue\":" + json_string(queue) + wait_fields(why) + "}\n";
}

void WaitLog::close(std::unordered_map<std::string, Open>::iterator it, std::int64_t at_ms) {
  const std::int64_t ms = at_ms - it->second.since_ms;
  if (ms > 0) totals_[it->second.queue].ms_by_cause[it->second.cause] += ms;
  open_.erase(it);
}

void WaitLog::on_event(const PodEvent& e) {
  auto it = open_.find(e.pod);
  if (e.type == PodEventType::SUBMIT || e.type == PodEventType::RECREATE) {
    if (it != open_.end()) close(it, e.at_ms);
    open_[e.pod] = {e.at_ms, e.queue, "AwaitingCycle", "AwaitingCycle"};
    return;
  }
  if (it == open_.end()) return;
  if (e.type == PodEventType::PIPELINE) {
    if (it->second.cause == "Pipelined") return;
    close(it, e.at_ms);
    open_[e.pod] = {e.at_ms, e.queue, "Pipelined", "Pipelined"};
    return;
  }
  // bind ends the wait; delete, gone, lost, evict and complete end the pod's pending life.
  close(it, e.at_ms);
}

void WaitLog::end_cycle() {
  for (auto it = open_.begin(); it != open_.end();) {
    it = it->second.cause == "AwaitingCycle" ? open_.erase(it) : std::next(it);
  }
}

void WaitLog::finish(std::int64_t end_ms) {
  while (!open_.empty()) {
    auto it = open_.begin();
    ++totals_[it->second.queue].waiting_at_end;
    close(it, end_ms);
  }
}

}  // namespace sim::replay
