// plan.json: everything the plan judged and what it answers (docs/plan-format.md, "plan.json").

#include <filesystem>
#include <nlohmann/json.hpp>

#include "plan_output.hpp"

namespace sim::plan {
namespace {

using ordered = nlohmann::ordered_json;

const char* question_name(Question q) {
  switch (q) {
    case Question::CHECK:
      return "check";
    case Question::GPUS:
      return "gpus";
    case Question::QUOTAS:
      return "quotas";
    case Question::HARDWARE:
      return "hardware";
  }
  return "?";
}

ordered interval_json(const Interval& i) {
  return ordered{
      {"mean", i.mean}, {"sd", i.sd}, {"lower", i.lower}, {"upper", i.upper}, {"n", i.n}};
}

// A measure of each seed with its interval (wait_p95 of a queue, utilization, ...).
ordered measured(const PlanSpec& plan, const Judgement& j, Metric metric,
                 const std::string& queue) {
  Target t;
  t.metric = metric;
  std::vector<double> values;
  for (const SeedMeasure& m : j.measures) values.push_back(metric_value(m, t, queue));
  ordered out = interval_json(t_interval(values, plan.confidence));
  out["values"] = values;
  return out;
}

ordered resources(const double (&v)[3]) {
  return ordered{{"cpu", v[0]}, {"memory", v[1]}, {"gpu", v[2]}};
}

ordered candidate_json(const PlanOutcome& o, const Entry& e, int id) {
  const Judgement& j = e.judgement;
  const BaseScenario& base = o.planner.base();
  ordered c{{"id", id},
            {"role", e.role},
            {"seeds", e.seeds == SeedSet::MAIN ? "main" : "fresh"},
            {"description", o.planner.describe(j.candidate)}};
  if (!j.candidate.hardware.empty()) c["hardware"] = j.candidate.hardware;
  if (!j.candidate.nodes.empty()) {
    c["nodes"] = j.candidate.nodes;
    c["gpus"] = base.gpus_of(j.candidate);
    c["gpu_devices"] = base.devices_of(j.candidate);
  }
  if (!j.candidate.gpu.empty()) {
    ordered q = ordered::object();
    for (const auto& [name, r] : j.candidate.gpu) {
      q[name] = {{"quota", r.quota}, {"limit", r.limit}, {"overQuotaWeight", r.over_quota_weight}};
    }
    c["quotas"] = q;
  }
  c["feasible"] = j.feasible;
  c["worst_ratio"] = j.worst_ratio;
  if (!j.stopped_by.empty()) {
    std::vector<double> at;
    for (const SeedMeasure& m : j.measures) at.push_back(m.stopped_at_s);
    const Target& t =
        o.plan.targets[std::stoul(j.stopped_by.substr(1, j.stopped_by.find('|') - 1))];
    c["stopped_early"] = {{"target", target_text(t)},
                          {"queue", j.stopped_by.substr(j.stopped_by.find('|') + 1)},
                          {"at_s", at}};
  }
  ordered checks = ordered::array();
  for (const Check& ch : j.checks) {
    const Target& t = o.plan.targets[ch.target];
    ordered x{{"target", ch.target}, {"metric", metric_name(t.metric)}, {"queue", ch.queue},
              {"bound", t.bound},    {"unit", metric_unit(t.metric)},   {"values", ch.values}};
    x["interval"] = interval_json(ch.interval);
    x["holds"] = ch.holds;
    if (ch.partial) x["partial"] = true;
    checks.push_back(x);
  }
  c["checks"] = checks;
  ordered queues = ordered::object();
  for (const std::string& q : base.leaf_queues()) {
    queues[q] = {{"wait_p50_s", nullptr},
                 {"wait_p95_s", measured(o.plan, j, Metric::WAIT_P95, q)},
                 {"wait_max_s", measured(o.plan, j, Metric::WAIT_MAX, q)},
                 {"reclaim_latency_max_s", measured(o.plan, j, Metric::RECLAIM_LATENCY_MAX, q)},
                 {"evictions", measured(o.plan, j, Metric::EVICTIONS_MAX, q)}};
    std::vector<double> p50;
    for (const SeedMeasure& m : j.measures) {
      auto it = m.queues.find(q);
      p50.push_back(it == m.queues.end() ? 0 : nearest_rank(it->second.waits_s, 50));
    }
    ordered median = interval_json(t_interval(p50, o.plan.confidence));
    median["values"] = p50;
    queues[q]["wait_p50_s"] = median;
  }
  c["queues"] = queues;
  c["cluster"] = {{"utilization", measured(o.plan, j, Metric::UTILIZATION_MIN, "cluster")},
                  {"wait_p95_s", measured(o.plan, j, Metric::WAIT_P95, "cluster")},
                  {"evictions", measured(o.plan, j, Metric::EVICTIONS_MAX, "cluster")}};
  return c;
}

ordered failures_json(const std::vector<Failure>& failures) {
  ordered out = ordered::array();
  for (const Failure& f : failures) {
    ordered reasons = ordered::array();
    for (const Reason& r : f.reasons)
      reasons.push_back({{"reason", r.reason}, {"pod_seconds", r.pod_seconds}, {"share", r.share}});
    out.push_back({{"target", f.target},
                   {"queue", f.check->queue},
                   {"bound_reached", f.check->deciding()},
                   {"seeds", f.seeds},
                   {"reasons", reasons},
                   {"advice", f.advice}});
  }
  return out;
}

}  // namespace

std::string candidate_entry_json(const PlanOutcome& o, const Entry& e, int id) {
  return candidate_json(o, e, id).dump();
}

std::string plan_json(const PlanOutcome& o) {
  namespace fs = std::filesystem;
  const PlanSpec& plan = o.plan;
  ordered j{{"schema_version", 1},
            {"kaisim_version", "0.1.0"},
            {"kai_version", "v0.16.4"},
            {"plan", plan.name},
            {"question", question_name(plan.question)}};
  if (plan.trace) {
    j["base"] = {{"genTrace",
                  {{"pods", plan.trace->pods},
                   {"arrivalHours", plan.trace->arrival_hours},
                   {"nodeScale", plan.trace->node_scale}}}};
  } else {
    j["base"] = {{"scenario",
                  fs::path(plan.scenario_path).lexically_relative(plan.base_dir).generic_string()}};
  }
  j["confidence"] = {
      {"level", plan.confidence},
      {"interval", "one-sided Student t over seeds: mean +/- t(level, n-1) s / sqrt(n)"}};
  j["seeds"] = o.planner.seeds(SeedSet::MAIN);
  j["fresh_seeds"] = o.planner.seeds(SeedSet::FRESH);
  j["warmup_s"] = static_cast<double>(plan.warmup_ms) / 1000.0;
  ordered targets = ordered::array();
  for (const Target& t : plan.targets) {
    ordered x{{"metric", metric_name(t.metric)},
              {"scope", t.scope},
              {"bound", t.bound},
              {"unit", metric_unit(t.metric)}};
    if (t.metric == Metric::WAIT_PROBABILITY) x["over_s"] = t.over_s;
    x["kind"] = t.is_lower_bound() ? "min" : "max";
    targets.push_back(x);
  }
  j["targets"] = targets;
  ordered candidates = ordered::array();
  int id = 0;
  for (const Entry& e : o.planner.entries()) candidates.push_back(candidate_json(o, e, id++));
  j["candidates"] = candidates;

  const Answer& a = o.answer;
  ordered answer{{"found", a.found}, {"targets_met", a.found && a.recheck_holds}};
  if (a.chosen != nullptr) {
    answer["candidate"] = o.ids.at(a.chosen);
    answer["description"] = o.planner.describe(a.chosen->candidate);
  }
  if (a.recheck != nullptr)
    answer["recheck"] = {{"candidate", o.ids.at(a.recheck)}, {"holds", a.recheck_holds}};
  answer["non_monotone"] = a.non_monotone;
  answer["notes"] = a.notes;
  answer["failing"] = failures_json(o.failures);
  answer["failing_on_fresh_seeds"] = failures_json(o.fresh_failures);
  if (a.question == Question::QUOTAS) {
    ordered front = ordered::array();
    for (const Judgement* p : a.pareto) front.push_back(o.ids.at(p));
    answer["pareto"] = front;
    answer["screened"] = a.screened;
  }
  if (a.question == Question::HARDWARE) {
    ordered rows = ordered::array();
    for (const HardwareRow& r : a.hardware) {
      ordered x{{"name", r.name},   {"meets", r.meets}, {"candidate", o.ids.at(r.answer)},
                {"nodes", r.nodes}, {"gpus", r.gpus},   {"gpu_devices", r.devices}};
      if (r.price_per_gpu_hour) {
        x["price_per_gpu_hour"] = *r.price_per_gpu_hour;
        x["cost_per_hour"] = *r.price_per_gpu_hour * r.devices;
      }
      rows.push_back(x);
    }
    answer["hardware"] = rows;
  }
  j["answer"] = answer;

  // The Queue.status the answer predicts at the base scenario's phases, on the first seed.
  ordered status{{"seed", nullptr},
                 {"units", {{"cpu", "millicores"}, {"memory", "bytes"}, {"gpu", "GPU devices"}}}};
  ordered phases = ordered::array();
  if (a.chosen != nullptr && !a.chosen->measures.empty()) {
    const SeedMeasure& m = a.chosen->measures.front();
    status["seed"] = m.seed;
    for (const StatusSample& s : m.status) {
      ordered qs = ordered::object();
      for (const auto& [q, st] : s.queues) {
        qs[q] = {{"allocated", resources(st.allocated)},
                 {"allocatedNonPreemptible", resources(st.allocated_non_preemptible)},
                 {"requested", resources(st.requested)}};
      }
      phases.push_back({{"at_s", static_cast<double>(s.at_ms) / 1000.0}, {"queues", qs}});
    }
  }
  status["phases"] = phases;
  j["queue_status"] = status;
  ordered files = ordered::array();
  for (const auto& [name, text] : o.manifests) files.push_back(name);
  j["manifests"] = files;
  j["warnings"] = o.warnings;
  return j.dump(2) + "\n";
}

}  // namespace sim::plan
