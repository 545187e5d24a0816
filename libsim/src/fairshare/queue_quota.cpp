#include "sim/fairshare/queue_quota.hpp"

#include <algorithm>

namespace sim::fairshare {
namespace {

void set_quota(ResourceShare& s, double deserved, double limit, double weight) {
  s.deserved = deserved;
  s.max_allowed = limit;
  s.over_quota_weight = weight;
}

}  // namespace

QueueShares shares_from_spec(const model::QueueSpec& spec) {
  QueueShares q;
  q.priority = spec.priority;
  q.created = spec.created;
  set_quota(q[Resource::CPU], spec.cpu.quota, spec.cpu.limit, spec.cpu.over_quota_weight);
  set_quota(q[Resource::MEMORY], std::max(kUnlimited, spec.memory.quota * kMemoryQuotaUnitBytes),
            std::max(kUnlimited, spec.memory.limit * kMemoryQuotaUnitBytes),
            spec.memory.over_quota_weight);
  set_quota(q[Resource::GPU], spec.gpu.quota, spec.gpu.limit, spec.gpu.over_quota_weight);
  return q;
}

}  // namespace sim::fairshare
