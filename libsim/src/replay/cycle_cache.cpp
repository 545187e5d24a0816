#include "cycle_cache.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/snapshot_fields.hpp"
#include "kept_state_check.hpp"
#include "sim/sched/plugins/proportion.hpp"

namespace sim::replay {
namespace {

// Whether the cycle evicted and pipelined nothing and its outcome depends on the objects alone,
// not on the clock: usage history (fair share moves with time), min-runtime protection,
// stale-gang grace, or a Releasing pod that becomes stuck after 2 minutes (KAI's
// --stuck-in-releasing-threshold).
bool clock_free(const sched::Session& ssn, const Scenario& sc) {
  if (!ssn.pipelines.empty() || !ssn.evictions.empty() || sc.usage.enabled) return false;
  if (ssn.config.default_preempt_min_runtime_ns > 0 ||
      ssn.config.default_reclaim_min_runtime_ns > 0)
    return false;
  for (const model::QueueSpec& q : ssn.state.queues) {
    if (q.preempt_min_runtime_ms.value_or(0) > 0 || q.reclaim_min_runtime_ms.value_or(0) > 0)
      return false;
  }
  for (const model::Job& job : ssn.state.jobs) {
    if (job.stale_since_ns) return false;
  }
  for (const model::Task& t : ssn.state.tasks) {
    if (t.status == model::TaskStatus::RELEASING) return false;
  }
  return true;
}

// The pods changed since `kept` was kept (`pods`, and `gone`), read as an update of `kept` would
// read them, into the ledger. False when one is not a pod an update follows that way.
bool record_beside(const model::ClusterState& kept,
                   const std::vector<const io::ParsedObjects*>& pods,
                   const std::vector<std::string>& gone, QueueLedger& ledger,
                   Diagnostics& diagnostics) {
  std::vector<model::Task> read(pods.size());
  for (std::size_t i = 0; i < pods.size(); ++i) {
    if (!io::read_changed_pod(kept, *pods[i], read[i], diagnostics)) return false;
  }
  for (const model::Task& task : read) {
    if (!ledger.record(kept, task)) return false;
  }
  for (const std::string& pod : gone) ledger.forget(pod);
  return true;
}

// The pods an update of `state` changed or took out ("namespace/name"), into the ledger.
void record_touched(const model::ClusterState& state, const std::vector<std::string>& touched,
                    QueueLedger& ledger) {
  for (const std::string& pod : touched) {
    const std::size_t slash = pod.find('/');
    const TaskId id = io::find_task(state, std::string_view(pod).substr(0, slash),
                                    std::string_view(pod).substr(slash + 1));
    if (!id.valid()) {
      ledger.forget(pod);
    } else if (!ledger.record(state, state.tasks[id])) {
      ledger.rebuild(state);
      return;
    }
  }
}

// The state a full cycle starts from: the world's objects with the scenario's scheduler settings.
model::ClusterState cycle_input(World& world, std::int64_t now, const Scenario& sc, Diagnostics& d,
                                bool aside = false) {
  model::ClusterState state = aside ? world.snapshot_aside(now, d) : world.snapshot(now, d);
  state.config = sc.scheduler;
  state.config.k_value = sc.k_value;
  return state;
}

#ifndef NDEBUG
// Debug and sanitizer builds prove each cycle on a kept state against a new snapshot.
void check_kept(const model::ClusterState& kept,
                const IdVector<QueueId, fairshare::QueueShares>* light, World& world,
                std::int64_t now, const Scenario& sc) {
  Diagnostics ignored;
  model::ClusterState fresh = cycle_input(world, now, sc, ignored, /*aside=*/true);
  check_kept_state(kept, fresh, light);
  world.recycle(std::move(fresh));
}

// And each cycle that only recomputes the fair share: on `kept` brought up to date (`updated`),
// or with the pods changed since read into the ledger beside it.
void check_without_cycle(const model::ClusterState& kept, bool updated, const QueueLedger& ledger,
                         const IdVector<QueueId, fairshare::QueueShares>& queues, World& world,
                         std::int64_t now, const Scenario& sc) {
  Diagnostics ignored;
  model::ClusterState fresh = cycle_input(world, now, sc, ignored, /*aside=*/true);
  check_ledger(ledger, fresh);
  if (updated) {
    world.recycle(std::move(fresh));
    check_kept(kept, &queues, world, now, sc);
    return;
  }
  check_queues_without_cycle(fresh, queues);
  world.recycle(std::move(fresh));
}
#endif

}  // namespace

CycleCache::Kind CycleCache::plan(World& world, std::int64_t now, Diagnostics& per_cycle) {
  current_ = beside_ = false;
  if (repeatable_version_ == world.version()) return Kind::REPEAT;
  if (kept_ && settled_version_ == world.quiet_version()) {
    // No bare pod arrived, so nothing is pending: kept_ can wait for the next full cycle.
    std::vector<const io::ParsedObjects*> pods;
    std::vector<std::string> gone;
    beside_ = world.recent_pod_changes(pods, gone, per_cycle) &&
              record_beside(*kept_, pods, gone, ledger_, per_cycle);
    if (!gone.empty()) kept_sampled_ = false;
  }
  if (kept_ && !beside_) {
    bool moved = false;  // pods came or went: the fair share moves
    std::vector<std::string> touched;
    current_ = settled_version_ == world.quiet_version() &&
               world.update_snapshot(*kept_, now, moved, touched, per_cycle);
    if (current_) {
      record_touched(*kept_, touched, ledger_);
    } else {
      world.recycle(std::move(*kept_));
      kept_.reset();
    }
    if (moved) kept_sampled_ = false;
  }
  const bool pending = current_ && ledger_.any_pending();
  if ((current_ || beside_) && !pending)
    return kept_sampled_ ? Kind::SAME_SAMPLE : Kind::FAIR_SHARE_ONLY;
  return Kind::FULL;
}

IdVector<QueueId, fairshare::QueueShares> CycleCache::fair_share(
    [[maybe_unused]] World& world, [[maybe_unused]] std::int64_t now) {
  // The proportion plugin's attributes still move with pods bound last cycle (their request now
  // counts as what they received) and pods that finished.
  IdVector<QueueId, fairshare::QueueShares> queues =
      sched::proportion_queues(*kept_, ledger_.open_sums(*kept_));
#ifndef NDEBUG
  check_without_cycle(*kept_, current_, ledger_, queues, world, now, sc_);
#endif
  kept_sampled_ = true;
  return queues;
}

model::ClusterState CycleCache::full_state(World& world, std::int64_t now, Diagnostics& per_cycle) {
  model::ClusterState state =
      current_ ? std::move(*kept_) : cycle_input(world, now, sc_, per_cycle);
  kept_.reset();
  if (!current_) ledger_.rebuild(state);
#ifndef NDEBUG
  if (current_) {
    check_kept(state, nullptr, world, now, sc_);
    check_ledger(ledger_, state);
  }
#endif
  state.open_sums = ledger_.open_sums(state);
  return state;
}

void CycleCache::record(const sched::Session& ssn) {
  std::vector<TaskId> changed;
  for (const sched::BindDecision& b : ssn.binds) changed.push_back(b.task);
  for (const sched::PipelineDecision& p : ssn.pipelines) changed.push_back(p.task);
  for (const sched::EvictionDecision& e : ssn.evictions) changed.push_back(e.task);
  for (TaskId id : changed) {
    if (!ledger_.record(ssn.state, ssn.state.tasks[id])) {
      ledger_.rebuild(ssn.state);
      break;
    }
  }
#ifndef NDEBUG
  check_ledger(ledger_, ssn.state);
#endif
}

bool CycleCache::observe(const sched::Session& ssn, model::ClusterState& state) {
  const bool clock_free_cycle = clock_free(ssn, sc_);
  repeats_ = clock_free_cycle && ssn.binds.empty();  // deciding nothing, it decides nothing again
  // Calm: a clock-free cycle left no pod pending (binds are its only decisions). Until an object
  // changes, no action has anything to do, and bound pods that start running change nothing; the
  // fair share can still move (a bound pod's request now counts as what it received). Claims are
  // written back and released by the World, which an update would have to repeat.
  calm_ = clock_free_cycle && ssn.state.claims.empty() && !ledger_.any_pending();
  bound_ = !ssn.binds.empty();
  if (calm_) state.jobs_by_name = ssn.jobs_by_name();  // the jobs stay as they are until an update
  return repeats_;
}

void CycleCache::keep(model::ClusterState&& state, World& world) {
  repeatable_version_ = repeats_ && enabled_ ? world.version() : kNoVersion;
  settled_version_ = calm_ && enabled_ ? world.quiet_version() : kNoVersion;
  if (calm_ && enabled_ && (current_ || io::updatable(state))) {  // an update keeps it updatable
    kept_ = std::move(state);
    kept_sampled_ = !bound_;
  } else {
    world.recycle(std::move(state));
  }
}

}  // namespace sim::replay
