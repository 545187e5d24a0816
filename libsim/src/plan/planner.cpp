// `kaisim plan`: the question's search, then the plan folder.

#include "sim/plan/planner.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "plan_output.hpp"
#include "planner_core.hpp"
#include "sim/core/go_json.hpp"
#include "sim/io/output_folder.hpp"

namespace sim::plan {

Answer answer_check(Planner& planner) {
  Answer a;
  a.question = Question::CHECK;
  const Judgement& j =
      planner.judge_one(planner.base().base_candidate(), SeedSet::MAIN, "check", true);
  a.chosen = &j;
  a.found = j.feasible;
  a.recheck_holds = j.feasible;  // a check judges one configuration: no search to re-check
  return a;
}

std::string summary_text(const PlanOutcome& o) {
  std::ostringstream s;
  const Answer& a = o.answer;
  const char* question[] = {"check", "fewest GPUs", "quotas", "hardware"};
  s << "plan " << o.plan.name << " (" << question[static_cast<int>(a.question)]
    << "): " << o.planner.entries().size() << " candidates judged on "
    << o.planner.seeds(SeedSet::MAIN).size() << " seeds";
  bool fresh = false;
  for (const Entry& e : o.planner.entries()) fresh = fresh || e.seeds == SeedSet::FRESH;
  if (fresh) s << " (and " << o.planner.seeds(SeedSet::FRESH).size() << " fresh seeds)";
  s << ", " << o.planner.replays() << " replays\n";
  if (a.chosen == nullptr) return s.str() + "nothing judged\n";
  const std::string what = o.planner.describe(a.chosen->candidate);
  if (a.question == Question::HARDWARE) {
    for (const HardwareRow& r : a.hardware) {
      s << "  " << (r.meets ? "meets the targets: " : "misses the targets even at ")
        << o.planner.describe(r.answer->candidate);
      if (r.price_per_gpu_hour)
        s << ", " << go_json_number(std::round(*r.price_per_gpu_hour * r.devices * 100) / 100)
          << " per hour";
      s << "\n";
    }
  }
  if (a.found && a.recheck_holds) {
    s << "answer: " << what << ": every target met (one-sided "
      << go_json_number(o.plan.confidence * 100) << "% bounds)"
      << (o.planner.seeds(SeedSet::FRESH).empty() || a.question == Question::CHECK
              ? ""
              : ", also on fresh seeds")
      << "\n";
  } else if (a.found) {
    s << "answer: " << what << " meets every target on the seeds but NOT on the fresh seeds\n";
  } else {
    s << "NOT MET: "
      << (a.question == Question::CHECK ? "" : "no candidate meets every target; closest: ") << what
      << "\n";
  }
  for (const Check& c : a.chosen->checks) {
    const Target& t = o.plan.targets[c.target];
    s << "  " << (c.holds ? "ok    " : "FAILS ") << target_text(t)
      << (t.scope == "*" ? " [" + c.queue + "]" : "") << ": mean "
      << go_json_number(std::round(c.interval.mean * 1000) / 1000) << ", bound "
      << go_json_number(std::round(c.deciding() * 1000) / 1000) << " " << metric_unit(t.metric)
      << "\n";
  }
  for (const std::vector<Failure>* fs : {&o.failures, &o.fresh_failures}) {
    for (const Failure& f : *fs) {
      s << "  why " << f.target << (fs == &o.fresh_failures ? " (fresh seeds)" : "") << ": ";
      if (f.reasons.empty()) s << "no pending reason recorded";
      for (std::size_t i = 0; i < f.reasons.size() && i < 3; ++i) {
        s << (i ? ", " : "") << f.reasons[i].reason << " "
          << go_json_number(std::round(f.reasons[i].share * 100)) << "%";
      }
      s << " of the pod-seconds waited; seeds ";
      for (std::size_t i = 0; i < f.seeds.size(); ++i) s << (i ? "," : "") << f.seeds[i];
      if (f.seeds.empty()) s << "none alone";
      s << ". " << f.advice << "\n";
    }
  }
  for (int n : a.non_monotone)
    s << "  non-monotone: " << n << " fails although fewer nodes meet the targets\n";
  for (const std::string& n : a.notes) s << "  note: " << n << "\n";
  return s.str();
}

namespace {

// The plan folder and the summary of an answered plan.
PlanResult outcome(const PlanSpec& plan, Planner& planner, const Answer& answer,
                   Diagnostics& diagnostics) {
  PlanOutcome o{plan, planner, answer, {}, {}, {}, {}, {}};
  int id = 0;
  for (const Entry& e : planner.entries()) o.ids[&e.judgement] = id++;
  auto under = [&](const std::string& q) { return leaves_under(planner.base(), q); };
  if (answer.chosen != nullptr) o.failures = explain(plan, *answer.chosen, under);
  if (answer.recheck != nullptr) o.fresh_failures = explain(plan, *answer.recheck, under);
  const Candidate manifest_candidate =
      answer.chosen != nullptr ? answer.chosen->candidate : planner.base().base_candidate();
  o.manifests = plan_manifests(planner.base().queues_for(manifest_candidate), plan.tenants,
                               "# Queues planned by kaisim plan " + plan.name +
                                   " (KAI Scheduler v0.16.4, scheduling.run.ai/v2).\n"
                                   "# Every queue states cpu and memory: an omitted block is limit "
                                   "0 in KAI, which LimitRange defaults hit.\n");
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

const char* kFields[] = {"quota", "limit", "overQuotaWeight"};

}  // namespace

PlanResult run_plan(const PlanSpec& plan, const PlanOptions& options, Diagnostics& diagnostics) {
  PlanSession session(plan, options, diagnostics);
  return session.answer();
}

PlanSession::PlanSession(const PlanSpec& plan, const PlanOptions& options, Diagnostics& diagnostics)
    : plan_(plan),
      options_(options),
      diagnostics_(diagnostics),
      planner_(std::make_unique<Planner>(plan_, options_, diagnostics)) {}

PlanSession::~PlanSession() = default;

std::vector<std::string> PlanSession::leaf_queues() const { return planner_->base().leaf_queues(); }

std::vector<PlanSession::Dimension> PlanSession::dimensions() const {
  std::vector<Dimension> out;
  for (const QuotaKnob& k : plan_.quotas) {
    const std::optional<Range>* fields[] = {&k.quota, &k.limit, &k.weight};
    for (int f = 0; f < 3; ++f) {
      if (*fields[f] && !(*fields[f])->fixed())
        out.push_back(
            {k.queue, kFields[f], (*fields[f])->min, (*fields[f])->max, (*fields[f])->step});
    }
  }
  return out;
}

std::vector<int> PlanSession::judge_quotas(const std::vector<std::vector<double>>& values,
                                           bool fresh, const std::string& role) {
  const std::vector<Dimension> dims = dimensions();
  std::vector<Candidate> candidates;
  std::vector<int> slot(values.size(), -1);
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i].size() != dims.size()) {
      throw InputError({}, "values[" + std::to_string(i) + "]",
                       "expected " + std::to_string(dims.size()) + " numbers, one per dimension");
    }
    Candidate c = planner_->base().base_candidate();
    for (std::size_t d = 0; d < dims.size(); ++d) {
      // On the knob's grid, within its range.
      const double steps = std::round(
          (std::clamp(values[i][d], dims[d].min, dims[d].max) - dims[d].min) / dims[d].step);
      const double v = std::round((dims[d].min + steps * dims[d].step) * 1000) / 1000;
      QueueResource& r = c.gpu[dims[d].queue];
      (dims[d].field == "quota"   ? r.quota
       : dims[d].field == "limit" ? r.limit
                                  : r.over_quota_weight) = std::min(v, dims[d].max);
    }
    if (!quotas_allowed(planner_->base(), c)) continue;
    slot[i] = static_cast<int>(candidates.size());
    candidates.push_back(std::move(c));
  }
  const std::vector<const Judgement*> judged =
      planner_->judge(candidates, fresh ? SeedSet::FRESH : SeedSet::MAIN, role);
  std::vector<int> ids(values.size(), -1);
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (slot[i] < 0) continue;
    const Judgement* j = judged[static_cast<std::size_t>(slot[i])];
    for (std::size_t e = 0; e < planner_->entries().size(); ++e) {
      if (&planner_->entries()[e].judgement == j) ids[i] = static_cast<int>(e);
    }
  }
  return ids;
}

std::string PlanSession::candidate_json(int id) const {
  if (id < 0 || static_cast<std::size_t>(id) >= planner_->entries().size()) {
    throw InputError({}, "id", "no candidate " + std::to_string(id));
  }
  Answer none;
  PlanOutcome o{plan_, *planner_, none, {}, {}, {}, {}, {}};
  return candidate_entry_json(o, planner_->entries()[static_cast<std::size_t>(id)], id);
}

PlanResult PlanSession::answer() {
  Answer answer;
  switch (plan_.question) {
    case Question::CHECK:
      answer = answer_check(*planner_);
      break;
    case Question::GPUS:
      answer = answer_gpus(*planner_);
      break;
    case Question::QUOTAS:
      answer = answer_quotas(*planner_);
      break;
    case Question::HARDWARE:
      answer = answer_hardware(*planner_);
      break;
  }
  return outcome(plan_, *planner_, answer, diagnostics_);
}

PlanResult PlanSession::finish(int chosen, const std::vector<int>& pareto,
                               const std::vector<std::string>& notes) {
  const std::size_t n = planner_->entries().size();
  auto at = [&](int id) -> const Judgement* {
    if (id < 0 || static_cast<std::size_t>(id) >= n)
      throw InputError({}, "id", "no candidate " + std::to_string(id));
    return &planner_->entries()[static_cast<std::size_t>(id)].judgement;
  };
  Answer a;
  a.question = plan_.question;
  a.chosen = &planner_->complete(*at(chosen), SeedSet::MAIN, "closest");
  a.found = a.chosen->feasible;
  for (int id : pareto) a.pareto.push_back(at(id));
  a.notes = notes;
  if (a.found && !planner_->seeds(SeedSet::FRESH).empty()) {
    a.recheck = &planner_->judge_one(a.chosen->candidate, SeedSet::FRESH, "recheck", true);
    a.recheck_holds = a.recheck->feasible;
    if (!a.recheck_holds)
      a.notes.push_back("the answer meets the targets on the seeds but not on fresh seeds");
  } else {
    a.recheck_holds = a.found;
  }
  return outcome(plan_, *planner_, a, diagnostics_);
}

std::vector<std::string> write_plan_folder(const std::string& out, const PlanResult& result) {
  return io::write_output_folder(out, result.files, "plan").notes();
}

}  // namespace sim::plan
