// The replay loop: virtual time in milliseconds; at each instant, in this order, pods finish
// terminating or binding, the scenario's steps apply, a scheduling cycle runs (every
// schedulePeriod), and expectations are checked.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <unistd.h>

#include "io/snapshot_fields.hpp"
#include "metrics.hpp"
#include "scenario.hpp"
#include "sim/api/replay.hpp"
#include "sim/io/go_json.hpp"
#include "sim/sched/cycle.hpp"
#include "world.hpp"

namespace sim::api {
namespace {

namespace fs = std::filesystem;
using replay::Metrics;

std::string fmt_s(std::int64_t ms) { return io::go_json_number(static_cast<double>(ms) / 1000.0) + "s"; }

void check(const replay::Expectation& e, const replay::World& world, const Metrics& metrics, ReplayResult& result) {
  for (const replay::QueueExpectation& q : e.queues) {
    ++result.expectations_checked;
    const double got = metrics.allocated_gpu(q.queue);
    if (std::abs(got - q.allocated_gpu) > 1e-9) {
      result.failures.push_back({e.at_ms, "queue " + q.queue + " allocated GPU is " + io::go_json_number(got) +
                                              ", want " + io::go_json_number(q.allocated_gpu)});
    }
  }
  for (const auto& [pod, want] : e.pods) {
    ++result.expectations_checked;
    const std::string got = world.pod_phase(pod);
    if (got != want) result.failures.push_back({e.at_ms, "pod " + pod + " is " + got + ", want " + want});
  }
  for (const std::string& pod : e.evicted) {
    ++result.expectations_checked;
    if (!metrics.evicted(pod, e.at_ms)) result.failures.push_back({e.at_ms, "pod " + pod + " was not evicted"});
  }
}

// Writes every file into a fresh sibling folder, then swaps it in: a failure leaves nothing
// half-written, and only a folder that holds a previous kaisim replay is ever replaced.
void write_outputs(const std::string& out, const std::map<std::string, std::string>& files) {
  fs::path target = fs::path(out).lexically_normal();
  if (!target.has_filename()) target = target.parent_path();  // "out/" names the folder "out"
  const std::string leaf = target.filename().string();
  if (leaf.empty() || leaf == "." || leaf == "..") {
    throw Error(ErrorCode::IO, out + ": give the output folder a name of its own (e.g. out/)");
  }
  std::error_code ec;
  if (fs::exists(target, ec)) {
    if (!fs::is_directory(target) || (!fs::is_empty(target) && !fs::exists(target / "summary.json"))) {
      throw Error(ErrorCode::IO, out + ": exists and is not a kaisim replay output folder; not overwriting it");
    }
  }
  const fs::path tmp = target.string() + ".kaisim-tmp-" + std::to_string(::getpid());
  fs::remove_all(tmp, ec);
  fs::create_directories(tmp, ec);
  if (ec) throw Error(ErrorCode::IO, tmp.string() + ": cannot create: " + ec.message());
  for (const auto& [name, text] : files) {
    std::ofstream f(tmp / name, std::ios::binary);
    f << text;
    if (!f) {
      fs::remove_all(tmp, ec);
      throw Error(ErrorCode::IO, (tmp / name).string() + ": write failed");
    }
  }
  if (fs::exists(target)) fs::remove_all(target, ec);
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove_all(tmp, ec);
    throw Error(ErrorCode::IO, out + ": cannot move the output into place: " + ec.message());
  }
}

// kube_node_status_capacity summed over every node Prometheus sees: no Ready or scheduler filter.
ResourceVec node_capacity(const model::ClusterState& state) {
  ResourceVec total = ResourceVec::Zero();
  for (const model::Node& n : state.nodes) total += n.allocatable;
  return total;
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
          : replay::load_scenario_text(options.scenario_text, options.scenario_path, options.base_dir, diagnostics);
  replay::World world(sc.grace_ms);
  Metrics metrics;
  replay::UsageDb usage_db(sc.usage);
  ReplayResult result;
  const bool progress = ::isatty(STDERR_FILENO) != 0 && sc.duration_ms >= 3'600'000;

  // Every manifest is checked once, up front and with its own line numbers (the world holds
  // copies, which lose them): a bad field fails the run before anything is written.
  validate(sc.manifests, diagnostics);
  for (const replay::Step& step : sc.steps) {
    // A step's objects may refer to objects that exist by then (a Queue's parent, a
    // PriorityClass): keep only the findings about the step's own fields.
    Diagnostics step_diagnostics;
    validate(step.apply, step_diagnostics);
    for (const std::string& w : step_diagnostics.warnings) {
      if (w.find("unknown field") != std::string::npos) diagnostics.warnings.push_back(w);
    }
  }
  Diagnostics per_cycle;  // the same objects again every cycle: their warnings were given above

  std::vector<replay::PodEvent> events;
  for (const replay::Manifest& m : sc.manifests) world.apply(m, 0, events);

  std::size_t next_step = 0, next_expect = 0;
  std::vector<replay::Expectation> expectations = sc.expectations;
  std::stable_sort(expectations.begin(), expectations.end(),
                   [](const auto& a, const auto& b) { return a.at_ms < b.at_ms; });
  std::int64_t next_cycle = 0;
  std::int64_t now = 0;
  int last_percent = -1;
  while (now <= sc.duration_ms) {
    world.advance(now, events);
    while (next_step < sc.steps.size() && sc.steps[next_step].at_ms == now) {
      const replay::Step& step = sc.steps[next_step++];
      for (const replay::ObjectRef& r : step.remove) world.remove(r, now, events);
      for (const replay::Manifest& m : step.apply) world.apply(m, now, events);
    }
    if (now == next_cycle) {
      model::ClusterState state = world.snapshot(now, per_cycle);
      state.config.k_value = sc.k_value;
      if (sc.usage.enabled) state.queue_usage = usage_db.usage(now);
      sched::Session ssn = sched::run_cycle(state);
      world.apply_decisions(ssn, now, sc.bind_delay_ms, events);
      metrics.record_events(events);
      events.clear();
      metrics.sample(ssn, now);
      if (sc.usage.enabled) usage_db.observe(now, metrics.allocated_by_queue(), node_capacity(ssn.state));
      ++result.cycles;
      next_cycle += sc.period_ms;
    }
    metrics.record_events(events);
    events.clear();
    while (next_expect < expectations.size() && expectations[next_expect].at_ms == now) {
      if (options.check) check(expectations[next_expect], world, metrics, result);
      ++next_expect;
    }
    if (progress) {
      const int percent = static_cast<int>(now * 100 / std::max<std::int64_t>(1, sc.duration_ms));
      if (percent != last_percent) {
        std::cerr << "\rreplay " << percent << "%" << std::flush;
        last_percent = percent;
      }
    }
    std::int64_t next = next_cycle;
    if (next_step < sc.steps.size()) next = std::min(next, sc.steps[next_step].at_ms);
    if (next_expect < expectations.size()) next = std::min(next, expectations[next_expect].at_ms);
    const std::int64_t due = world.next_due();
    if (due >= 0) next = std::min(next, std::max(due, now + 1));
    if (next <= now) next = now + 1;
    now = next;
  }
  if (progress) std::cerr << "\r" << std::string(20, ' ') << "\r" << std::flush;
  for (; next_expect < expectations.size(); ++next_expect) {
    result.failures.push_back({expectations[next_expect].at_ms, "expectation is after the end of the replay (" +
                                                                    fmt_s(sc.duration_ms) + ")"});
  }
  metrics.finish(sc.duration_ms);
  result.summary_table = metrics.summary_table(sc.name, result.cycles, sc.duration_ms);
  result.outputs = {{"timeline.csv", metrics.timeline_csv()},
                    {"kai-timeline.csv", metrics.kai_timeline_csv()},
                    {"cluster.csv", metrics.cluster_csv()},
                    {"events.jsonl", metrics.events_jsonl()},
                    {"summary.json", metrics.summary_json(sc.name, result.cycles, sc.duration_ms)}};
  if (!options.out_dir.empty()) write_outputs(options.out_dir, result.outputs);
  return result;
}

}  // namespace sim::api
