#pragma once
// Private: what a finished plan writes: plan.json (docs/plan-format.md lists every field with its
// unit), the report (report.md, report.html and the figures) and the line the CLI prints.

#include <map>
#include <string>
#include <vector>

#include "explain.hpp"
#include "questions.hpp"

namespace sim::plan {

struct PlanOutcome {
  const PlanSpec& plan;
  const Planner& planner;
  Answer answer;
  std::vector<Failure> failures;  ///< the answer's failing targets (none when it meets them all)
  std::vector<Failure> fresh_failures;  ///< and on the fresh seeds
  /// Each judgement's number in plan.json's candidates (judging order).
  std::map<const Judgement*, int> ids;
  std::map<std::string, std::string> manifests;
  std::vector<std::string>
      warnings;  ///< findings about the plan itself (vCluster quotas too small)
};

std::string plan_json(const PlanOutcome& o);
/// One entry of plan.json's candidates (JSON text).
std::string candidate_entry_json(const PlanOutcome& o, const Entry& e, int id);
/// report.md, report.html and the figures (SVG). Figures need gnuplot; without it the reports
/// say so and carry the tables only.
std::map<std::string, std::string> report_files(const PlanOutcome& o, Diagnostics& diagnostics);
/// The CLI's summary: the question, the answer, the time, any failing target explained.
std::string summary_text(const PlanOutcome& o);

}  // namespace sim::plan
