// `kaisim plan`: the question's search, then the plan folder.

#include "sim/plan/planner.hpp"

#include <cmath>
#include <set>
#include <sstream>

#include "plan_output.hpp"
#include "replay/output_folder.hpp"
#include "sim/core/go_json.hpp"

namespace sim::plan {

Answer answer_check(Planner& planner) {
  Answer a;
  a.question = Question::CHECK;
  const Judgement& j = planner.judge_one(planner.base().base_candidate(), SeedSet::MAIN, "check");
  a.chosen = &j;
  a.found = j.feasible;
  a.recheck_holds = j.feasible;  // a check judges one configuration: no search to re-check
  return a;
}

std::vector<std::string> leaves_under(const BaseScenario& base, const std::string& queue) {
  std::vector<std::string> out;
  for (const std::string& leaf : base.leaf_queues()) {
    if (queue == "cluster") {
      out.push_back(leaf);
      continue;
    }
    for (std::string q = leaf; !q.empty(); q = base.parent_of(q)) {
      if (q == queue) {
        out.push_back(leaf);
        break;
      }
      if (out.size() > 10000) break;
    }
  }
  return out;
}

std::string summary_text(const PlanOutcome& o) {
  std::ostringstream s;
  const Answer& a = o.answer;
  const char* question[] = {"check", "fewest GPUs", "quotas", "hardware"};
  s << "plan " << o.plan.name << " (" << question[static_cast<int>(a.question)] << "): " << o.planner.entries().size()
    << " candidates judged on " << o.planner.seeds(SeedSet::MAIN).size() << " seeds";
  bool fresh = false;
  for (const Entry& e : o.planner.entries()) fresh = fresh || e.seeds == SeedSet::FRESH;
  if (fresh) s << " (and " << o.planner.seeds(SeedSet::FRESH).size() << " fresh seeds)";
  s << ", " << o.planner.replays() << " replays\n";
  if (a.chosen == nullptr) return s.str() + "nothing judged\n";
  const std::string what = o.planner.describe(a.chosen->candidate);
  if (a.question == Question::HARDWARE) {
    for (const HardwareRow& r : a.hardware) {
      s << "  " << r.name << ": " << (r.meets ? "meets the targets with " : "misses the targets even with ")
        << o.planner.describe(r.answer->candidate);
      if (r.price_per_gpu_hour) s << ", " << go_json_number(std::round(*r.price_per_gpu_hour * r.devices * 100) / 100) << " per hour";
      s << "\n";
    }
  }
  if (a.found && a.recheck_holds) {
    s << "answer: " << what << ": every target met (one-sided " << go_json_number(o.plan.confidence * 100)
      << "% bounds)" << (o.planner.seeds(SeedSet::FRESH).empty() || a.question == Question::CHECK ? "" : ", also on fresh seeds") << "\n";
  } else if (a.found) {
    s << "answer: " << what << " meets every target on the seeds but NOT on the fresh seeds\n";
  } else {
    s << "NOT MET: " << (a.question == Question::CHECK ? "" : "no candidate meets every target; closest: ") << what << "\n";
  }
  for (const Check& c : a.chosen->checks) {
    const Target& t = o.plan.targets[c.target];
    s << "  " << (c.holds ? "ok    " : "FAILS ") << target_text(t) << (t.scope == "*" ? " [" + c.queue + "]" : "") << ": mean "
      << go_json_number(std::round(c.interval.mean * 1000) / 1000) << ", bound "
      << go_json_number(std::round(c.deciding() * 1000) / 1000) << " " << metric_unit(t.metric) << "\n";
  }
  for (const std::vector<Failure>* fs : {&o.failures, &o.fresh_failures}) {
    for (const Failure& f : *fs) {
      s << "  why " << f.target << (fs == &o.fresh_failures ? " (fresh seeds)" : "") << ": ";
      if (f.reasons.empty()) s << "no pending reason recorded";
      for (std::size_t i = 0; i < f.reasons.size() && i < 3; ++i) {
        s << (i ? ", " : "") << f.reasons[i].reason << " " << go_json_number(std::round(f.reasons[i].share * 100)) << "%";
      }
      s << " of the pod-seconds waited; seeds " ;
      for (std::size_t i = 0; i < f.seeds.size(); ++i) s << (i ? "," : "") << f.seeds[i];
      if (f.seeds.empty()) s << "none alone";
      s << ". " << f.advice << "\n";
    }
  }
  for (int n : a.non_monotone) s << "  non-monotone: " << n << " fails although fewer nodes meet the targets\n";
  for (const std::string& n : a.notes) s << "  note: " << n << "\n";
  return s.str();
}

PlanResult run_plan(const PlanSpec& plan, const PlanOptions& options, Diagnostics& diagnostics) {
  Planner planner(plan, options, diagnostics);
  Answer answer;
  switch (plan.question) {
    case Question::CHECK: answer = answer_check(planner); break;
    case Question::GPUS: answer = answer_gpus(planner); break;
    case Question::QUOTAS: answer = answer_quotas(planner); break;
    case Question::HARDWARE: answer = answer_hardware(planner); break;
  }
  PlanOutcome o{plan, planner, answer, {}, {}, {}, {}, {}};
  int id = 0;
  for (const Entry& e : planner.entries()) o.ids[&e.judgement] = id++;
  auto under = [&](const std::string& q) { return leaves_under(planner.base(), q); };
  if (answer.chosen != nullptr) o.failures = explain(plan, *answer.chosen, under);
  if (answer.recheck != nullptr) o.fresh_failures = explain(plan, *answer.recheck, under);
  const Candidate manifest_candidate = answer.chosen != nullptr ? answer.chosen->candidate : planner.base().base_candidate();
  o.manifests = plan_manifests(planner.base().queues_for(manifest_candidate), plan.tenants,
                               "# Queues planned by kaisim plan " + plan.name + " (KAI Scheduler v0.16.4, scheduling.run.ai/v2).\n"
                               "# Every queue states cpu and memory: an omitted block is limit 0 in KAI, which LimitRange defaults hit.\n");
  PlanResult r;
  r.files = o.manifests;
  Diagnostics report;
  for (auto& [name, text] : report_files(o, report)) r.files[name] = std::move(text);
  for (const std::string& w : report.warnings) diagnostics.warnings.push_back(w);
  o.warnings = report.warnings;
  r.files["plan.json"] = plan_json(o);
  r.summary = summary_text(o);
  r.targets_met = answer.found && answer.recheck_holds;
  r.replays = planner.replays();
  r.replay_seconds = planner.replay_seconds();
  r.search_seconds = std::max(0.0, planner.elapsed_seconds() - planner.replay_seconds());
  return r;
}

void write_plan_folder(const std::string& out, const PlanResult& result) {
  replay::write_output_folder(out, result.files, "plan.json", "plan");
}

}  // namespace sim::plan
