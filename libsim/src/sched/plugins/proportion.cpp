#include "sim/sched/plugins/proportion.hpp"

#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <unordered_map>

#include "builders.hpp"
#include "sim/core/assert.hpp"
#include "sim/core/go_json.hpp"
#include "sim/fairshare/queue_quota.hpp"
#include "sim/sched/framework/job_order.hpp"
#include "sim/sched/framework/scenario.hpp"

namespace sim::sched {
namespace {

constexpr double kNoFairShareDrfMultiplier = 1000;

using fairshare::QueueShares;
using Shares = IdVector<QueueId, QueueShares>;

ResourceVec allocated_of(const QueueShares& q) {
  ResourceVec v = ResourceVec::Zero();
  for (Resource r : kQuotaResources) at(v, r) = q[r].allocated;
  return v;
}

// compareQuantities: -1 is larger than any number but itself; no tolerance at v0.16.4.
bool less_equal_quantities(const ResourceVec& a, const ResourceVec& b) {
  for (Resource r : kQuotaResources) {
    const double x = at(a, r), y = at(b, r);
    if (x == kUnlimited) {
      if (y != kUnlimited) return false;
      continue;
    }
    if (y == kUnlimited) continue;
    if (x > y) return false;
  }
  return true;
}

bool over_fair_share(const QueueShares& q) {
  // FairShare.Less(Allocated): strictly less in all three resources.
  for (Resource r : kQuotaResources) {
    if (q[r].fair_share >= q[r].allocated) return false;
  }
  return true;
}

ResourceVec fair_share_of(const QueueShares& q) {
  ResourceVec v = ResourceVec::Zero();
  for (Resource r : kQuotaResources) at(v, r) = q[r].fair_share;
  return v;
}

ResourceVec non_preemptible_of(const QueueShares& q) {
  ResourceVec v = ResourceVec::Zero();
  for (Resource r : kQuotaResources) at(v, r) = q[r].allocated_not_preemptible;
  return v;
}

ResourceVec deserved_of(const QueueShares& q) {
  ResourceVec v = ResourceVec::Zero();
  for (Resource r : kQuotaResources) at(v, r) = q[r].deserved;
  return v;
}

ResourceVec allocatable_of(const QueueShares& q) {
  ResourceVec v = ResourceVec::Zero();
  for (Resource r : kQuotaResources) at(v, r) = q[r].allocatable();
  return v;
}

// What each resource's allocation is divided by in a dominant share: the queue's allocatable
// amount, or the cluster's total where the queue is unlimited.
ResourceVec share_divisors(const QueueShares& q, const ResourceVec& total) {
  ResourceVec d = ResourceVec::Zero();
  for (Resource r : kQuotaResources) {
    const double allocatable = q[r].allocatable();
    at(d, r) = allocatable == kUnlimited ? at(total, r) : allocatable;
  }
  return d;
}

double dominant_share(const ResourceVec& divisor, const ResourceVec& allocated) {
  double dominant = 0;
  for (Resource r : kQuotaResources) {
    const double d = at(divisor, r);
    const double a = at(allocated, r);
    const double value = d == 0 ? a * kNoFairShareDrfMultiplier : a / d;
    dominant = std::max(dominant, value);
  }
  return dominant;
}

ResourceVec job_init(const Session& ssn, const JobView* job) {
  return job ? tasks_to_allocate_quantities(ssn, *job) : ResourceVec(ResourceVec::Zero());
}

int sign(bool left_first) { return left_first ? -1 : 1; }

std::string number(double v) { return go_json_number(v); }

// The typed part of a capacity verdict (KAI's QuotaDetails): which queue, resource and numbers,
// and whether the Queue states that resource at all (an omitted block reads as 0).
WaitReason capacity_reason(const Session& ssn, WaitCause cause, QueueId q, Resource r, double bound,
                           double allocated, double requested) {
  WaitReason why;
  why.cause = cause;
  why.queue = ssn.state.queue_tree.uid(q);
  why.resource = r;
  why.bound = bound;
  why.allocated = allocated;
  why.requested = requested;
  const model::QueueSpec& spec = ssn.state.queues[q];
  why.stated = r == Resource::GPU   ? spec.gpu.stated
               : r == Resource::CPU ? spec.cpu.stated
                                    : spec.memory.stated;
  return why;
}

CapacityVerdict check_capacity(const Session& ssn, const Shares& queues, JobId job_id,
                               const ResourceVec& requested, bool limits, bool quota) {
  const model::Job& job = ssn.state.jobs[job_id];
  if (limits) {
    for (QueueId q = job.queue; q.valid(); q = ssn.state.queue_tree.parent(q)) {
      for (Resource r : kQuotaResources) {
        const auto& s = queues[q][r];
        const double want = at(requested, r);
        if (s.max_allowed == kUnlimited || want == 0) continue;
        if (s.max_allowed < s.allocated + want) {
          WaitReason why =
              capacity_reason(ssn, WaitCause::OverLimit, q, r, s.max_allowed, s.allocated, want);
          why.message = "OverLimit: queue " + why.queue + " would exceed its " +
                        std::string(resource_name(r)) + " limit (limit " + number(s.max_allowed) +
                        ", allocated " + number(s.allocated) + ", requested " + number(want) + ")";
          return why;
        }
      }
    }
  }
  if (quota && !job.preemptible) {
    for (QueueId q = job.queue; q.valid(); q = ssn.state.queue_tree.parent(q)) {
      for (Resource r : kQuotaResources) {
        const auto& s = queues[q][r];
        const double want = at(requested, r);
        if (s.deserved == kUnlimited || want == 0) continue;
        if (s.deserved < s.allocated_not_preemptible + want) {
          WaitReason why = capacity_reason(ssn, WaitCause::NonPreemptibleOverQuota, q, r,
                                           s.deserved, s.allocated_not_preemptible, want);
          why.message = "NonPreemptibleOverQuota: non-preemptible job would take queue " +
                        why.queue + " over its " + std::string(resource_name(r)) +
                        " quota (quota " + number(s.deserved) + ", allocated non-preemptible " +
                        number(s.allocated_not_preemptible) + ", requested " + number(want) + ")";
          return why;
        }
      }
    }
  }
  return std::nullopt;
}

// getRequiredQuota: GPU-memory tasks convert with the largest node GPU memory.
ResourceVec required_quota(const Session& ssn, const std::vector<TaskId>& tasks) {
  ResourceVec q = ResourceVec::Zero();
  for (TaskId id : tasks) {
    const model::Task& t = ssn.state.tasks[id];
    at(q, Resource::CPU) += at(t.request, Resource::CPU);
    at(q, Resource::MEMORY) += at(t.request, Resource::MEMORY);
    if (t.is_gpu_memory_request()) {
      if (ssn.state.max_node_gpu_memory_mib)
        at(q, Resource::GPU) += t.gpu.memory_as_fraction(*ssn.state.max_node_gpu_memory_mib);
    } else {
      at(q, Resource::GPU) += at(request_quantities(t, std::nullopt), Resource::GPU);
    }
  }
  return q;
}

QueueOrderFacts queue_order_facts(const QueueShares& q, const ResourceVec& total) {
  QueueOrderFacts f;
  f.valid = true;
  f.over = over_fair_share(q);
  f.allocated = allocated_of(q);
  f.deserved = deserved_of(q);
  f.allocatable = allocatable_of(q);
  f.divisor = share_divisors(q, total);
  f.plain = dominant_share(f.divisor, f.allocated);
  return f;
}

using JobSide = QueueOrderFacts::JobSide;

// One queue's side of GetQueueOrderResult (its share without victims).
JobSide job_side(const Session& ssn, const QueueOrderFacts& f, const JobView* job) {
  JobSide side;
  side.with = f.allocated + job_init(ssn, job);
  side.starved = less_equal_quantities(side.with, f.deserved);
  for (Resource res : kQuotaResources) {
    if (at(f.allocatable, res) == 0 && at(side.with, res) > 0) side.violates = true;
  }
  side.share = dominant_share(f.divisor, side.with);
  return side;
}

// The share with the victims' allocations taken off (victim queues), asked only when the order
// gets that far.
double share_less_victims(const Session& ssn, const QueueOrderFacts& f, const JobSide& side,
                          const std::vector<const JobView*>& victims) {
  if (victims.empty()) return side.share;
  ResourceVec a = side.with;
  for (const JobView* v : victims) a -= allocated_quantities(ssn, *v);
  return dominant_share(f.divisor, a);
}

// job_side, kept in the facts for a head job until the job's pods change (the facts themselves
// are made anew when the queue's change).
JobSide cached_job_side(const Session& ssn, QueueOrderFacts& f, const JobView* job) {
  QueueOrderFacts::WithJob& c = f.with_job;
  if (!c.stamp.holds(ssn, job)) {
    c.stamp.take(ssn, job);
    c.side = job_side(ssn, f, job);
    return c.side;
  }
#ifndef NDEBUG
  const JobSide fresh = job_side(ssn, f, job);
  SIM_ASSERT((fresh.with == c.side.with).all() && fresh.starved == c.side.starved &&
             fresh.violates == c.side.violates && fresh.share == c.side.share);
#endif
  return c.side;
}

// GetQueueOrderResult's last steps, which always decide: the smaller allocatable, then the older.
int queue_order_tail(const QueueShares& l, const QueueShares& r, const QueueOrderFacts& l_facts,
                     const QueueOrderFacts& r_facts) {
  const ResourceVec& l_alloc = l_facts.allocatable;
  const ResourceVec& r_alloc = r_facts.allocatable;
  // LessInAtLeastOneResource(x, y) = !LessEqual(y, x)
  if (!less_equal_quantities(r_alloc, l_alloc) && less_equal_quantities(l_alloc, r_alloc))
    return -1;
  if (!less_equal_quantities(l_alloc, r_alloc) && less_equal_quantities(r_alloc, l_alloc)) return 1;

  // Older queue first; equal timestamps: "right" (KAI has no further tie-break here).
  return l.created < r.created ? -1 : 1;
}

// GetQueueOrderResult: negative = `left` first, positive = `right` first (never 0).
int queue_order(const Session& ssn, const Shares& queues, QueueOrderFacts& l_facts,
                QueueOrderFacts& r_facts, QueueId left, QueueId right, const JobView* left_job,
                const JobView* right_job, const std::vector<const JobView*>& left_victims,
                const std::vector<const JobView*>& right_victims) {
  const QueueShares& l = queues[left];
  const QueueShares& r = queues[right];

  if (l_facts.over != r_facts.over) return sign(!l_facts.over);

  // Copies: the two facts are one when a queue meets itself.
  const JobSide ls = cached_job_side(ssn, l_facts, left_job);
  const JobSide rs = cached_job_side(ssn, r_facts, right_job);
  if (ls.starved != rs.starved) return sign(ls.starved);

  if (l.priority != r.priority) return sign(l.priority > r.priority);

  if (ls.violates != rs.violates) return sign(!ls.violates);

  const double l_share = share_less_victims(ssn, l_facts, ls, left_victims);
  const double r_share = share_less_victims(ssn, r_facts, rs, right_victims);
  if (l_share < r_share) return -1;
  if (l_share > r_share) return 1;

  if (l_facts.plain < r_facts.plain) return -1;
  if (l_facts.plain > r_facts.plain) return 1;

  return queue_order_tail(l, r, l_facts, r_facts);
}

// IsJobOverQueueCapacity: limit at every level, and for non-preemptible jobs quota at every
// level, for the given tasks (GPU memory converted with the largest node GPU memory).
CapacityVerdict job_over_capacity(const Session& ssn, const Shares& queues, JobId job,
                                  const std::vector<TaskId>& tasks) {
  return check_capacity(ssn, queues, job, required_quota(ssn, tasks), true, true);
}

// IsNonPreemptibleJobOverQuota: only the non-preemptible quota rule.
CapacityVerdict non_preemptible_over_quota(const Session& ssn, const Shares& queues, JobId job,
                                           const std::vector<TaskId>& tasks) {
  return check_capacity(ssn, queues, job, required_quota(ssn, tasks), false, true);
}

// IsTaskAllocationOnNodeOverCapacity: both rules with the task's GPU need on that node.
CapacityVerdict task_on_node_over_capacity(const Session& ssn, const Shares& queues, TaskId task,
                                           NodeId node) {
  const ResourceVec init = ssn.state.nodes[node].required_init_quota(ssn.state.tasks[task]);
  ResourceVec requested = ResourceVec::Zero();
  for (Resource r : kQuotaResources) at(requested, r) = at(init, r);
  return check_capacity(ssn, queues, ssn.state.tasks[task].job, requested, true, true);
}

// CanReclaimResources: the reclaimer's leaf queue stays within its fair share with the job's next
// tasks (and, if non-preemptible, within quota).
bool can_reclaim_resources(const Session& ssn, const Shares& queues, const JobView& reclaimer) {
  const model::Job& job = ssn.state.jobs[reclaimer.id];
  const QueueShares& q = queues[job.queue];
  const ResourceVec init = tasks_to_allocate_quantities(ssn, reclaimer);
  if (!less_equal_quantities(allocated_of(q) + init, fair_share_of(q))) return false;
  if (job.preemptible) return true;
  return less_equal_quantities(non_preemptible_of(q) + init, deserved_of(q));
}

// getLeveledQueues: the two queues where the root-to-leaf paths first differ.
// Walks the two root-to-leaf paths side by side: the first pair that differs, else the deepest
// pair both paths reach (the same queue). Called for every victim candidate, so it climbs the
// tree instead of building the paths.
std::pair<QueueId, QueueId> leveled_queues(const model::QueueTree& tree, QueueId reclaimer,
                                           QueueId victim) {
  auto depth = [&](QueueId q) {
    std::size_t d = 0;
    for (; q.valid(); q = tree.parent(q)) ++d;
    return d;
  };
  std::size_t da = depth(reclaimer), db = depth(victim);
  if (da == 0 || db == 0) return {QueueId::invalid(), QueueId::invalid()};
  QueueId a = reclaimer, b = victim;
  for (; da > db; --da) a = tree.parent(a);
  for (; db > da; --db) b = tree.parent(b);
  // a and b now stand at the same depth; climb until their parents agree.
  while (a != b && tree.parent(a) != tree.parent(b)) {
    a = tree.parent(a);
    b = tree.parent(b);
  }
  return {a, b};
}

bool fits_maintain_fair_share(const QueueShares& victim, const ResourceVec& remaining) {
  return !less_equal_quantities(remaining, allocatable_of(victim));
}

bool reclaimer_fits_deserved(const QueueShares& reclaimer, const ResourceVec& request) {
  return less_equal_quantities(allocated_of(reclaimer) + request, deserved_of(reclaimer));
}

// getInvolvedResourcesNames: CPU, memory, GPU entries that are > 0 (MIG-only amounts do not count).
std::array<bool, 3> involved(const ResourceVec& v) {
  return {at(v, Resource::CPU) > 0, at(v, Resource::MEMORY) > 0, at(v, Resource::GPU) > 0};
}

double saturation(double allocated, double fair_share) {
  if (fair_share == 0) return allocated > 0 ? std::numeric_limits<double>::infinity() : 0;
  if (fair_share == kUnlimited) return 0;
  return allocated / fair_share;
}

// FilterVictim (reclaimable/filter_victims.go): may `victim`'s queue give resources to the
// reclaimer, judged at the first level where their queue paths part.
bool reclaim_victim_allowed(const Session& ssn, const Shares& queues, const JobView& reclaimer,
                            const ResourceVec& request, QueueId victim_queue) {
  const auto [rl, vl] =
      leveled_queues(ssn.state.queue_tree, ssn.state.jobs[reclaimer.id].queue, victim_queue);
  if (!rl.valid() || !vl.valid()) return true;
  const QueueShares& v = queues[vl];
  if (!reclaimer_fits_deserved(queues[rl], request))
    return fits_maintain_fair_share(v, allocated_of(v));
  // canBeDeservedQuotaReclaimCandidate, over the resources the reclaimer asks for.
  const std::array<bool, 3> asked = involved(request);
  bool under_deserved = false;
  for (Resource r : kQuotaResources) {
    if (!asked[static_cast<std::size_t>(index_of(r))] || v[r].deserved == kUnlimited) continue;
    if (v[r].allocated > v[r].deserved) return true;
    if (v[r].allocated < v[r].deserved) under_deserved = true;
  }
  return !under_deserved;
}

// One reclaim scenario's verdict (reclaimable.go Reclaimable): every victim unit must keep the
// victim side above its fair share or take it from above its quota while the reclaimer is within
// quota, and the reclaimer side must not end more saturated than the siblings it took from.
// `queues` is the queue state cloned when this reclaimer's attempt started.
bool reclaim_scenario_valid(const Session& ssn, const Shares& queues, const JobView& reclaimer,
                            const ResourceVec& request,
                            const std::vector<std::pair<JobId, std::vector<TaskId>>>& victims) {
  const model::QueueTree& tree = ssn.state.queue_tree;
  const QueueId reclaimer_queue = ssn.state.jobs[reclaimer.id].queue;

  // Victim units per victim leaf queue: elastic pods one by one, then the core pods together;
  // pods that were only moved (active again) are not reclaimed (allow-consolidating-reclaim).
  std::map<std::string, std::vector<ResourceVec>> units_by_queue;  // leaf queue UID order
  std::map<std::string, QueueId> queue_by_uid;
  for (const auto& victim : victims) {
    const JobId job_id = victim.first;
    const auto& tasks =
        victim.second;  // a plain reference: lambdas cannot capture bindings in clang 14
    const model::Job& job = ssn.state.jobs[job_id];
    // splitVictimTasks: per PodSet, the first minAvailable victims (in victim order) are the core,
    // the rest elastic. KAI visits the PodSets in Go map order; kaisim in tree order.
    std::vector<TaskId> core, elastic;
    for (std::size_t p = 0; p < job.groups->pod_sets.size(); ++p) {
      std::int64_t taken = 0;
      for (TaskId t : tasks) {
        if (ssn.state.tasks[t].pod_set != static_cast<int>(p)) continue;
        (taken++ < job.groups->pod_sets[p].min_available ? core : elastic).push_back(t);
      }
    }
    std::vector<ResourceVec> units;
    auto add_unit = [&](const std::vector<TaskId>& unit) {
      ResourceVec sum = ResourceVec::Zero();
      bool any = false;
      for (TaskId id : unit) {
        const model::Task& t = ssn.state.tasks[id];
        if (ssn.config.allow_consolidating_reclaim && model::is_active_allocated(t.status))
          continue;
        sum += Session::quantify_accepted(t);
        any = true;
      }
      if (any) units.push_back(sum);
    };
    for (TaskId t : elastic) add_unit({t});
    add_unit(core);
    if (units.empty()) continue;
    auto& target = units_by_queue[tree.uid(job.queue)];
    target.insert(target.end(), units.begin(), units.end());
    queue_by_uid[tree.uid(job.queue)] = job.queue;
  }

  std::unordered_map<QueueId, ResourceVec> remaining;
  std::unordered_map<QueueId, std::array<bool, 3>> involved_by_queue;
  auto remaining_of = [&](QueueId q) -> ResourceVec& {
    auto it = remaining.find(q);
    if (it == remaining.end()) it = remaining.emplace(q, allocated_of(queues[q])).first;
    return it->second;
  };
  for (const auto& [uid, units] : units_by_queue) {
    const QueueId victim_queue = queue_by_uid[uid];
    const auto [rl, vl] = leveled_queues(tree, reclaimer_queue, victim_queue);
    std::array<bool, 3> names{false, false, false};
    for (const ResourceVec& u : units) {
      const auto n = involved(u);
      for (std::size_t i = 0; i < 3; ++i) names[i] = names[i] || n[i];
    }
    involved_by_queue[victim_queue] = names;
    for (const ResourceVec& unit : units) {
      const ResourceVec& left = remaining_of(vl);
      const bool maintain = fits_maintain_fair_share(queues[vl], left);
      const bool guarantee = reclaimer_fits_deserved(queues[rl], request) &&
                             !less_equal_quantities(left, deserved_of(queues[vl]));
      if (!maintain && !guarantee) return false;
      for (QueueId q = victim_queue; q.valid(); q = tree.parent(q)) {
        remaining_of(q) -= unit;
        auto& inv = involved_by_queue[q];
        for (std::size_t i = 0; i < 3; ++i) inv[i] = inv[i] || names[i];
      }
    }
  }

  // reclaimingQueuesRemainWithinBoundaries
  const std::array<bool, 3> reclaimer_names = involved(request);
  const model::Job& job = ssn.state.jobs[reclaimer.id];
  const double m = std::max(1.0, ssn.config.reclaimer_saturation_multiplier);
  for (QueueId x = reclaimer_queue; x.valid(); x = tree.parent(x)) {
    auto found = remaining.find(x);
    const ResourceVec with_request =
        (found != remaining.end() ? found->second : allocated_of(queues[x])) + request;
    for (const auto& [sibling, sibling_left] : remaining) {
      if (tree.parent(sibling) != tree.parent(x) || sibling == x) continue;
      std::array<bool, 3> names = involved_by_queue[sibling];
      for (std::size_t i = 0; i < 3; ++i) names[i] = names[i] || reclaimer_names[i];
      for (Resource r : kQuotaResources) {
        if (!names[static_cast<std::size_t>(index_of(r))]) continue;
        const double x_fair = queues[x][r].fair_share, s_fair = queues[sibling][r].fair_share;
        if (x_fair == kUnlimited && s_fair == kUnlimited) continue;
        const double rx = saturation(at(with_request, r), x_fair);
        const double rs = saturation(at(sibling_left, r), s_fair);
        if (rx > 1 && s_fair > 0 && rx * m >= rs) return false;
      }
    }
    if (!job.preemptible &&
        !less_equal_quantities(non_preemptible_of(queues[x]) + request, deserved_of(queues[x]))) {
      return false;
    }
  }
  return true;
}

// FilterVictim reads the victim job only for its queue: its verdicts for one reclaimer and
// request are kept per victim queue while no charge changes the queues (a reclaimer's victim
// queue asks it of every running job of the cluster).
class VictimQueueVerdicts {
 public:
  void queues_changed() { ++generation_; }

  bool allowed(const Session& ssn, const Shares& queues, const JobView& reclaimer,
               const ResourceVec& request, QueueId q) {
    if (!q.valid()) return reclaim_victim_allowed(ssn, queues, reclaimer, request, q);
    if (kept_at_ != generation_ || reclaimer_ != reclaimer.id || (request_ != request).any()) {
      kept_at_ = generation_;
      reclaimer_ = reclaimer.id;
      request_ = request;
      verdict_.assign(queues.size(), kUnknown);
    }
    std::int8_t& v = verdict_[q.index()];
    if (v == kUnknown) v = reclaim_victim_allowed(ssn, queues, reclaimer, request, q) ? 1 : 0;
    SIM_ASSERT((v == 1) == reclaim_victim_allowed(ssn, queues, reclaimer, request, q));
    return v == 1;
  }

 private:
  static constexpr std::int8_t kUnknown = -1;
  std::uint64_t generation_ = 0;
  std::uint64_t kept_at_ = ~std::uint64_t{0};
  JobId reclaimer_;
  ResourceVec request_ = ResourceVec::Zero();
  std::vector<std::int8_t> verdict_;  // by queue index
};

}  // namespace

// proportion.go OnSessionOpen: capacity, queue attributes, current usage, then fair share once.
// The pods' usage is summed exactly (pod_sums.hpp), where KAI adds in the order of its maps.
void ProportionPlugin::on_session_open(Session& ssn) {
  const model::OpenSums& sums = ssn.open_sums();
  total = sums.capacity;
  queues = proportion_queues(ssn.state, sums);
  SessionHooks& h = ssn.hooks;
  // AllocateFunc / DeallocateFunc: the task's accepted resources added to (or taken from) its
  // queue and every ancestor.
  auto verdicts = std::make_shared<VictimQueueVerdicts>();
  auto charge = [this, verdicts](const Session& s, const model::Task& task, double sign) {
    verdicts->queues_changed();
    const model::Job& job = s.state.jobs[task.job];
    const ResourceVec amount = Session::quantify_accepted(task);
    for (QueueId q = job.queue; q.valid(); q = s.state.queue_tree.parent(q)) {
      order_facts_[q.index()].valid = false;
      for (Resource r : kQuotaResources) {
        queues[q][r].allocated += sign * at(amount, r);
        if (!job.preemptible) queues[q][r].allocated_not_preemptible += sign * at(amount, r);
      }
    }
  };
  h.on_allocate.push_back([charge](Session& s, const model::Task& task) { charge(s, task, 1); });
  h.on_deallocate.push_back([charge](Session& s, const model::Task& task) { charge(s, task, -1); });
  order_facts_.assign(queues.size(), {});
  if (h.queue_order.empty()) {  // this order comes first: its first steps make the key
    h.queue_order_key = [this](const Session& s, QueueId q, const JobView* job) {
      QueueOrderFacts& f = facts(q);
      const JobSide side = cached_job_side(s, f, job);
      return QueueOrderKey{.over = f.over,
                           .starved = side.starved,
                           .priority = queues[q].priority,
                           .violates = side.violates,
                           .share = side.share,
                           .plain = f.plain};
    };
    h.queue_order_key_tie = [this](const Session&, QueueId l, QueueId r) {
      return queue_order_tail(queues[l], queues[r], facts(l), facts(r));
    };
  }
  h.queue_order.push_back([this](const Session& s, QueueId l, QueueId r, const JobView* lj,
                                 const JobView* rj, const std::vector<const JobView*>& lv,
                                 const std::vector<const JobView*>& rv) {
    return queue_order(s, queues, facts(l), facts(r), l, r, lj, rj, lv, rv);
  });
  h.job_over_capacity = [this](const Session& s, JobId job, const std::vector<TaskId>& tasks) {
    return sched::job_over_capacity(s, queues, job, tasks);
  };
  h.non_preemptible_over_quota = [this](const Session& s, JobId job,
                                        const std::vector<TaskId>& tasks) {
    return sched::non_preemptible_over_quota(s, queues, job, tasks);
  };
  h.task_on_node_over_capacity = [this](const Session& s, TaskId task, NodeId node) {
    return sched::task_on_node_over_capacity(s, queues, task, node);
  };
  h.can_reclaim_resources = [this](const Session& s, const JobView& job) {
    return sched::can_reclaim_resources(s, queues, job);
  };
  // OnJobSolutionStartFn: the reclaim validator judges against the queues as they were when the
  // victim search of this job started.
  h.on_job_solution_start.push_back([this](const Session&) { at_solution_start_ = queues; });
  h.reclaim_victim_filters.push_back([this, verdicts](const Session& s, const JobView& reclaimer,
                                                      const ResourceVec& request, JobId victim) {
    return verdicts->allowed(s, queues, reclaimer, request, s.state.jobs[victim].queue);
  });
  // The same verdict, of the victim's queue alone.
  h.reclaim_victim_queue_filters.push_back(
      [this, verdicts](const Session& s, const JobView& reclaimer, const ResourceVec& request,
                       QueueId victim_queue) {
        return verdicts->allowed(s, queues, reclaimer, request, victim_queue);
      });
  h.reclaim_scenario_validators.push_back([this](const Session& s, const Scenario& sc) {
    ResourceVec request = ResourceVec::Zero();
    for (TaskId t : sc.pending)
      request += request_quantities(s.state.tasks[t], s.state.min_node_gpu_memory_mib);
    return reclaim_scenario_valid(s, at_solution_start_, sc.preemptor, request, sc.victims());
  });
  h.invariants.push_back(
      [this](const Session& s, const InvariantContext& context, std::vector<std::string>& out) {
        check_queue_sums(s, context, out);
      });
}

QueueOrderFacts& ProportionPlugin::facts(QueueId q) {
  QueueOrderFacts& f = order_facts_[q.index()];
  if (!f.valid) f = queue_order_facts(queues[q], total);
  SIM_ASSERT(f.plain == dominant_share(share_divisors(queues[q], total), allocated_of(queues[q])));
  return f;
}

// What the plugin counts as allocated: placed pods, and pods pipelined this session (a pod
// already Pipelined when the session opened is not counted).
void ProportionPlugin::check_queue_sums(const Session& ssn, const InvariantContext& context,
                                        std::vector<std::string>& out) const {
  const model::ClusterState& state = ssn.state;
  IdVector<QueueId, ResourceVec> sums(state.queue_tree.size(), ResourceVec::Zero());
  for (const model::Task& t : state.tasks) {
    const bool pipelined_now = t.status == model::TaskStatus::PIPELINED &&
                               !(t.id.index() < context.pipelined_at_open.size() &&
                                 context.pipelined_at_open[t.id.index()]);
    if (!t.job.valid() || !(model::is_allocated(t.status) || pipelined_now)) continue;
    const model::Job& job = state.jobs[t.job];
    const ResourceVec amount = Session::quantify_accepted(t);
    for (QueueId q = job.queue; q.valid(); q = state.queue_tree.parent(q)) sums[q] += amount;
  }
  auto close = [](double a, double b) {
    return std::abs(a - b) <= 1e-6 * std::max({1.0, std::abs(a), std::abs(b)});
  };
  for (std::size_t i = 0; i < sums.size(); ++i) {
    const QueueId q(static_cast<QueueId::value_type>(i));
    for (Resource r : kQuotaResources) {
      const double drift = ssn.copy_drift.empty() ? 0.0 : at(ssn.copy_drift[q], r);
      if (!close(queues[q][r].allocated + drift, at(sums[q], r))) {
        out.push_back("queue " + state.queue_tree.uid(q) + ": allocated " +
                      std::string(resource_name(r)) + " " + std::to_string(queues[q][r].allocated) +
                      ", its pods hold " + std::to_string(at(sums[q], r)));
      }
    }
  }
}

IdVector<QueueId, fairshare::QueueShares> proportion_queues(const model::ClusterState& state,
                                                            const model::OpenSums& sums) {
  IdVector<QueueId, fairshare::QueueShares> queues = open_queue_attributes(state);
  for (std::size_t i = 0; i < queues.size(); ++i) {
    const QueueId q(static_cast<QueueId::value_type>(i));
    for (Resource r : kQuotaResources) {
      queues[q][r].request = at(sums.queues[q].request, r);
      queues[q][r].allocated = at(sums.queues[q].allocated, r);
      queues[q][r].allocated_not_preemptible = at(sums.queues[q].allocated_not_preemptible, r);
    }
  }
  fairshare::compute_fair_shares(state.queue_tree, queues, sums.capacity, state.config.k_value);
  return queues;
}

IdVector<QueueId, fairshare::QueueShares> open_queue_attributes(const model::ClusterState& state) {
  IdVector<QueueId, fairshare::QueueShares> queues(state.queue_tree.size());
  for (QueueId q : state.queue_tree.level_order()) {
    queues[q] = fairshare::shares_from_spec(state.queues[q]);
    // createQueueResourceAttrs: usage by queue UID (= metadata.name); missing means 0.
    auto usage = state.queue_usage.find(state.queue_tree.uid(q));
    if (usage == state.queue_usage.end()) continue;
    for (Resource r : kQuotaResources) queues[q][r].usage = at(usage->second, r);
  }
  return queues;
}

const IdVector<QueueId, fairshare::QueueShares>* queue_shares(const Session& ssn) {
  const ProportionPlugin* p = ssn.plugin<ProportionPlugin>();
  return p ? &p->queues : nullptr;
}

namespace plugins {
std::unique_ptr<Plugin> make_proportion(const model::PluginOption&) {
  return std::make_unique<ProportionPlugin>();
}
}  // namespace plugins

}  // namespace sim::sched
