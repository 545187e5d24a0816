// Hardware what-if: every alternative judged on the same seeds and targets, at the fewest nodes
// that meet them (the GPU search on the alternative's count range) or at its one count, with its
// cost per hour when the plan gives a price per GPU-hour.

#include "questions.hpp"

namespace sim::plan {

Answer answer_hardware(Planner& planner) {
  const PlanSpec& plan = planner.plan();
  Answer a;
  a.question = Question::HARDWARE;
  for (const HardwareOption& h : plan.hardware) {
    const Range range = h.count ? *h.count : plan.gpus->count;
    const Answer one = search_gpus(planner, h.name, range);
    HardwareRow row;
    row.name = h.name;
    row.answer = one.chosen;
    row.meets = one.found && one.recheck_holds;
    row.curve = one.curve;
    row.price_per_gpu_hour = h.price_per_gpu_hour;
    const Candidate& c = one.chosen->candidate;
    row.gpus = planner.base().gpus_of(c);
    row.devices = planner.base().devices_of(c);
    for (const auto& [pool, n] : c.nodes) row.nodes += n;
    for (const std::string& note : one.notes) a.notes.push_back(h.name + ": " + note);
    a.hardware.push_back(row);
  }
  // The answer: the cheapest alternative that meets the targets (by cost when every one that
  // meets them has a price, else by physical GPUs), ties in the plan's order.
  const HardwareRow* best = nullptr;
  auto cost = [](const HardwareRow& r) {
    return r.price_per_gpu_hour ? *r.price_per_gpu_hour * r.devices : r.devices;
  };
  bool priced = true;
  for (const HardwareRow& r : a.hardware) priced = priced && (!r.meets || r.price_per_gpu_hour);
  for (const HardwareRow& r : a.hardware) {
    if (!r.meets) continue;
    const double mine = priced ? cost(r) : r.devices;
    const double theirs = best == nullptr ? 0 : (priced ? cost(*best) : best->devices);
    if (best == nullptr || mine < theirs) best = &r;
  }
  a.found = best != nullptr;
  a.recheck_holds = a.found;
  a.chosen = best != nullptr ? best->answer : a.hardware.front().answer;
  for (const Entry& e : planner.entries()) {
    if (e.seeds == SeedSet::FRESH && best != nullptr &&
        e.judgement.candidate == best->answer->candidate)
      a.recheck = &e.judgement;
  }
  return a;
}

}  // namespace sim::plan
