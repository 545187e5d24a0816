// The replay loop: virtual time in milliseconds; at each instant, in this order, pods finish
// terminating or binding, the scenario's steps apply, a scheduling cycle runs (every
// schedulePeriod), and expectations are checked.

#include "sim/api/replay.hpp"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <optional>
#include <string_view>

#include "api/pending_reasons.hpp"
#include "io/snapshot_fields.hpp"
#include "replay/generators.hpp"
#include "replay/kept_state_check.hpp"
#include "replay/metrics.hpp"
#include "replay/pending_reasons.hpp"
#include "replay/queue_ledger.hpp"
#include "replay/queue_status_view.hpp"
#include "replay/scenario.hpp"
#include "replay/world.hpp"
#include "sim/core/assert.hpp"
#include "sim/core/go_json.hpp"
#include "sim/io/output_folder.hpp"
#include "sim/sched/cycle.hpp"
#include "sim/sched/framework/session.hpp"
#include "sim/sched/plugins/proportion.hpp"
#include "stop_rules.hpp"

namespace sim::api {
namespace {

using replay::Metrics;

std::string fmt_s(std::int64_t ms) {
  return go_json_number(static_cast<double>(ms) / 1000.0) + "s";
}

void check(const replay::Expectation& e, const replay::World& world, const Metrics& metrics,
           ReplayResult& result) {
  for (const replay::QueueExpectation& q : e.queues) {
    ++result.expectations_checked;
    const double got = metrics.allocated_gpu(q.queue);
    if (std::abs(got - q.allocated_gpu) > 1e-9) {
      result.failures.push_back({e.at_ms, "queue " + q.queue + " allocated GPU is " +
                                              go_json_number(got) + ", want " +
                                              go_json_number(q.allocated_gpu)});
    }
  }
  for (const auto& [pod, want] : e.pods) {
    ++result.expectations_checked;
    const std::string got = world.pod_phase(pod);
    if (got != want)
      result.failures.push_back({e.at_ms, "pod " + pod + " is " + got + ", want " + want});
  }
  for (const std::string& pod : e.evicted) {
    ++result.expectations_checked;
    if (!metrics.evicted(pod, e.at_ms))
      result.failures.push_back({e.at_ms, "pod " + pod + " was not evicted"});
  }
  for (const auto& [pod, want] : e.nodes) {
    ++result.expectations_checked;
    const std::string got = world.pod_node(pod);
    if (got != want) {
      result.failures.push_back({e.at_ms, "pod " + pod + " is on " +
                                              (got.empty() ? "no node" : "node " + got) +
                                              ", want " + want});
    }
  }
}

// kube_node_status_capacity summed over every node Prometheus sees: no Ready or scheduler filter.
ResourceVec node_capacity(const model::ClusterState& state) {
  ResourceVec total = ResourceVec::Zero();
  for (const model::Node& n : state.nodes) total += n.allocatable;
  return total;
}

// Whether the cycle evicted and pipelined nothing and its outcome depends on the objects alone,
// not on the clock: usage history (fair share moves with time), min-runtime protection,
// stale-gang grace, or a Releasing pod that becomes stuck after 2 minutes (KAI's
// --stuck-in-releasing-threshold).
bool clock_free(const sched::Session& ssn, const replay::Scenario& sc) {
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
                   const std::vector<std::string>& gone, replay::QueueLedger& ledger,
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
                    replay::QueueLedger& ledger) {
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

// The pods a cycle's decisions changed, into the ledger.
void record_decisions(const sched::Session& ssn, replay::QueueLedger& ledger) {
  std::vector<TaskId> changed;
  for (const sched::BindDecision& b : ssn.binds) changed.push_back(b.task);
  for (const sched::PipelineDecision& p : ssn.pipelines) changed.push_back(p.task);
  for (const sched::EvictionDecision& e : ssn.evictions) changed.push_back(e.task);
  for (TaskId id : changed) {
    if (!ledger.record(ssn.state, ssn.state.tasks[id])) {
      ledger.rebuild(ssn.state);
      return;
    }
  }
}

// The state a full cycle starts from: the world's objects with the scenario's scheduler settings.
// (Usage history, when on, is added by the caller, which owns the usage database.)
model::ClusterState cycle_input(replay::World& world, std::int64_t now, const replay::Scenario& sc,
                                Diagnostics& d) {
  model::ClusterState state = world.snapshot(now, d);
  state.config = sc.scheduler;
  state.config.k_value = sc.k_value;
  return state;
}

#ifndef NDEBUG
// Debug and sanitizer builds prove each cycle on a kept state against a new snapshot.
void check_kept(const model::ClusterState& kept,
                const IdVector<QueueId, fairshare::QueueShares>* light, replay::World& world,
                std::int64_t now, const replay::Scenario& sc) {
  Diagnostics ignored;
  model::ClusterState fresh = world.snapshot_aside(now, ignored);
  fresh.config = sc.scheduler;
  fresh.config.k_value = sc.k_value;
  replay::check_kept_state(kept, fresh, light);
  world.recycle(std::move(fresh));
}

// And each cycle that only recomputes the fair share: on `kept` brought up to date (`updated`),
// or with the pods changed since read into the ledger beside it.
void check_without_cycle(const model::ClusterState& kept, bool updated,
                         const replay::QueueLedger& ledger,
                         const IdVector<QueueId, fairshare::QueueShares>& queues,
                         replay::World& world, std::int64_t now, const replay::Scenario& sc) {
  Diagnostics ignored;
  model::ClusterState fresh = world.snapshot_aside(now, ignored);
  fresh.config = sc.scheduler;
  fresh.config.k_value = sc.k_value;
  replay::check_ledger(ledger, fresh);
  if (updated) {
    world.recycle(std::move(fresh));
    check_kept(kept, &queues, world, now, sc);
    return;
  }
  replay::check_queues_without_cycle(fresh, queues);
  world.recycle(std::move(fresh));
}
#endif

// A step that changes nothing but pods: the Queue.status view recounts only the pods it touched.
bool only_pods(const replay::Step& step) {
  for (const replay::ObjectRef& r : step.remove) {
    if (r.kind != "Pod") return false;
  }
  for (const replay::Manifest& m : step.apply) {
    if (!m.doc["kind"].IsDefined() || m.doc["kind"].Scalar() != "Pod") return false;
  }
  return true;
}

// Why each pod still pending after the cycle waits: its job's first reason, typed.
void record_waits(const sched::Session& ssn, std::int64_t now, Metrics& metrics) {
  static const sched::WaitReason kUntried = [] {
    sched::WaitReason why;
    why.message = "no reason recorded: no action tried the job this cycle";
    return why;
  }();
  for (const PendingJob& p : pending_jobs(ssn)) {
    const model::Job& job = ssn.state.jobs[p.job];
    const sched::WaitReason& why = p.reasons.empty() ? kUntried : p.reasons.front();
    for (TaskId t : job.tasks) {
      const model::Task& task = ssn.state.tasks[t];
      if (task.status == model::TaskStatus::PENDING)
        metrics.record_wait(now, task.key(), job.queue_name, why);
    }
  }
}

void validate(const std::vector<replay::Manifest>& manifests, Diagnostics& diagnostics) {
  std::vector<io::Field> docs;
  for (const replay::Manifest& m : manifests) docs.emplace_back(m.doc, "", &m.file);
  (void)io::build_cluster_state(docs, {}, diagnostics);
}

}  // namespace

ReplayResult run_replay(const ReplayOptions& options, Diagnostics& diagnostics) {
  const replay::Scenario sc =
      options.scenario_text.empty()
          ? replay::load_scenario(options.scenario_path, diagnostics)
          : replay::load_scenario_text(options.scenario_text, options.scenario_path,
                                       options.base_dir, diagnostics);
  replay::World world(sc.grace_ms);
  Metrics metrics;
  replay::UsageDb usage_db(sc.usage);
  ReplayResult result;
  replay::PendingReasons pending_reasons;
  StopRules stop_rules(options.stop_rules, sc);
  const double period_s = static_cast<double>(sc.period_ms) / 1000.0;
  ReplayProgress progress;
  progress.end_ms = sc.duration_ms;
  auto next_report = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
  // Pods submitted and done, from the events before the metrics take them.
  auto count_pods = [&progress](const std::vector<replay::PodEvent>& evs) {
    for (const replay::PodEvent& e : evs) {
      if (e.type == "submit") ++progress.pods_submitted;
      if (e.type == "complete" || e.type == "gone" || e.type == "lost") ++progress.pods_done;
    }
  };

  // Every manifest is checked once, up front and with its own line numbers (the world holds
  // copies, which lose them): a bad field fails the run before anything is written.
  validate(sc.manifests, diagnostics);
  for (const replay::Step& step : sc.steps) {
    // A step's objects may refer to objects that exist by then (a Queue's parent, a
    // PriorityClass): keep only the findings about the step's own fields.
    Diagnostics step_diagnostics;
    step_diagnostics.strict = diagnostics.strict;
    validate(step.apply, step_diagnostics);
    for (const std::string& w : step_diagnostics.warnings) {
      if (w.find("unknown field") != std::string::npos) diagnostics.warnings.push_back(w);
    }
  }
  if (options.validate_only) return result;
  Diagnostics per_cycle;  // the same objects again every cycle: their warnings were given above

  std::vector<replay::PodEvent> events;
  for (const replay::Manifest& m : sc.manifests) world.apply(m, 0, events);
  // Queue.status as KAI's controllers write it, beside the scheduler's view of the timeline.
  replay::QueueStatusView status_view;

  std::size_t next_step = 0, next_expect = 0;
  std::vector<replay::Expectation> expectations = sc.expectations;
  std::stable_sort(expectations.begin(), expectations.end(),
                   [](const auto& a, const auto& b) { return a.at_ms < b.at_ms; });
  std::int64_t next_cycle = 0;
  std::int64_t now = 0;
  std::int64_t end = sc.duration_ms;
  constexpr std::uint64_t kNoVersion = ~std::uint64_t{0};
  std::uint64_t repeatable_version =
      kNoVersion;  // world version after a cycle whose outcome repeats
  std::uint64_t settled_version =
      kNoVersion;  // quiet version after a cycle that left nothing pending
  // While settled: the state that cycle left, which later cycles bring up to date
  // (World::update_snapshot) instead of taking a new snapshot.
  std::optional<model::ClusterState> kept;
  bool kept_sampled =
      false;  // the latest sample is of `kept`, with the pods changed since, as it is
  // Every pod's part of a cycle's sums: those of the latest cycle's state after its decisions,
  // then of `kept` with the pods changed since (read beside it until the next full cycle
  // brings it up to date).
  replay::QueueLedger ledger;
  // Drained: no step left, and no pod left or only pods no cycle will ever place (the cycle's
  // outcome repeats and no timer is left to change the cluster).
  auto drained = [&](bool repeats) {
    return sc.end_when_drained && next_step == sc.steps.size() &&
           (!world.has_pods() || (repeats && world.next_due() < 0));
  };
  while (now <= end) {
    if (options.poll && options.poll()) throw Error(ErrorCode::INTERRUPTED, "replay interrupted");
    world.advance(now, events);
    while (next_step < sc.steps.size() && sc.steps[next_step].at_ms == now) {
      const replay::Step& step = sc.steps[next_step++];
      for (const replay::ObjectRef& r : step.remove) world.remove(r, now, events);
      for (const replay::Manifest& m : step.apply) world.apply(m, now, events);
      if (!only_pods(step)) status_view.touch_all();
      for (const replay::PodShape& pod : step.pods)
        world.apply({replay::bare_pod_manifest(pod), step.pods_file}, now, events);
    }
    const bool cycle = now == next_cycle;
    const bool unchanged = cycle && repeatable_version == world.version();
    bool current = false;  // `kept` is this cycle's state
    bool beside = false;   // `kept` with the pods changed since, read into the ledger, is
    if (cycle && !unchanged && kept && settled_version == world.quiet_version()) {
      // No bare pod arrived, so nothing is pending: `kept` can wait for the next full cycle.
      std::vector<const io::ParsedObjects*> pods;
      std::vector<std::string> gone;
      beside = world.recent_pod_changes(pods, gone, per_cycle) &&
               record_beside(*kept, pods, gone, ledger, per_cycle);
      if (!gone.empty()) kept_sampled = false;
    }
    if (cycle && !unchanged && kept && !beside) {
      bool moved = false;  // pods came or went: the fair share moves
      std::vector<std::string> touched;
      current = settled_version == world.quiet_version() &&
                world.update_snapshot(*kept, now, moved, touched, per_cycle);
      if (current) {
        record_touched(*kept, touched, ledger);
      } else {
        world.recycle(std::move(*kept));
        kept.reset();
      }
      if (moved) kept_sampled = false;
    }
    const bool pending = current && ledger.any_pending();
    if (unchanged || ((current || beside) && !pending && kept_sampled)) {
      metrics.repeat(
          now);  // nothing changed since a cycle that decided nothing, or nothing that matters
      if (options.pending_reasons) {
        if (!unchanged) pending_reasons.clear();
        pending_reasons.hold(period_s);
      }
      ++result.cycles;
      ++result.cycles_reused;
      next_cycle += sc.period_ms;
      if (drained(true)) end = now;
    } else if ((current || beside) && !pending) {
      // Nothing is pending, so the actions have nothing to do; the proportion plugin's
      // attributes still move with pods bound last cycle (their request now counts as what they
      // received) and pods that finished.
      const IdVector<QueueId, fairshare::QueueShares> queues =
          sched::proportion_queues(*kept, ledger.open_sums(*kept));
#ifndef NDEBUG
      check_without_cycle(*kept, current, ledger, queues, world, now, sc);
#endif
      metrics.sample(*kept, ledger, queues, now);
      if (options.pending_reasons) pending_reasons.clear();
      metrics.end_cycle_waits();
      kept_sampled = true;
      ++result.cycles;
      ++result.cycles_fair_share_only;
      next_cycle += sc.period_ms;
      if (drained(true)) end = now;
    } else if (cycle) {
      model::ClusterState state =
          current ? std::move(*kept) : cycle_input(world, now, sc, per_cycle);
      kept.reset();
      if (!current) ledger.rebuild(state);
#ifndef NDEBUG
      if (current) {
        check_kept(state, nullptr, world, now, sc);
        replay::check_ledger(ledger, state);
      }
#endif
      if (sc.usage.enabled) state.queue_usage = usage_db.usage(now);
      state.open_sums = ledger.open_sums(state);
      bool repeats = false, calm = false, bound = false;  // set while the session lives
      {
        sched::Session ssn = sched::run_cycle(state);
        world.apply_decisions(ssn, now, sc.bind_delay_ms, events);
        count_pods(events);
        record_decisions(ssn, ledger);
#ifndef NDEBUG
        replay::check_ledger(ledger, ssn.state);
#endif
        status_view.touch(events);
        metrics.record_events(events);
        stop_rules.record(events);
        events.clear();
        record_waits(ssn, now, metrics);
        metrics.end_cycle_waits();
        metrics.sample(ssn.state, ledger, *sched::queue_shares(ssn), now);
        if (options.pending_reasons) {
          pending_reasons.observe(ssn);
          pending_reasons.hold(period_s);
        }
        if (sc.usage.enabled)
          usage_db.observe(now, metrics.allocated_by_queue(), node_capacity(ssn.state));
        const bool clock_free_cycle = clock_free(ssn, sc);
        repeats =
            clock_free_cycle && ssn.binds.empty();  // deciding nothing, it decides nothing again
        // Calm: a clock-free cycle left no pod pending (binds are its only decisions). Until an
        // object changes, no action has anything to do, and bound pods that start running change
        // nothing; the fair share can still move (a bound pod's request now counts as what it
        // received). Claims are written back and released by the World, which an update would
        // have to repeat.
        calm = clock_free_cycle && ssn.state.claims.empty() && !ledger.any_pending();
        bound = !ssn.binds.empty();
        if (calm)
          state.jobs_by_name = ssn.jobs_by_name();  // the jobs stay as they are until an update
      }
      const bool reuse = options.reuse_unchanged_cycles;
      repeatable_version = repeats && reuse ? world.version() : kNoVersion;
      settled_version = calm && reuse ? world.quiet_version() : kNoVersion;
      if (calm && reuse &&
          (current || io::updatable(state))) {  // an update keeps the state updatable
        kept = std::move(state);
        kept_sampled = !bound;
      } else {
        world.recycle(std::move(state));
      }
      ++result.cycles;
      if (current) ++result.cycles_updated;
      next_cycle += sc.period_ms;
      if (drained(repeats)) end = now;
    }
    status_view.touch(events);
    count_pods(events);
    metrics.record_events(events);
    stop_rules.record(events);
    events.clear();
    status_view.sample(world, now);
    while (next_expect < expectations.size() && expectations[next_expect].at_ms == now) {
      if (options.check) check(expectations[next_expect], world, metrics, result);
      ++next_expect;
    }
    if (now == end) break;
    if (cycle && !options.stop_rules.empty()) {
      result.stopped_by = stop_rules.reached(now);
      if (!result.stopped_by.empty()) {
        result.stopped_at_ms = now;
        end = now;
        break;
      }
    }
    if (options.progress && std::chrono::steady_clock::now() >= next_report) {
      progress.now_ms = now;
      progress.cycles = result.cycles;
      options.progress(progress);
      next_report = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
    }
    std::int64_t next = next_cycle;
    if (next_step < sc.steps.size()) next = std::min(next, sc.steps[next_step].at_ms);
    if (next_expect < expectations.size()) next = std::min(next, expectations[next_expect].at_ms);
    const std::int64_t due = world.next_due();
    if (due >= 0) next = std::min(next, std::max(due, now + 1));
    if (next <= now) next = now + 1;
    now = next;
  }
  if (options.progress) {
    progress.now_ms = end;
    progress.end_ms = end;
    progress.cycles = result.cycles;
    progress.finished = true;
    options.progress(progress);
  }
  for (; next_expect < expectations.size(); ++next_expect) {
    result.failures.push_back({expectations[next_expect].at_ms,
                               "expectation is after the end of the replay (" + fmt_s(end) + ")"});
  }
  metrics.finish(end);
  result.summary_table = metrics.summary_table(sc.name, result.cycles, result.cycles_reused,
                                               result.cycles_fair_share_only, end);
  result.outputs = {{"timeline.csv", metrics.timeline_csv()},
                    {"kai-timeline.csv", metrics.kai_timeline_csv()},
                    {"cluster.csv", metrics.cluster_csv()},
                    {"events.jsonl", metrics.events_jsonl()},
                    {"queue-status.csv", status_view.csv()},
                    {"summary.json", metrics.summary_json(sc.name, result.cycles, end)}};
  for (const auto& [at_ms, queues] : status_view.history())
    result.queue_status.push_back({at_ms, queues});
  if (options.pending_reasons) result.pending_reasons = pending_reasons.totals();
  if (!options.out_dir.empty()) {
    result.output_notes =
        io::write_output_folder(options.out_dir, result.outputs, "replay").notes();
  }
  return result;
}

}  // namespace sim::api
