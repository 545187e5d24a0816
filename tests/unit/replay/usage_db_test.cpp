// Time-based fair share's usage history (replay/usage_db): KAI's sliding-window formula.

#include "replay/usage_db.hpp"

#include <catch2/catch.hpp>

using sim::ResourceVec;

constexpr Eigen::Index kGpuIndex = static_cast<Eigen::Index>(sim::Resource::GPU);
using sim::replay::UsageConfig;
using sim::replay::UsageDb;

namespace {

ResourceVec gpus(double n) {
  ResourceVec v = ResourceVec::Zero();
  sim::at(v, sim::Resource::GPU) = n;
  return v;
}

// One observation per second: queue "a" holds `a(t)` of 4 GPUs.
template <typename F>
UsageDb run(UsageConfig config, std::int64_t seconds, F a) {
  UsageDb db(config);
  for (std::int64_t t = 0; t <= seconds; ++t) db.observe(t * 1000, {{"a", gpus(a(t))}}, gpus(4));
  return db;
}

}  // namespace

TEST_CASE("usage is allocation over capacity across the window's samples") {
  UsageConfig config;
  config.enabled = true;
  config.resolution_ms = 1000;
  config.window_ms = 10'000;
  // Holds 4 of 4 GPUs for the first 5 s, then nothing: samples at 1..10 s see 4,4,4,4,4,0,...
  UsageDb db = run(config, 10, [](std::int64_t t) { return t < 5 ? 4.0 : 0.0; });
  CHECK(db.usage(10'000).at("a")[kGpuIndex] == Approx(0.5));
}

TEST_CASE("samples older than the window no longer count") {
  UsageConfig config;
  config.enabled = true;
  config.resolution_ms = 1000;
  config.window_ms = 4000;
  UsageDb db = run(config, 20, [](std::int64_t t) { return t < 5 ? 4.0 : 0.0; });
  CHECK(db.usage(20'000).at("a")[kGpuIndex] == 0.0);
}

TEST_CASE("a half-life weighs recent samples more") {
  UsageConfig config;
  config.enabled = true;
  config.resolution_ms = 1000;
  config.window_ms = 100'000;
  config.half_life_ms = 1000;
  // Two samples: 4 GPUs at 1 s (weight 1/2 seen from 2 s), 0 at 2 s (weight 1): U = 2 / (2 + 4).
  UsageDb db = run(config, 2, [](std::int64_t t) { return t == 0 ? 4.0 : 0.0; });
  CHECK(db.usage(2000).at("a")[kGpuIndex] == Approx(2.0 / 6.0));
}

TEST_CASE("between fetches the scheduler sees the previous answer") {
  UsageConfig config;
  config.enabled = true;
  config.resolution_ms = 1000;
  config.fetch_interval_ms = 60'000;
  UsageDb db(config);
  db.observe(0, {{"a", gpus(4)}}, gpus(4));
  db.observe(1000, {{"a", gpus(4)}}, gpus(4));
  CHECK(db.usage(1000).at("a")[kGpuIndex] == 1.0);
  db.observe(2000, {{"a", gpus(0)}}, gpus(4));
  db.observe(3000, {{"a", gpus(0)}}, gpus(4));
  CHECK(db.usage(3000).at("a")[kGpuIndex] == 1.0);  // stale until 61 s
  // Samples at 1, 2 and 3 s hold the values in force just before: 4, 4, 0 of 4 GPUs.
  CHECK(db.usage(61'000).at("a")[kGpuIndex] == Approx(2.0 / 3.0));
}
