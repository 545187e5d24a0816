// The replay loop: virtual time in milliseconds; at each instant, in this order, pods finish
// terminating or binding, the scenario's steps apply, a scheduling cycle runs (every
// schedulePeriod), and expectations are checked.

#include "sim/api/replay.hpp"

#include <algorithm>
#include <chrono>
#include <iostream>

#include "api/pending_reasons.hpp"
#include "io/snapshot_fields.hpp"
#include "replay/cycle_cache.hpp"
#include "replay/generators.hpp"
#include "replay/metrics.hpp"
#include "replay/pending_reasons.hpp"
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
using replay::PodEventType;

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

// One replay as it runs: the world, what watches it (metrics, Queue.status, stop rules, pending
// reasons, usage history) and where the loop is in the scenario's steps and expectations.
class Run {
 public:
  Run(const replay::Scenario& sc, const ReplayOptions& options)
      : sc_(sc),
        options_(options),
        world_(sc.grace_ms),
        usage_db_(sc.usage),
        stop_rules_(options.stop_rules, sc),
        cache_(sc, options.reuse_unchanged_cycles),
        period_s_(static_cast<double>(sc.period_ms) / 1000.0),
        expectations_(sc.expectations),
        end_(sc.duration_ms) {
    std::stable_sort(expectations_.begin(), expectations_.end(),
                     [](const auto& a, const auto& b) { return a.at_ms < b.at_ms; });
    progress_.end_ms = sc.duration_ms;
  }

  ReplayResult run() {
    for (const replay::Manifest& m : sc_.manifests) world_.apply(m, 0, events_);
    auto next_report = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
    std::int64_t now = 0;
    while (now <= end_) {
      if (options_.poll && options_.poll())
        throw Error(ErrorCode::INTERRUPTED, "replay interrupted");
      world_.advance(now, events_);
      apply_steps(now);
      const bool cycle = now == next_cycle_;
      if (cycle) run_cycle(now);
      observe_events();
      status_view_.sample(world_, now);
      check_expectations(now);
      if (now == end_) break;
      if (cycle && !options_.stop_rules.empty()) {
        result_.stopped_by = stop_rules_.reached(now);
        if (!result_.stopped_by.empty()) {
          result_.stopped_at_ms = now;
          end_ = now;
          break;
        }
      }
      if (options_.progress && std::chrono::steady_clock::now() >= next_report) {
        progress_.now_ms = now;
        progress_.cycles = result_.cycles;
        options_.progress(progress_);
        next_report = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
      }
      now = next_instant(now);
    }
    return finish();
  }

 private:
  // The scenario's steps due now, in order.
  void apply_steps(std::int64_t now) {
    while (next_step_ < sc_.steps.size() && sc_.steps[next_step_].at_ms == now) {
      const replay::Step& step = sc_.steps[next_step_++];
      for (const replay::ObjectRef& r : step.remove) world_.remove(r, now, events_);
      for (const replay::Manifest& m : step.apply) world_.apply(m, now, events_);
      if (!only_pods(step)) status_view_.touch_all();
      for (const replay::PodShape& pod : step.pods) world_.apply(pod, step.pods_file, now, events_);
    }
  }

  // A scheduling cycle, or what stands for it when the cache knows its outcome.
  void run_cycle(std::int64_t now) {
    using Kind = replay::CycleCache::Kind;
    const Kind kind = cache_.plan(world_, now, per_cycle_);
    bool repeats = true;
    if (kind == Kind::REPEAT || kind == Kind::SAME_SAMPLE) {
      metrics_.repeat(now);
      if (options_.pending_reasons) {
        if (kind == Kind::SAME_SAMPLE) pending_reasons_.clear();
        pending_reasons_.hold(period_s_);
      }
      ++result_.cycles_reused;
    } else if (kind == Kind::FAIR_SHARE_ONLY) {
      const IdVector<QueueId, fairshare::QueueShares> queues = cache_.fair_share(world_, now);
      metrics_.sample(cache_.kept(), cache_.ledger(), queues, now);
      if (options_.pending_reasons) pending_reasons_.clear();
      metrics_.end_cycle_waits();
      ++result_.cycles_fair_share_only;
    } else {
      repeats = full_cycle(now);
      if (cache_.updated()) ++result_.cycles_updated;
    }
    ++result_.cycles;
    next_cycle_ += sc_.period_ms;
    if (drained(repeats)) end_ = now;
  }

  // The actions run; true when the outcome repeats until an object changes.
  bool full_cycle(std::int64_t now) {
    model::ClusterState state = cache_.full_state(world_, now, per_cycle_);
    if (sc_.usage.enabled) state.queue_usage = usage_db_.usage(now);
    bool repeats = false;
    {
      sched::Session ssn = sched::run_cycle(state);
      world_.apply_decisions(ssn, now, sc_.bind_delay_ms, events_);
      cache_.record(ssn);
      observe_events();
      record_waits(ssn, now, metrics_);
      metrics_.end_cycle_waits();
      metrics_.sample(ssn.state, cache_.ledger(), *sched::queue_shares(ssn), now);
      if (options_.pending_reasons) {
        pending_reasons_.observe(ssn);
        pending_reasons_.hold(period_s_);
      }
      if (sc_.usage.enabled)
        usage_db_.observe(now, metrics_.allocated_by_queue(), node_capacity(ssn.state));
      repeats = cache_.observe(ssn, state);
    }
    cache_.keep(std::move(state), world_);
    return repeats;
  }

  // The pod events so far, to everything that watches them.
  void observe_events() {
    for (const replay::PodEvent& e : events_) {
      if (e.type == PodEventType::SUBMIT) ++progress_.pods_submitted;
      if (e.type == PodEventType::COMPLETE || e.type == PodEventType::GONE ||
          e.type == PodEventType::LOST)
        ++progress_.pods_done;
    }
    status_view_.touch(events_);
    metrics_.record_events(events_);
    stop_rules_.record(events_);
    events_.clear();
  }

  void check_expectations(std::int64_t now) {
    while (next_expect_ < expectations_.size() && expectations_[next_expect_].at_ms == now) {
      if (options_.check) check(expectations_[next_expect_], world_, metrics_, result_);
      ++next_expect_;
    }
  }

  // Drained: no step left, and no pod left or only pods no cycle will ever place (the cycle's
  // outcome repeats and no timer is left to change the cluster).
  bool drained(bool repeats) const {
    return sc_.end_when_drained && next_step_ == sc_.steps.size() &&
           (!world_.has_pods() || (repeats && world_.next_due() < 0));
  }

  // The next instant something happens: a cycle, a step, an expectation or a world timer.
  std::int64_t next_instant(std::int64_t now) const {
    std::int64_t next = next_cycle_;
    if (next_step_ < sc_.steps.size()) next = std::min(next, sc_.steps[next_step_].at_ms);
    if (next_expect_ < expectations_.size())
      next = std::min(next, expectations_[next_expect_].at_ms);
    const std::int64_t due = world_.next_due();
    if (due >= 0) next = std::min(next, std::max(due, now + 1));
    return next <= now ? now + 1 : next;
  }

  ReplayResult finish() {
    if (options_.progress) {
      progress_.now_ms = end_;
      progress_.end_ms = end_;
      progress_.cycles = result_.cycles;
      progress_.finished = true;
      options_.progress(progress_);
    }
    for (; next_expect_ < expectations_.size(); ++next_expect_) {
      result_.failures.push_back(
          {expectations_[next_expect_].at_ms,
           "expectation is after the end of the replay (" + fmt_s(end_) + ")"});
    }
    metrics_.finish(end_);
    result_.summary_table = metrics_.summary_table(sc_.name, result_.cycles, result_.cycles_reused,
                                                   result_.cycles_fair_share_only, end_);
    result_.outputs = {{"timeline.csv", metrics_.timeline_csv()},
                       {"kai-timeline.csv", metrics_.kai_timeline_csv()},
                       {"cluster.csv", metrics_.cluster_csv()},
                       {"events.jsonl", metrics_.events_jsonl()},
                       {"queue-status.csv", status_view_.csv()},
                       {"summary.json", metrics_.summary_json(sc_.name, result_.cycles, end_)}};
    for (const auto& [at_ms, queues] : status_view_.history())
      result_.queue_status.push_back({at_ms, queues});
    if (options_.pending_reasons) result_.pending_reasons = pending_reasons_.totals();
    if (!options_.out_dir.empty()) {
      result_.output_notes =
          io::write_output_folder(options_.out_dir, result_.outputs, "replay").notes();
    }
    return std::move(result_);
  }

  const replay::Scenario& sc_;
  const ReplayOptions& options_;
  replay::World world_;
  Metrics metrics_;
  replay::UsageDb usage_db_;
  replay::PendingReasons pending_reasons_;
  StopRules stop_rules_;
  replay::QueueStatusView status_view_;  // Queue.status as KAI's controllers write it
  replay::CycleCache cache_;
  const double period_s_;
  std::vector<replay::Expectation> expectations_;  // by time
  ReplayResult result_;
  ReplayProgress progress_;
  std::vector<replay::PodEvent> events_;
  Diagnostics per_cycle_;  // the same objects again every cycle: their warnings were given once
  std::size_t next_step_ = 0, next_expect_ = 0;
  std::int64_t next_cycle_ = 0;
  std::int64_t end_;
};

}  // namespace

ReplayResult run_replay(const ReplayOptions& options, Diagnostics& diagnostics) {
  const replay::Scenario sc =
      options.scenario_text.empty()
          ? replay::load_scenario(options.scenario_path, diagnostics)
          : replay::load_scenario_text(options.scenario_text, options.scenario_path,
                                       options.base_dir, diagnostics);
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
  if (options.validate_only) return {};
  return Run(sc, options).run();
}

}  // namespace sim::api
