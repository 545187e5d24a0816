// Fair share of a large queue forest: 10,000 queues in 4 levels (10 x 10 x 10 x ~9), all three
// resources, random quotas, limits, weights, priorities and requests from a fixed seed; the
// division alone (FairShareForest) and what `kaisim fairshare` and `kaisim serve` do with the
// same forest as a KAI simulator request body (EndToEnd: parse the JSON, divide, write the
// answer).
//   build/bin/fairshare_bench --benchmark_repetitions=5
//   build/bin/fairshare_bench --write-request=FILE [--queues=N]   the request body, for the CLI

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>

#include "sim/api/fair_share_simulator.hpp"
#include "sim/core/go_json.hpp"
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

// The forest as the body of KAI's fair-share simulator, indented as a person or `jq` writes it
// (about 420 bytes a queue).
std::string request_body(const Forest& f) {
  using sim::go_json_number;
  const char* names[] = {"cpu", "memory", "gpu"};
  const sim::Resource resources[] = {Resource::CPU, Resource::MEMORY, Resource::GPU};
  std::string out =
      "{\n  \"totalResource\": {\"CPU\": " + go_json_number(sim::at(f.total, Resource::CPU)) +
      ", \"Memory\": " + go_json_number(sim::at(f.total, Resource::MEMORY)) +
      ", \"GPU\": " + go_json_number(sim::at(f.total, Resource::GPU)) + "},\n  \"queues\": [";
  for (sim::QueueId id : f.tree.level_order()) {
    const auto& q = f.initial[id];
    out += id == f.tree.level_order().front() ? "\n" : ",\n";
    out += "    {\n      \"uid\": \"" + f.tree.uid(id) + "\",\n      \"name\": \"" +
           f.tree.uid(id) + "\",\n";
    const sim::QueueId parent = f.tree.parent(id);
    if (parent.valid()) out += "      \"parentQueue\": \"" + f.tree.uid(parent) + "\",\n";
    out += "      \"priority\": " + std::to_string(q.priority) + ",\n      \"resourceShare\": {";
    for (int r = 0; r < 3; ++r) {
      const auto& s = q[resources[r]];
      out += std::string(r == 0 ? "\n" : ",\n") + "        \"" + names[r] +
             "\": {\"deserved\": " + go_json_number(s.deserved) +
             ", \"maxAllowed\": " + go_json_number(s.max_allowed) +
             ", \"overQuotaWeight\": " + go_json_number(s.over_quota_weight) +
             ", \"request\": " + go_json_number(s.request) + ", \"allocated\": 0}";
    }
    out += "\n      }\n    }";
  }
  return out + "\n  ]\n}\n";
}

void BM_FairShareEndToEnd(benchmark::State& state) {
  const std::string body = request_body(make_forest(static_cast<std::size_t>(state.range(0))));
  for (auto _ : state) {
    sim::Diagnostics diagnostics;
    std::string answer =
        sim::api::answer_simulate_request(body, "request.json", false, diagnostics);
    benchmark::DoNotOptimize(answer.data());
  }
  state.counters["body_mb"] = static_cast<double>(body.size()) / 1e6;
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(body.size()));
}
BENCHMARK(BM_FairShareEndToEnd)->Arg(10000)->Arg(20000)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  std::string write_to;
  std::size_t queues = 10000;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--write-request=", 16) == 0) write_to = argv[i] + 16;
    if (std::strncmp(argv[i], "--queues=", 9) == 0) queues = std::stoul(argv[i] + 9);
  }
  if (!write_to.empty()) {
    std::ofstream(write_to, std::ios::binary) << request_body(make_forest(queues));
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
