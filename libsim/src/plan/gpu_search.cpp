// The fewest nodes that meet the targets: doubling from the knob's lowest count until a count
// holds, then bisection between the last count that failed and the first that held. Gangs and
// fragmentation can make "holds" non-monotone in the count, so the two counts below the answer
// are judged too; one that holds becomes the answer and is reported as a non-monotone point.
// The answer is then judged again on fresh seeds, and raised until it holds on those as well.

#include <algorithm>
#include <map>

#include "questions.hpp"

namespace sim::plan {
namespace {

class GpuSearch {
 public:
  GpuSearch(Planner& p, std::string hardware, const Range& range)
      : p_(p),
        hardware_(std::move(hardware)),
        lo_(static_cast<int>(range.min)),
        hi_(static_cast<int>(range.max)) {}

  Answer run() {
    Answer a;
    a.question = Question::GPUS;
    int fail = lo_ - 1;
    int pass = -1;
    int n = lo_;
    p_.expect_replays(static_cast<std::size_t>(estimate()) * p_.seeds(SeedSet::MAIN).size());
    while (true) {
      if (at(n).feasible) {
        pass = n;
        break;
      }
      fail = n;
      if (n >= hi_) break;
      n = std::min(hi_, std::max(n * 2, n + 1));
    }
    if (pass < 0) {
      a.found = false;
      // Every measure of the closest count, for the explanation (its replays may have stopped
      // early).
      a.chosen = &p_.complete(at(hi_), SeedSet::MAIN, "closest");
      a.notes.push_back("no node count up to " + std::to_string(hi_) + " meets every target");
      finish(a);
      return a;
    }
    while (pass - fail > 1) {
      const int mid = fail + (pass - fail) / 2;
      if (at(mid).feasible) {
        pass = mid;
      } else {
        fail = mid;
      }
    }
    // Below the answer: n-1 and n-2, judged together. A count there that holds means "holds" is
    // not monotone; the smallest such count becomes the answer and is searched below again.
    for (int round = 0; round < 64; ++round) {
      std::vector<int> below;
      for (int k = pass - 1; k >= std::max(lo_, pass - 2); --k) below.push_back(k);
      if (below.empty()) break;
      judge_all(below, "neighbour");
      int smallest = pass;
      for (int k : below) {
        if (at(k).feasible) smallest = std::min(smallest, k);
      }
      if (smallest == pass) break;
      pass = smallest;
    }
    a.found = true;
    a.chosen = &at(pass);
    // Fresh seeds: the answer must hold on seeds the search never saw.
    if (!p_.seeds(SeedSet::FRESH).empty()) {
      for (int k = pass; k <= hi_; ++k) {
        const Judgement& main = at(k);
        if (!main.feasible) continue;
        const Judgement& fresh = p_.judge_one(candidate(k), SeedSet::FRESH, "recheck", true);
        if (fresh.feasible) {
          if (k != pass) {
            a.notes.push_back(std::to_string(pass) +
                              " nodes met the targets on the seeds but not on fresh seeds; " +
                              std::to_string(k) + " meet them on both");
          }
          a.chosen = &main;
          a.recheck = &fresh;
          a.recheck_holds = true;
          break;
        }
        if (a.recheck == nullptr) a.recheck = &fresh;
      }
      if (!a.recheck_holds) {
        a.notes.push_back("no node count up to " + std::to_string(hi_) +
                          " meets every target on the fresh seeds as well");
      }
    } else {
      a.recheck_holds = true;
    }
    finish(a);
    return a;
  }

 private:
  Candidate candidate(int n) const {
    Candidate c = p_.base().base_candidate();
    c.hardware = hardware_;
    c.knob = n;
    c.nodes = p_.base().nodes_at(n, hardware_);
    return c;
  }

  const Judgement& at(int n) {
    auto it = judged_.find(n);
    if (it != judged_.end()) return *it->second;
    const Judgement& j = p_.judge_one(candidate(n), SeedSet::MAIN, "search");
    judged_[n] = &j;
    if (j.feasible && (best_ < 0 || n < best_)) {
      best_ = n;
      p_.set_best(p_.describe(j.candidate));
    }
    return j;
  }

  void judge_all(const std::vector<int>& ns, const std::string& role) {
    std::vector<Candidate> cs;
    for (int n : ns) {
      if (!judged_.contains(n)) cs.push_back(candidate(n));
    }
    const std::vector<const Judgement*> js = p_.judge(cs, SeedSet::MAIN, role);
    for (const Judgement* j : js) judged_[j->candidate.knob] = j;
  }

  // Doubling and bisection over [lo, hi], plus the two neighbours: about 2 log2(hi) counts.
  int estimate() const {
    int steps = 0;
    for (int n = std::max(lo_, 1); n < hi_; n *= 2) ++steps;
    return 2 * steps + 3;
  }

  void finish(Answer& a) {
    for (const auto& [n, j] : judged_) a.curve.push_back(j);
    bool seen_pass = false;
    for (const auto& [n, j] : judged_) {
      if (j->feasible) seen_pass = true;
      if (seen_pass && !j->feasible) a.non_monotone.push_back(n);
    }
    for (int n : a.non_monotone) {
      a.notes.push_back(std::to_string(n) +
                        " nodes fail although fewer meet the targets (not monotone: gangs or "
                        "fragmentation)");
    }
  }

  Planner& p_;
  std::string hardware_;
  int lo_, hi_;
  int best_ = -1;
  std::map<int, const Judgement*> judged_;
};

}  // namespace

Answer search_gpus(Planner& planner, const std::string& hardware, const Range& range) {
  return GpuSearch(planner, hardware, range).run();
}

Answer answer_gpus(Planner& planner) {
  return search_gpus(planner, "", planner.plan().gpus->count);
}

}  // namespace sim::plan
