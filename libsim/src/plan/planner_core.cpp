#include "planner_core.hpp"

#include <algorithm>
#include <atomic>
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
      : jobs_(jobs > 0 ? jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))) {}

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
    const int n = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(jobs_), jobs.size()));
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

MeasureOptions measure_options_from(const std::string& text) {
  const json j = json::parse(text);
  MeasureOptions o;
  o.parents = j.at("parents").get<std::map<std::string, std::string>>();
  o.warmup_ms = j.at("warmup_ms").get<std::int64_t>();
  o.status_at_ms = j.at("status_at_ms").get<std::vector<std::int64_t>>();
  return o;
}

}  // namespace

std::string run_replay_job(const ReplayJob& job) {
  api::ReplayOptions o;
  o.scenario_path = job.scenario_name;
  o.scenario_text = job.scenario_text;
  o.base_dir = job.base_dir;
  o.progress = false;
  o.pending_reasons = true;
  Diagnostics ignored;  // the base scenario's warnings were given once, from its own file
  const api::ReplayResult r = api::run_replay(o, ignored);
  return measure_to_json(measure(r.outputs, r.pending_reasons, measure_options_from(job.measure_options), job.seed, r.cycles));
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
  for (int i = 0; i < plan.seeds; ++i) main_.push_back(plan.first_seed + static_cast<std::uint64_t>(i));
  for (int i = 0; i < plan.fresh_seeds; ++i) fresh_.push_back(plan.first_seed + static_cast<std::uint64_t>(plan.seeds + i));
  json parents = json::object();
  for (const PlannedQueue& q : base_->queues_for(base_->base_candidate())) parents[q.name] = q.parent;
  measure_options_ = json{{"parents", parents}, {"warmup_ms", plan.warmup_ms}, {"status_at_ms", status_times(plan, *base_)}}.dump();
  if (options.runner != nullptr) {
    runner_ = options.runner;
  } else {
    local_ = std::make_unique<LocalRunner>(options.jobs);
    runner_ = local_.get();
  }
}

double Planner::elapsed_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

std::string Planner::key(const Candidate& c, SeedSet s) const {
  std::string k = (s == SeedSet::MAIN ? "M|" : "F|") + c.hardware + "|";
  for (const auto& [pool, n] : c.nodes) k += pool + "=" + std::to_string(n) + ",";
  k += "|";
  for (const auto& [q, r] : c.gpu) {
    k += q + "=" + go_json_number(r.quota) + "/" + go_json_number(r.limit) + "/" + go_json_number(r.over_quota_weight) + ",";
  }
  return k;
}

std::string Planner::describe(const Candidate& c) const {
  std::string out;
  if (!c.hardware.empty()) out += c.hardware + ": ";
  if (!c.nodes.empty()) {
    std::string pools;
    for (const auto& [pool, n] : c.nodes) pools += (pools.empty() ? "" : " + ") + std::to_string(n) + " x " + pool;
    out += gpus_text(base_->gpus_of(c)) + " GPUs (" + pools + ")";
  }
  for (const auto& [q, r] : c.gpu) {
    out += (out.empty() ? "" : ", ") + q + " quota " + go_json_number(r.quota) + " limit " + go_json_number(r.limit) +
           " weight " + go_json_number(r.over_quota_weight);
  }
  return out.empty() ? "the base scenario" : out;
}

std::vector<const Judgement*> Planner::judge(const std::vector<Candidate>& candidates, SeedSet set, const std::string& role) {
  const std::vector<std::uint64_t>& seeds = this->seeds(set);
  std::vector<ReplayJob> jobs;
  std::vector<std::size_t> fresh;  // candidates to replay, by index into `candidates`
  std::map<std::string, std::size_t> first_of;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const std::string k = key(candidates[i], set);
    if (index_.contains(k) || first_of.contains(k)) continue;
    first_of[k] = i;
    fresh.push_back(i);
    for (std::uint64_t seed : seeds) {
      const ScenarioText t = base_->text_for(candidates[i], seed);
      jobs.push_back({t.text, t.name, t.base_dir, seed, measure_options_});
    }
  }
  if (!jobs.empty()) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<std::string> measured = runner_->run(jobs);
    replay_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    replays_ += jobs.size();
    std::size_t at = 0;
    for (std::size_t i : fresh) {
      std::vector<SeedMeasure> measures;
      for (std::size_t s = 0; s < seeds.size(); ++s) measures.push_back(measure_from_json(measured[at++]));
      Entry e{plan::judge(plan_, *base_, candidates[i], seeds, std::move(measures)), set, role};
      index_[key(candidates[i], set)] = entries_.size();
      entries_.push_back(std::move(e));
    }
    expected_ = expected_ > jobs.size() ? expected_ - jobs.size() : 0;
    report_progress();
  }
  std::vector<const Judgement*> out;
  for (const Candidate& c : candidates) out.push_back(&entries_[index_.at(key(c, set))].judgement);
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
  p.left_s = replays_ > 0 ? replay_seconds_ / static_cast<double>(replays_) * static_cast<double>(expected_) : 0;
  options_.progress(p);
}

}  // namespace sim::plan
