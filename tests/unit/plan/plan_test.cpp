// The planner's parts: the t bounds, a candidate's scenario text, one replay's measures, and the
// replay's stop rules, on the repository's own scenarios.

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "plan/base_scenario.hpp"
#include "plan/judge.hpp"
#include "plan/measure.hpp"
#include "sim/api/replay.hpp"
#include "sim/plan/plan_spec.hpp"

namespace {

using namespace sim;

std::string source(const std::string& path) { return std::string(KAISIM_SOURCE_DIR) + "/" + path; }

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

plan::PlanSpec plan_text(const std::string& body) {
  Diagnostics d;
  return plan::load_plan_text("schema_version: 1\nkind: Plan\n" + body, "test.yaml",
                              source("scenarios/plans"), d);
}

}  // namespace

TEST_CASE("one-sided Student t bounds over seeds", "[plan]") {
  // t(0.95, 9) = 1.8331 and t(0.95, 4) = 2.1318 (tables of Student's t).
  const plan::Interval ten = plan::t_interval({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.95);
  CHECK(ten.mean == Approx(5.5));
  CHECK(ten.sd == Approx(3.02765).epsilon(1e-5));
  CHECK(ten.upper == Approx(5.5 + 1.83311 * 3.02765 / std::sqrt(10.0)).epsilon(1e-5));
  CHECK(ten.lower == Approx(5.5 - 1.83311 * 3.02765 / std::sqrt(10.0)).epsilon(1e-5));
  const plan::Interval same = plan::t_interval({7, 7, 7}, 0.95);
  CHECK(same.upper == 7);
  CHECK(same.lower == 7);
  const plan::Interval five = plan::t_interval({0.1, 0.2, 0.15, 0.3, 0.25}, 0.95);
  CHECK(five.upper - five.mean == Approx(2.13185 * five.sd / std::sqrt(5.0)).epsilon(1e-5));
}

TEST_CASE("a candidate at the base scenario's own values replays byte for byte as the file",
          "[plan]") {
  // three-teams-day has node pools, inline queues with cpu and memory, generators and steps.
  const std::string file = source("scenarios/examples/three-teams-day.yaml");
  const plan::PlanSpec spec = plan_text(
      "scenario: ../examples/three-teams-day.yaml\nseeds: {count: 2, first: 7}\n"
      "targets: {cluster: {wait_p95: 10m}}\nknobs:\n  gpus: {pool: l40s, count: 4}\n"
      "  quotas:\n    team-nlp: {quota: 2, limit: 4, overQuotaWeight: 2}\n");
  Diagnostics d;
  const auto base = plan::BaseScenario::load(spec, d);
  const plan::ScenarioText text = base->text_for(base->base_candidate(), 7);  // the file's own seed
  api::ReplayOptions from_file, from_text;
  from_file.scenario_path = file;
  from_text.scenario_path = text.name;
  from_text.scenario_text = text.text;
  from_text.base_dir = text.base_dir;
  Diagnostics ignored;
  CHECK(api::run_replay(from_text, ignored).outputs == api::run_replay(from_file, ignored).outputs);

  // Another count and quota change the scenario, and only those.
  plan::Candidate c = base->base_candidate();
  c.nodes["l40s"] = 6;
  c.gpu["team-nlp"] = {3, 4, 1};
  const std::string other = base->text_for(c, 7).text;
  CHECK(other.find("count: 6") != std::string::npos);
  CHECK(other.find("quota: 3") != std::string::npos);
  CHECK(base->gpus_of(c) == 6);
  const std::vector<plan::PlannedQueue> queues = base->queues_for(c);
  CHECK(queues[1].name == "team-nlp");
  CHECK(queues[1].gpu == plan::QueueResource{3, 4, 1});
  CHECK(queues[1].cpu ==
        plan::QueueResource{-1, -1, 0});  // as the scenario writes it (no weight: 0)
}

TEST_CASE("the runbook's queues without cpu or memory are planned with both unlimited", "[plan]") {
  const plan::PlanSpec spec =
      plan_text("scenario: ../seed/burst-and-reclaim.yaml\ntargets: {cluster: {wait_max: 1m}}\n");
  Diagnostics d;
  const auto base = plan::BaseScenario::load(spec, d);
  const std::vector<plan::PlannedQueue> queues = base->queues_for(base->base_candidate());
  REQUIRE(queues.size() == 4);
  for (const plan::PlannedQueue& q : queues) {
    CHECK(q.cpu == plan::QueueResource{-1, -1, 1});
    CHECK(q.memory == plan::QueueResource{-1, -1, 1});
  }
  CHECK(queues[0].name == "ml-org");
  CHECK(!queues[0].priority);
  CHECK(queues[1].priority == 100);
  CHECK(queues[1].gpu == plan::QueueResource{0.33, 1, 1});
  CHECK(base->leaf_queues() ==
        std::vector<std::string>{"team-nlp", "team-recommender", "team-vision"});
  CHECK(base->step_times_ms() == std::vector<std::int64_t>{0, 60000, 180000, 300000, 360000});
}

TEST_CASE("one replay's measures agree with its summary", "[plan]") {
  api::ReplayOptions o;
  o.scenario_path = source("scenarios/seed/burst-and-reclaim.yaml");
  o.pending_reasons = true;
  Diagnostics d;
  const api::ReplayResult r = api::run_replay(o, d);
  plan::MeasureOptions mo;
  mo.parents = {{"ml-org", ""},
                {"team-nlp", "ml-org"},
                {"team-vision", "ml-org"},
                {"team-recommender", "ml-org"}};
  mo.status_at_ms = {59000, 211000};
  const plan::SeedMeasure m = plan::measure(r.outputs, r.pending_reasons, mo, 1, r.cycles);
  CHECK(m.duration_s == 420);
  CHECK(m.cluster.evictions == 1);
  CHECK(m.queues.at("team-nlp").evictions == 1);
  CHECK(m.queues.at("ml-org").evictions == 1);  // a parent counts its children's pods
  // Vision's two pods: 0 s at the start, 30 s when it comes back (the burst's grace period).
  CHECK(m.queues.at("team-vision").waits_s == std::vector<double>{0, 30});
  CHECK(m.queues.at("team-vision").reclaim_latency_max_s == 30);
  CHECK_FALSE(m.queues.at("team-vision").short_at_end);
  CHECK(m.queues.at("ml-org").waits_s.size() == 6);
  REQUIRE(m.status.size() == 2);
  CHECK(m.status[0].queues.at("team-nlp").allocated[2] == Approx(0.33));
  CHECK(m.status[1].queues.at("team-vision").allocated[2] == Approx(0.33));
  // The burst waited 30 s for the two deleted pods to terminate, vision 30 s for the evicted
  // burst: pipelined onto releasing GPUs, one pod-second per 1 s cycle.
  CHECK(m.pending.at("team-nlp").at("releasing") == 30);
  CHECK(m.pending.at("team-vision").at("releasing") == 30);
  CHECK(plan::measure_to_json(plan::measure_from_json(plan::measure_to_json(m))) ==
        plan::measure_to_json(m));
  plan::Target t;
  t.metric = plan::Metric::WAIT_MAX;
  CHECK(plan::metric_value(m, t, "team-vision") == 30);
  t.metric = plan::Metric::WAIT_PROBABILITY;
  t.over_s = 10;
  CHECK(plan::metric_value(m, t, "team-vision") == 0.5);
}

TEST_CASE("a stop rule ends a generated replay once its wait percentile is certain", "[plan]") {
  // One L40S for four hours of the runbook's load: waits pass ten minutes within the first.
  std::string text = read(source("scenarios/plans/runbook-day.yaml"));
  text.replace(text.find("count: 12"), 9, "count: 1");
  text.replace(text.find("duration: 24h"), 13, "duration: 4h");
  api::ReplayOptions o;
  o.scenario_path = "day.yaml";
  o.scenario_text = text;
  o.base_dir = source("scenarios/plans");
  Diagnostics d;
  const api::ReplayResult full = api::run_replay(o, d);
  CHECK(full.stopped_by.empty());
  o.stop_rules.push_back({api::StopRule::Kind::PERCENTILE, "p95", {"team-vision"}, 0, 600, 95});
  const api::ReplayResult stopped = api::run_replay(o, d);
  CHECK(stopped.stopped_by == "p95");
  CHECK(stopped.stopped_at_ms > 0);
  CHECK(stopped.stopped_at_ms < 4 * 3'600'000 / 2);
  // What the stop promised: the whole run's p95 wait of team-vision is past 600 s.
  plan::MeasureOptions mo;
  mo.parents = {{"ml-org", ""},
                {"team-nlp", "ml-org"},
                {"team-vision", "ml-org"},
                {"team-recommender", "ml-org"}};
  const plan::SeedMeasure m = plan::measure(full.outputs, {}, mo, 1, full.cycles);
  CHECK(plan::nearest_rank(m.queues.at("team-vision").waits_s, 95) > 600);
  // A bound no pod reaches never stops the replay.
  o.stop_rules = {{api::StopRule::Kind::PERCENTILE, "never", {"team-vision"}, 0, 1e9, 95}};
  CHECK(api::run_replay(o, d).stopped_by.empty());
}
