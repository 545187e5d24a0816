// Quotas, limits and weights that meet the targets. A cheap screen first: KAI's fair-share
// division (libsim/fairshare, the proportion plugin's code) applied to the demand each queue had
// in the base scenario's replays, a few hundred moments per seed; by Little's law a queue's mean
// wait is about its unmet GPU demand over its rate of GPUs asked, so a candidate is scored by
// its worst queue's estimated wait against that queue's wait target. The best screened
// candidates are then judged with full replays on every seed, and the best judged one is
// improved step by step (each knob up and down, screened, the best few replayed) until the
// replay budget is spent. Several targets give a Pareto front, not one number.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <set>

#include "questions.hpp"
#include "sim/core/go_json.hpp"
#include "sim/fairshare/hierarchy.hpp"
#include "sim/fairshare/queue_quota.hpp"
#include "sim/model/queue_tree.hpp"

namespace sim::plan {
namespace {

// One searched number: a knob field of a queue, on its grid.
struct Dimension {
  std::string queue;
  int field = 0;  // 0 quota, 1 limit, 2 overQuotaWeight
  Range range;
  int steps() const {
    return static_cast<int>(std::floor((range.max - range.min) / range.step + 1e-9));
  }
  double value(int i) const {
    const double v = range.min + i * range.step;
    return std::round(v * 1000) / 1000;  // milli steps (weights given in finer steps keep them)
  }
};

class QuotaSearch {
 public:
  explicit QuotaSearch(Planner& p)
      : p_(p), rng_(p.plan().search.seed * 0x9E3779B97F4A7C15ULL + 0x51) {
    for (const QuotaKnob& k : p.plan().quotas) {
      const std::optional<Range>* fields[] = {&k.quota, &k.limit, &k.weight};
      for (int f = 0; f < 3; ++f) {
        if (*fields[f] && !(*fields[f])->fixed()) dims_.push_back({k.queue, f, **fields[f]});
      }
    }
    base_ = p.base().base_candidate();
  }

  Answer run() {
    Answer a;
    a.question = Question::QUOTAS;
    const int budget = p_.plan().search.replayed;
    p_.expect_replays(static_cast<std::size_t>(budget + 1) * p_.seeds(SeedSet::MAIN).size());
    // The base scenario's own values: the demand the screen divides, and a point of reference.
    const Judgement& reference = p_.judge_one(base_, SeedSet::MAIN, "base", true);
    prepare_screen(reference);

    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::vector<int>> pool;
    pool.push_back(centre());
    for (int i = 0; i < p_.plan().search.screen; ++i) pool.push_back(draw());
    std::vector<std::pair<double, std::size_t>> scored;
    for (std::size_t i = 0; i < pool.size(); ++i) {
      if (!allowed(pool[i])) continue;
      scored.emplace_back(screen(pool[i]), i);
    }
    a.screened = static_cast<double>(scored.size());
    std::stable_sort(scored.begin(), scored.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    screen_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    // Round one: the best screened, judged together.
    const int first = std::max(1, std::min(budget, std::max(4, budget / 3)));
    std::vector<std::vector<int>> batch;
    for (const auto& [score, i] : scored) {
      if (static_cast<int>(batch.size()) >= first) break;
      if (seen_.insert(pool[i]).second) batch.push_back(pool[i]);
    }
    judge(batch, "screen");
    // Then step by step from the best judged: every knob up and down by an eighth and a
    // thirty-second of its range and by one grid step, screened, the best few replayed.
    while (static_cast<int>(judged_.size()) < budget) {
      const std::vector<int> from = best_point();
      std::vector<std::pair<double, std::vector<int>>> next;
      for (std::size_t d = 0; d < dims_.size(); ++d) {
        const int big = std::max(1, dims_[d].steps() / 8),
                  small = std::max(1, dims_[d].steps() / 32);
        for (int delta : {big, -big, small, -small, 1, -1}) {
          std::vector<int> x = from;
          x[d] = std::clamp(x[d] + delta, 0, dims_[d].steps());
          if (x == from || seen_.contains(x) || !allowed(x)) continue;
          const auto s0 = std::chrono::steady_clock::now();
          const double score = screen(x);
          screen_seconds_ +=
              std::chrono::duration<double>(std::chrono::steady_clock::now() - s0).count();
          next.emplace_back(score, x);
        }
      }
      if (next.empty()) break;
      std::stable_sort(next.begin(), next.end(),
                       [](const auto& x, const auto& y) { return x.first < y.first; });
      batch.clear();
      const int room = budget - static_cast<int>(judged_.size());
      for (const auto& [score, x] : next) {
        if (static_cast<int>(batch.size()) >= std::min(room, 4)) break;
        if (seen_.insert(x).second) batch.push_back(x);
      }
      if (batch.empty()) break;
      judge(batch, "refine");
    }
    a.screen_seconds = screen_seconds_;
    choose(a);
    return a;
  }

 private:
  std::vector<int> centre() const {
    std::vector<int> x;
    for (const Dimension& d : dims_) x.push_back(d.steps() / 2);
    return x;
  }

  std::vector<int> draw() {
    std::vector<int> x;
    for (const Dimension& d : dims_)
      x.push_back(static_cast<int>(rng_() % static_cast<std::uint64_t>(d.steps() + 1)));
    return x;
  }

  Candidate candidate(const std::vector<int>& x) const {
    Candidate c = base_;
    for (std::size_t d = 0; d < dims_.size(); ++d) {
      QueueResource& r = c.gpu[dims_[d].queue];
      const double v = dims_[d].value(x[d]);
      (dims_[d].field == 0 ? r.quota : dims_[d].field == 1 ? r.limit : r.over_quota_weight) = v;
    }
    return c;
  }

  bool allowed(const std::vector<int>& x) const { return quotas_allowed(p_.base(), candidate(x)); }

  void prepare_screen(const Judgement& reference) {
    const std::vector<PlannedQueue> queues = p_.base().queues_for(base_);
    std::vector<model::QueueLink> links;
    for (const PlannedQueue& q : queues) {
      model::QueueLink link;
      link.uid = q.name;
      link.parent = q.parent;
      link.path = "queues." + q.name;
      links.push_back(std::move(link));
    }
    Diagnostics ignored;
    tree_ = model::QueueTree::build(links, ignored);
    leaves_ = p_.base().leaf_queues();
    // Contended moments only: where every queue's demand fits, every queue gets it whatever
    // the quotas are.
    for (const SeedMeasure& m : reference.measures) {
      capacity_ = m.gpus;
      for (int k = 0; k < kDemandSamples; ++k) {
        std::vector<double> d;
        double total = 0;
        for (const std::string& q : leaves_) {
          auto it = m.demand.find(q);
          d.push_back(it == m.demand.end() || it->second.empty()
                          ? 0
                          : it->second[static_cast<std::size_t>(k)]);
          total += d.back();
        }
        if (total > capacity_ + 1e-9) moments_.push_back(d);
      }
      for (std::size_t i = 0; i < leaves_.size(); ++i) {
        auto it = m.gpus_submitted.find(leaves_[i]);
        rate_.resize(leaves_.size());
        rate_[i] += it == m.gpus_submitted.end() ? 0 : it->second / std::max(1.0, m.duration_s);
      }
    }
    samples_ = static_cast<double>(kDemandSamples) * static_cast<double>(reference.measures.size());
    // Each leaf's tightest wait target (s), or 1 s when it has none.
    for (const std::string& q : leaves_) {
      double target = 0;
      for (const Target& t : p_.plan().targets) {
        const bool mine = t.scope == q || t.scope == "*" || t.scope == "cluster";
        const bool wait = t.metric == Metric::WAIT_P95 || t.metric == Metric::WAIT_MAX ||
                          t.metric == Metric::WAIT_MEAN;
        if (mine && wait && t.bound > 0) target = target == 0 ? t.bound : std::min(target, t.bound);
      }
      wait_target_.push_back(target > 0 ? target : 1);
    }
  }

  // The worst leaf's estimated mean wait over its wait target (lower is better).
  double screen(const std::vector<int>& x) const {
    if (moments_.empty()) return 0;
    const std::vector<PlannedQueue> queues = p_.base().queues_for(candidate(x));
    IdVector<QueueId, fairshare::QueueShares> start(tree_.size());
    for (const PlannedQueue& pq : queues) {
      const QueueId id = tree_.find(pq.name);
      if (!id.valid()) continue;
      model::QueueSpec spec;
      spec.name = pq.name;
      spec.parent = pq.parent;
      spec.priority = pq.priority.value_or(100);
      spec.gpu = {pq.gpu.quota, pq.gpu.limit, pq.gpu.over_quota_weight};
      spec.cpu = {pq.cpu.quota, pq.cpu.limit, pq.cpu.over_quota_weight};
      spec.memory = {pq.memory.quota, pq.memory.limit, pq.memory.over_quota_weight};
      start[id] = fairshare::shares_from_spec(spec);
    }
    std::vector<double> unmet(leaves_.size(), 0);
    ResourceVec total = ResourceVec::Zero();
    at(total, Resource::GPU) = capacity_;
    for (const std::vector<double>& d : moments_) {
      IdVector<QueueId, fairshare::QueueShares> shares = start;
      for (std::size_t i = 0; i < leaves_.size(); ++i) {
        for (QueueId q = tree_.find(leaves_[i]); q.valid(); q = tree_.parent(q))
          shares[q][Resource::GPU].request += d[i];
      }
      fairshare::compute_fair_shares(tree_, shares, total, 1.0);
      for (std::size_t i = 0; i < leaves_.size(); ++i) {
        const QueueId q = tree_.find(leaves_[i]);
        unmet[i] += std::max(0.0, d[i] - shares[q][Resource::GPU].fair_share);
      }
    }
    double worst = 0;
    for (std::size_t i = 0; i < leaves_.size(); ++i) {
      const double mean_unmet = unmet[i] / samples_;
      const double wait =
          rate_[i] > 0
              ? mean_unmet / (rate_[i] / static_cast<double>(p_.seeds(SeedSet::MAIN).size()))
              : 0;
      worst = std::max(worst, wait / wait_target_[i]);
    }
    return worst;
  }

  void judge(const std::vector<std::vector<int>>& xs, const std::string& role) {
    std::vector<Candidate> cs;
    for (const auto& x : xs) cs.push_back(candidate(x));
    const std::vector<const Judgement*> js = p_.judge(cs, SeedSet::MAIN, role);
    for (std::size_t i = 0; i < xs.size(); ++i) {
      judged_.emplace_back(xs[i], js[i]);
      if (best_ == nullptr || better(*js[i], *best_)) {
        best_ = js[i];
        p_.set_best(p_.describe(js[i]->candidate) +
                    (js[i]->feasible ? "" : " (not every target met)"));
      }
    }
  }

  static double evictions(const Judgement& j) {
    double sum = 0;
    for (const SeedMeasure& m : j.measures) sum += m.cluster.evictions;
    return sum / static_cast<double>(std::max<std::size_t>(1, j.measures.size()));
  }

  // Feasible first, then the smaller worst ratio, then fewer evictions.
  static bool better(const Judgement& a, const Judgement& b) {
    if (a.feasible != b.feasible) return a.feasible;
    if (std::abs(a.worst_ratio - b.worst_ratio) > 1e-12) return a.worst_ratio < b.worst_ratio;
    return evictions(a) < evictions(b);
  }

  std::vector<int> best_point() const {
    for (const auto& [x, j] : judged_) {
      if (j == best_) return x;
    }
    return centre();
  }

  // Objectives of the front: each leaf's deciding wait bound (the worst of its wait targets'
  // checks), evictions, and utilization (higher is better, so negated).
  std::vector<double> objectives(const Judgement& j) const {
    std::vector<double> o;
    for (const std::string& q : leaves_) {
      double worst = 0.0;
      for (const Check& c : j.checks) {
        const Metric m = p_.plan().targets[c.target].metric;
        if (c.queue == q &&
            (m == Metric::WAIT_P95 || m == Metric::WAIT_MAX || m == Metric::WAIT_MEAN)) {
          worst = std::max(worst, c.interval.upper);
        }
      }
      o.push_back(worst);
    }
    o.push_back(evictions(j));
    double util = 0;
    for (const SeedMeasure& m : j.measures) util += m.utilization;
    o.push_back(-util / static_cast<double>(std::max<std::size_t>(1, j.measures.size())));
    return o;
  }

  void choose(Answer& a) {
    std::vector<const Judgement*> all;
    for (const auto& [x, j] : judged_) all.push_back(j);
    for (const Judgement* j : all) {
      const std::vector<double> mine = objectives(*j);
      bool dominated = false;
      for (const Judgement* other : all) {
        if (other == j) continue;
        const std::vector<double> theirs = objectives(*other);
        bool no_worse = true, better_somewhere = false;
        for (std::size_t i = 0; i < mine.size(); ++i) {
          no_worse = no_worse && theirs[i] <= mine[i] + 1e-12;
          better_somewhere = better_somewhere || theirs[i] < mine[i] - 1e-12;
        }
        dominated = dominated || (no_worse && better_somewhere);
      }
      if (!dominated) a.pareto.push_back(j);
    }
    std::vector<const Judgement*> ranked = all;
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const Judgement* x, const Judgement* y) { return better(*x, *y); });
    a.chosen = ranked.front();
    a.found = a.chosen->feasible;
    if (!a.found) {
      a.chosen = &p_.complete(*a.chosen, SeedSet::MAIN, "closest");
      a.notes.push_back("none of the " + std::to_string(all.size()) +
                        " candidates judged meets every target");
      return;
    }
    // Fresh seeds: the first of the best few that holds there too.
    if (p_.seeds(SeedSet::FRESH).empty()) {
      a.recheck_holds = true;
      return;
    }
    for (std::size_t i = 0; i < ranked.size() && i < 3 && ranked[i]->feasible; ++i) {
      const Judgement& fresh = p_.judge_one(ranked[i]->candidate, SeedSet::FRESH, "recheck", true);
      if (a.recheck == nullptr) a.recheck = &fresh;
      if (fresh.feasible) {
        if (i > 0)
          a.notes.push_back(
              "the best candidate did not hold on fresh seeds; the next that does is the answer");
        a.chosen = ranked[i];
        a.recheck = &fresh;
        a.recheck_holds = true;
        return;
      }
    }
    a.notes.push_back("the best candidates meet the targets on the seeds but not on fresh seeds");
  }

  Planner& p_;
  std::mt19937_64 rng_;
  std::vector<Dimension> dims_;
  Candidate base_;
  model::QueueTree tree_;
  std::vector<std::string> leaves_;
  std::vector<std::vector<double>> moments_;
  std::vector<double> rate_;
  std::vector<double> wait_target_;
  double capacity_ = 0;
  double samples_ = 1;
  double screen_seconds_ = 0;
  std::set<std::vector<int>> seen_;
  std::vector<std::pair<std::vector<int>, const Judgement*>> judged_;
  const Judgement* best_ = nullptr;
};

}  // namespace

bool quotas_allowed(const BaseScenario& base, const Candidate& c) {
  const std::vector<PlannedQueue> queues = base.queues_for(c);
  std::map<std::string, double> children;
  for (const PlannedQueue& q : queues) {
    if (q.gpu.limit >= 0 && q.gpu.quota > q.gpu.limit + 1e-9) return false;
    if (!q.parent.empty() && q.gpu.quota > 0) children[q.parent] += q.gpu.quota;
  }
  for (const PlannedQueue& q : queues) {
    auto it = children.find(q.name);
    if (it != children.end() && q.gpu.quota >= 0 && it->second > q.gpu.quota + 1e-9) return false;
  }
  return true;
}

Answer answer_quotas(Planner& planner) { return QuotaSearch(planner).run(); }

}  // namespace sim::plan
