#include "planner_core.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "sim/api/replay.hpp"
#include "sim/core/go_json.hpp"

namespace sim::plan {
namespace {

using nlohmann::json;

// Local threads: each takes the next job until none is left. libsim's replay holds no shared
// state, so replays run side by side (kaisim.sweep does the same from Python).
class LocalRunner : public ReplayRunner {
 public:
  explicit LocalRunner(int jobs)
      : jobs_(jobs > 0 ? jobs
                       : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))) {}

  std::vector<std::string> run(const std::vector<ReplayJob>& jobs) override {
    std::vector<std::string> out(jobs.size());
    std::atomic<std::size_t> next{0};
    std::exception_ptr failure;
    std::mutex m;
    auto work = [&] {
      for (std::size_t i = next++; i < jobs.size(); i = next++) {
        try {
          out[i] = run_replay_job(jobs[i]);
        } catch (...) {
          std::lock_guard lock(m);
          if (!failure) failure = std::current_exception();
          next = jobs.size();
        }
      }
    };
    const int n =
        static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(jobs_), jobs.size()));
    std::vector<std::thread> threads;
    for (int t = 1; t < n; ++t) threads.emplace_back(work);
    work();
    for (std::thread& t : threads) t.join();
    if (failure) std::rethrow_exception(failure);
    return out;
  }

 private:
  int jobs_;
};

MeasureOptions measure_options_from(const json& j) {
  MeasureOptions o;
  o.parents = j.at("parents").get<std::map<std::string, std::string>>();
  o.warmup_ms = j.at("warmup_ms").get<std::int64_t>();
  o.status_at_ms = j.at("status_at_ms").get<std::vector<std::int64_t>>();
  return o;
}

std::vector<api::StopRule> stop_rules_from(const json& j) {
  std::vector<api::StopRule> rules;
  for (const json& r : j.at("stop_rules")) {
    api::StopRule rule;
    const std::string kind = r.at("kind").get<std::string>();
    rule.kind = kind == "share"       ? api::StopRule::Kind::SHARE
                : kind == "evictions" ? api::StopRule::Kind::EVICTIONS
                : kind == "mean"      ? api::StopRule::Kind::MEAN
                                      : api::StopRule::Kind::PERCENTILE;
    rule.name = r.at("name").get<std::string>();
    rule.queues = r.at("queues").get<std::vector<std::string>>();
    rule.from_ms = r.at("from_ms").get<std::int64_t>();
    rule.wait_over_s = r.at("wait_over_s").get<double>();
    rule.limit = r.at("limit").get<double>();
    rules.push_back(std::move(rule));
  }
  return rules;
}

// A replay may stop as soon as a target is missed for certain on its seed: a wait percentile
// above its bound, too many pods waiting longer than allowed, a mean wait past its bound, too
// many evictions.
json stop_rules_of(const PlanSpec& plan, const BaseScenario& base) {
  json rules = json::array();
  for (std::size_t t = 0; t < plan.targets.size(); ++t) {
    const Target& target = plan.targets[t];
    std::string kind;
    double over = target.bound, limit = 0;
    switch (target.metric) {
      case Metric::WAIT_P95:
        kind = "percentile", limit = 95;
        break;
      case Metric::WAIT_MAX:
        kind = "percentile", limit = 100;
        break;
      case Metric::WAIT_MEAN:
        kind = "mean", over = 0, limit = target.bound;
        break;
      case Metric::WAIT_PROBABILITY:
        kind = "share", over = target.over_s, limit = target.bound;
        break;
      case Metric::EVICTIONS_MAX:
        kind = "evictions", over = 0, limit = target.bound;
        break;
      default:
        continue;
    }
    std::vector<std::string> scopes;
    if (target.scope == "*") {
      scopes = base.leaf_queues();
    } else {
      scopes.push_back(target.scope);
    }
    for (const std::string& q : scopes) {
      std::vector<std::string> queues;
      if (q != "cluster") queues = leaves_under(base, q);
      rules.push_back({{"kind", kind},
                       {"name", stop_rule_name(t, q)},
                       {"queues", queues},
                       {"from_ms", plan.warmup_ms},
                       {"wait_over_s", over},
                       {"limit", limit}});
    }
  }
  return rules;
}

}  // namespace

std::string run_replay_job(const ReplayJob& job) {
  api::ReplayOptions o;
  o.scenario_path = job.scenario_name;
  o.scenario_text = job.scenario_text;
  o.base_dir = job.base_dir;
  o.pending_reasons = true;
  const json options = json::parse(job.measure_options);
  o.stop_rules = stop_rules_from(options);
  Diagnostics ignored;  // the base scenario's warnings were given once, from its own file
  const api::ReplayResult r = api::run_replay(o, ignored);
  SeedMeasure m =
      measure(r.outputs, r.pending_reasons, measure_options_from(options), job.seed, r.cycles);
  m.stopped_by = r.stopped_by;
  m.stopped_at_s = r.stopped_at_ms < 0 ? -1 : static_cast<double>(r.stopped_at_ms) / 1000.0;
  return measure_to_json(m);
}

std::vector<std::int64_t> status_times(const PlanSpec& plan, const BaseScenario& base) {
  if (!plan.status_at_ms.empty()) return plan.status_at_ms;
  std::vector<std::int64_t> out;
  for (std::int64_t t : base.step_times_ms()) {
    if (t > 0 && t - base.period_ms() >= 0) out.push_back(t - base.period_ms());
  }
  if (out.empty()) {
    const std::int64_t hour = 3'600'000;
    const std::int64_t every = std::max<std::int64_t>(hour, base.duration_ms() / 24 / hour * hour);
    for (std::int64_t t = every; t < base.duration_ms(); t += every) out.push_back(t);
  }
  out.push_back(base.duration_ms());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Planner::Planner(const PlanSpec& plan, const PlanOptions& options, Diagnostics& diagnostics)
    : plan_(plan), options_(options), started_(std::chrono::steady_clock::now()) {
  base_ = BaseScenario::load(plan, diagnostics);
  for (int i = 0; i < plan.seeds; ++i)
    main_.push_back(plan.first_seed + static_cast<std::uint64_t>(i));
  for (int i = 0; i < plan.fresh_seeds; ++i)
    fresh_.push_back(plan.first_seed + static_cast<std::uint64_t>(plan.seeds + i));
  json parents = json::object();
  for (const PlannedQueue& q : base_->queues_for(base_->base_candidate()))
    parents[q.name] = q.parent;
  json measuring{{"parents", parents},
                 {"warmup_ms", plan.warmup_ms},
                 {"status_at_ms", status_times(plan, *base_)},
                 {"stop_rules", json::array()}};
  measure_options_full_ = measuring.dump();
  measuring["stop_rules"] = stop_rules_of(plan, *base_);
  measure_options_ = measuring.dump();
  for (const json& rule : measuring["stop_rules"]) {
    json one = measuring;
    one["stop_rules"] = json::array({rule});
    options_by_rule_[rule.at("name").get<std::string>()] = one.dump();
  }
  if (options.runner != nullptr) {
    runner_ = options.runner;
  } else {
    local_ = std::make_unique<LocalRunner>(options.jobs);
    runner_ = local_.get();
  }
}

const std::string& Planner::options_with_rule(const std::string& rule) const {
  return options_by_rule_.at(rule);
}

double Planner::elapsed_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

std::string Planner::key(const Candidate& c, SeedSet s, bool full) const {
  std::string k =
      std::string(full ? "full|" : "") + (s == SeedSet::MAIN ? "M|" : "F|") + c.hardware + "|";
  for (const auto& [pool, n] : c.nodes) k += pool + "=" + std::to_string(n) + ",";
  k += "|";
  for (const auto& [q, r] : c.gpu) {
    k += q + "=" + go_json_number(r.quota) + "/" + go_json_number(r.limit) + "/" +
         go_json_number(r.over_quota_weight) + ",";
  }
  return k;
}

std::string Planner::describe(const Candidate& c) const {
  std::string out;
  if (!c.nodes.empty() && !c.hardware.empty()) {
    // An alternative replaces the knob's pool: its nodes, devices, and GPUs as KAI counts them.
    int nodes = 0;
    for (const auto& [pool, n] : c.nodes) nodes += n;
    const double gpus = base_->gpus_of(c);
    const int devices = base_->devices_of(c);
    out +=
        c.hardware + ": " + std::to_string(nodes) + " nodes, " + std::to_string(devices) + " GPUs";
    if (std::abs(gpus - devices) > 1e-9)
      out += " (" + gpus_text(gpus) + " as KAI counts MIG instances)";
  } else if (!c.nodes.empty()) {
    std::string pools;
    for (const auto& [pool, n] : c.nodes)
      pools += (pools.empty() ? "" : " + ") + std::to_string(n) + " x " + pool;
    out += gpus_text(base_->gpus_of(c)) + " GPUs (" + pools + ")";
  } else if (!c.hardware.empty()) {
    out += c.hardware;
  }
  for (const auto& [q, r] : c.gpu) {
    out += (out.empty() ? "" : ", ") + q + " quota " + go_json_number(r.quota) + " limit " +
           go_json_number(r.limit) + " weight " + go_json_number(r.over_quota_weight);
  }
  return out.empty() ? "the base scenario" : out;
}

const Judgement& Planner::complete(const Judgement& j, SeedSet seeds, const std::string& role) {
  bool stopped = false;
  for (const SeedMeasure& m : j.measures) stopped = stopped || !m.stopped_by.empty();
  return stopped ? judge_one(j.candidate, seeds, role, true) : j;
}

std::vector<const Judgement*> Planner::judge(const std::vector<Candidate>& candidates, SeedSet set,
                                             const std::string& role, bool full) {
  const std::vector<std::uint64_t>& seeds = this->seeds(set);
  std::vector<ReplayJob> jobs;
  std::vector<std::size_t> fresh;  // candidates to replay, by index into `candidates`
  std::map<std::string, std::size_t> first_of;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const std::string k = key(candidates[i], set, full);
    if (index_.contains(k) || first_of.contains(k)) continue;
    first_of[k] = i;
    fresh.push_back(i);
    for (std::uint64_t seed : seeds) {
      const ScenarioText t = base_->text_for(candidates[i], seed);
      jobs.push_back(
          {t.text, t.name, t.base_dir, seed, full ? measure_options_full_ : measure_options_});
    }
  }
  if (!jobs.empty()) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<std::string> measured = runner_->run(jobs);
    replay_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    replays_ += jobs.size();
    std::size_t at = 0;
    std::vector<std::vector<SeedMeasure>> by_candidate;
    for (std::size_t k = 0; k < fresh.size(); ++k) {
      std::vector<SeedMeasure> measures;
      for (std::size_t s = 0; s < seeds.size(); ++s)
        measures.push_back(measure_from_json(measured[at++]));
      by_candidate.push_back(std::move(measures));
    }
    // A candidate fails for certain when every seed stopped on the same rule. Seeds that stopped
    // on another rule than the most common one replay again, stopping on that one alone; if the
    // seeds still do not all stop alike, those that stopped replay to the end.
    for (int round = 0; round < 2; ++round) {
      std::vector<ReplayJob> again;
      std::vector<std::pair<std::size_t, std::size_t>> again_at;
      for (std::size_t k = 0; k < fresh.size(); ++k) {
        const std::vector<SeedMeasure>& measures = by_candidate[k];
        std::map<std::string, int> stops;
        for (const SeedMeasure& m : measures) {
          if (!m.stopped_by.empty()) ++stops[m.stopped_by];
        }
        if (stops.empty() ||
            (stops.size() == 1 && stops.begin()->second == static_cast<int>(measures.size())))
          continue;
        std::string common;
        int most = 0;
        for (const auto& [rule, n] : stops) {
          if (n > most) common = rule, most = n;
        }
        // When fewer than half the seeds stopped at all, the candidate is near its limit: the
        // stopped ones replay to the end at once.
        int stopped = 0;
        for (const auto& [rule, n] : stops) stopped += n;
        if (round == 0 && 2 * stopped < static_cast<int>(measures.size())) {
          for (std::size_t s = 0; s < seeds.size(); ++s) {
            if (measures[s].stopped_by.empty()) continue;
            ReplayJob job = jobs[k * seeds.size() + s];
            job.measure_options = measure_options_full_;
            again.push_back(std::move(job));
            again_at.emplace_back(k, s);
          }
          continue;
        }
        for (std::size_t s = 0; s < seeds.size(); ++s) {
          const bool other =
              round == 0 ? measures[s].stopped_by != common : !measures[s].stopped_by.empty();
          if (!other) continue;
          ReplayJob job = jobs[k * seeds.size() + s];
          job.measure_options = round == 0 ? options_with_rule(common) : measure_options_full_;
          again.push_back(std::move(job));
          again_at.emplace_back(k, s);
        }
      }
      if (again.empty()) break;
      const auto t1 = std::chrono::steady_clock::now();
      const std::vector<std::string> more = runner_->run(again);
      replay_seconds_ +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
      replays_ += again.size();
      for (std::size_t r = 0; r < again.size(); ++r)
        by_candidate[again_at[r].first][again_at[r].second] = measure_from_json(more[r]);
    }
    for (std::size_t k = 0; k < fresh.size(); ++k) {
      const std::size_t i = fresh[k];
      Entry e{plan::judge(plan_, *base_, candidates[i], seeds, std::move(by_candidate[k])), set,
              role};
      index_[key(candidates[i], set, full)] = entries_.size();
      entries_.push_back(std::move(e));
    }
    expected_ = expected_ > jobs.size() ? expected_ - jobs.size() : 0;
    report_progress();
  }
  std::vector<const Judgement*> out;
  for (const Candidate& c : candidates)
    out.push_back(&entries_[index_.at(key(c, set, full))].judgement);
  return out;
}

void Planner::report_progress() {
  if (!options_.progress) return;
  Progress p;
  p.judged = entries_.size();
  p.replays = replays_;
  p.replays_left = expected_;
  p.best = best_;
  p.elapsed_s = elapsed_seconds();
  p.left_s = replays_ > 0
                 ? replay_seconds_ / static_cast<double>(replays_) * static_cast<double>(expected_)
                 : 0;
  options_.progress(p);
}

}  // namespace sim::plan
