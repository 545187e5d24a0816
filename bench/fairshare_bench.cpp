// Fair share of a large queue forest: 10,000 queues in 4 levels (10 x 10 x 10 x ~9), all three
// resources, random quotas, limits, weights, priorities and requests from a fixed seed.
//   build/bin/fairshare_bench --benchmark_repetitions=5

#include <benchmark/benchmark.h>

#include <random>

#include "sim/fairshare/hierarchy.hpp"

namespace {

using sim::Resource;

struct Forest {
  sim::model::QueueTree tree;
  sim::IdVector<sim::QueueId, sim::fairshare::QueueShares> initial;
  sim::ResourceVec total;
};

Forest make_forest(std::size_t target_queues) {
  std::mt19937_64 rng(42);
  std::vector<sim::model::QueueLink> links;
  auto add = [&](const std::string& uid, const std::string& parent) {
    sim::model::QueueLink link;
    link.uid = uid;
    link.parent = parent;
    links.push_back(std::move(link));
  };
  const std::size_t fanout[3] = {10, 10, 10};
  std::vector<std::string> level = {""};
  for (std::size_t depth = 0; depth < 3; ++depth) {
    std::vector<std::string> next;
    for (const std::string& parent : level) {
      for (std::size_t i = 0; i < fanout[depth]; ++i) {
        next.push_back((parent.empty() ? "q" : parent + "-") + std::to_string(i));
        add(next.back(), parent);
      }
    }
    level = next;
  }
  for (std::size_t i = 0; links.size() < target_queues; ++i) {
    add(level[i % level.size()] + "-leaf" + std::to_string(i), level[i % level.size()]);
  }
  sim::Diagnostics diagnostics;
  Forest f{sim::model::QueueTree::build(links, diagnostics), {}, sim::ResourceVec::Zero()};
  f.initial.resize(f.tree.size());
  std::uniform_real_distribution<double> unit(0, 1);
  std::uniform_int_distribution<int> priority(0, 2);
  for (auto it = f.tree.level_order().rbegin(); it != f.tree.level_order().rend(); ++it) {
    auto& q = f.initial[*it];
    q.priority = 100 + priority(rng);
    q.created = {static_cast<std::int64_t>(it->index()), 0};
    for (Resource r : sim::kQuotaResources) {
      const double scale = r == Resource::GPU ? 8 : r == Resource::CPU ? 64000 : 512e9;
      auto& s = q[r];
      s.deserved = std::floor(unit(rng) * 4) / 4 * scale / 8;
      s.max_allowed = unit(rng) < 0.3 ? -1 : s.deserved + std::floor(unit(rng) * scale);
      s.over_quota_weight = std::floor(unit(rng) * 4);
      if (f.tree.is_leaf(*it)) {
        s.request = std::floor(unit(rng) * scale);
      } else {
        for (sim::QueueId child : f.tree.children(*it)) s.request += f.initial[child][r].request;
      }
    }
  }
  sim::at(f.total, Resource::GPU) = 8.0 * 1000;
  sim::at(f.total, Resource::CPU) = 64000.0 * 1000;
  sim::at(f.total, Resource::MEMORY) = 512e9 * 1000;
  return f;
}

void BM_FairShareForest(benchmark::State& state) {
  const Forest forest = make_forest(static_cast<std::size_t>(state.range(0)));
  auto shares = forest.initial;
  for (auto _ : state) {
    state.PauseTiming();
    shares = forest.initial;
    state.ResumeTiming();
    sim::fairshare::compute_fair_shares(forest.tree, shares, forest.total, 1.0);
    benchmark::DoNotOptimize(shares[sim::QueueId(0)][Resource::GPU].fair_share);
  }
  state.counters["queues"] = static_cast<double>(forest.tree.size());
}
BENCHMARK(BM_FairShareForest)->Arg(1110)->Arg(10000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
