#pragma once
// Private: the four questions a plan asks (sim/plan/plan_spec.hpp Question) and what each
// answers with.

#include <string>
#include <vector>

#include "planner_core.hpp"

namespace sim::plan {

/// One alternative of a hardware comparison.
struct HardwareRow {
  std::string name;
  const Judgement* answer =
      nullptr;         ///< the fewest nodes that meet the targets, else the most judged
  bool meets = false;  ///< on the seeds and, when checked, the fresh seeds
  double gpus = 0;     ///< GPUs as KAI counts them (MIG instances by their Ng)
  int devices = 0;     ///< physical GPUs
  int nodes = 0;
  std::optional<double> price_per_gpu_hour;
  std::vector<const Judgement*> curve;  ///< every node count judged on the seeds, by count
};

struct Answer {
  Question question = Question::CHECK;
  bool found = false;  ///< a candidate meets every target on the seeds
  const Judgement* chosen =
      nullptr;  ///< the answer; when none is found, the candidate closest to it
  const Judgement* recheck = nullptr;  ///< the answer judged on the fresh seeds
  bool recheck_holds = false;
  std::vector<int> non_monotone;        ///< knob values that fail although a smaller one holds
  std::vector<const Judgement*> curve;  ///< GPUS: each count judged on the seeds, by count
  std::vector<const Judgement*>
      pareto;  ///< QUOTAS: the candidates no other one beats on every objective
  std::vector<HardwareRow> hardware;
  std::vector<std::string> notes;  ///< what the search saw on the way, in words
  double screened = 0;             ///< QUOTAS: candidates the fair-share screen scored
  double screen_seconds = 0;
};

Answer answer_check(Planner& planner);
Answer answer_gpus(Planner& planner);
Answer answer_quotas(Planner& planner);
Answer answer_hardware(Planner& planner);

/// Child quotas within the parent's (KAI's queue webhook), and each quota within its limit.
bool quotas_allowed(const BaseScenario& base, const Candidate& c);

/// The GPU search for one hardware option ("" = the base scenario's) over `range` of the knob.
Answer search_gpus(Planner& planner, const std::string& hardware, const Range& range);

}  // namespace sim::plan
