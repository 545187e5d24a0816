// A generated pod reaches the scheduler typed from the numbers it was drawn with, not from its
// manifest's text: the world's cluster state for it, and its submit event, must be what the same
// pod applied as a manifest gives.

#include <catch2/catch.hpp>

#include "replay/generators.hpp"
#include "replay/world.hpp"
#include "sim/core/error.hpp"

namespace {

using sim::replay::PodShape;

std::vector<PodShape> shapes() {
  auto shape = [](std::string name) {
    PodShape p;
    p.name = std::move(name);
    p.queue = "team-a";
    return p;
  };
  std::vector<PodShape> out;
  PodShape whole = shape("whole");
  whole.gpus = 2;
  whole.cpu = "500m";
  whole.memory = "1Gi";
  whole.runtime_ms = 90'000;
  out.push_back(whole);
  PodShape fraction = shape("fraction");
  fraction.gpu_fraction = 0.33;
  fraction.priority_class = "inference";
  out.push_back(fraction);
  PodShape memory = shape("memory");
  memory.gpu_memory_mib = 12'000;
  out.push_back(memory);
  PodShape mig = shape("mig");
  mig.mig_profile = "3g.20gb";
  mig.mig_instances = 2;
  mig.ns = "research";
  out.push_back(mig);
  PodShape none = shape("cpu-only");
  none.cpu = "2";
  none.priority_class = "no-such-class";  // the pod-grouper falls back to train
  out.push_back(none);
  return out;
}

struct Applied {
  sim::model::ClusterState state;
  std::vector<sim::replay::PodEvent> events;
};

Applied apply_all(bool typed, const std::vector<PodShape>& pods) {
  sim::replay::World world(30'000);
  Applied out;
  for (const PodShape& p : pods) {
    if (typed)
      world.apply(p, "pods.csv", 1'500, out.events);
    else
      world.apply(sim::replay::Manifest{sim::replay::bare_pod_manifest(p), "pods.csv"}, 1'500,
                  out.events);
  }
  sim::Diagnostics diagnostics;
  out.state = world.snapshot(1'500, diagnostics);
  return out;
}

}  // namespace

TEST_CASE("a generated pod's typed reading gives the state its manifest gives") {
  const Applied typed = apply_all(true, shapes());
  const Applied parsed = apply_all(false, shapes());
  REQUIRE(typed.state.tasks.size() == shapes().size());
  REQUIRE(parsed.state.tasks.size() == typed.state.tasks.size());
  for (auto a_it = typed.state.tasks.begin(), b_it = parsed.state.tasks.begin();
       a_it != typed.state.tasks.end(); ++a_it, ++b_it) {
    const sim::model::Task& a = *a_it;
    const sim::model::Task& b = *b_it;
    CAPTURE(a.name);
    CHECK(a.key() == b.key());
    CHECK(a.uid == b.uid);
    CHECK(a.created_ns == b.created_ns);
    CHECK((a.request == b.request).all());
    CHECK(a.gpu.count == b.gpu.count);
    CHECK(a.gpu.portion == b.gpu.portion);
    CHECK(a.gpu.memory_mib == b.gpu.memory_mib);
    CHECK(a.gpu.mig == b.gpu.mig);
    CHECK(a.request_type == b.request_type);
    CHECK(a.scalars == b.scalars);
    CHECK(a.labels == b.labels);
    CHECK(a.job.valid());
  }
  REQUIRE(typed.state.jobs.size() == parsed.state.jobs.size());
  for (auto a_it = typed.state.jobs.begin(), b_it = parsed.state.jobs.begin();
       a_it != typed.state.jobs.end(); ++a_it, ++b_it) {
    const sim::model::Job& a = *a_it;
    const sim::model::Job& b = *b_it;
    CAPTURE(a.name);
    CHECK(a.name == b.name);
    CHECK(a.queue_name == b.queue_name);
    CHECK(a.priority == b.priority);
    CHECK(a.preemptible == b.preemptible);
    CHECK(a.created_ns == b.created_ns);
  }
  // What each pod asks for, as the submit events tell it.
  REQUIRE(typed.events.size() == parsed.events.size());
  std::vector<double> gpus;
  for (std::size_t e = 0; e < typed.events.size(); ++e) {
    CHECK(typed.events[e].gpus == parsed.events[e].gpus);
    gpus.push_back(typed.events[e].gpus);
  }
  CHECK(gpus == std::vector<double>{2, 0.33, 0, 6, 0});
  auto task = [&](const std::string& key) -> const sim::model::Task& {
    for (const sim::model::Task& t : typed.state.tasks) {
      if (t.key() == key) return t;
    }
    FAIL("no task " << key);
    return *typed.state.tasks.begin();
  };
  CHECK(task("research/mig").is_mig_candidate());
  CHECK(task("research/mig").gpu.mig.size() == 1);
  CHECK(task("default/fraction").is_fraction_candidate());
  CHECK(task("default/fraction").gpu.portion == 0.33);
  CHECK(task("default/memory").is_gpu_memory_request());
  CHECK(task("default/whole").gpu.count == 2);
}

TEST_CASE("a generated pod whose manifest its checks refuse is refused as that manifest is") {
  PodShape bad;
  bad.name = "bad";
  bad.queue = "team-a";
  bad.cpu = "two";
  std::string typed_error, parsed_error;
  try {
    apply_all(true, {bad});
  } catch (const sim::InputError& e) {
    typed_error = e.what();
  }
  try {
    apply_all(false, {bad});
  } catch (const sim::InputError& e) {
    parsed_error = e.what();
  }
  CHECK_THAT(typed_error, Catch::Matchers::Contains("not a valid quantity"));
  CHECK(typed_error == parsed_error);
}
