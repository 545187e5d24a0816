// Workload traces: the CSV reader (replay/trace_csv) and `kaisim gen trace` (api/trace_gen).

#include <catch2/catch.hpp>

#include "replay/generators.hpp"
#include "replay/trace_csv.hpp"
#include "sim/api/trace_gen.hpp"

using sim::replay::read_trace_csv;

namespace {

std::string error_of(const std::string& csv) {
  sim::Diagnostics diagnostics;
  try {
    (void)read_trace_csv(csv, "t.csv", diagnostics);
  } catch (const sim::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a trace row becomes a bare KAI pod applied at its submit time") {
  sim::Diagnostics diagnostics;
  const auto steps = read_trace_csv(
      "submit_s,name,queue,gpu_fraction,cpu,runtime_s\n"
      "# comment lines and blank lines are skipped\n\n"
      "2.5,b,team-a,0.5,2,60\n"
      "1,a,team-b,,,\n",
      "t.csv", diagnostics);
  REQUIRE(steps.size() == 2);
  CHECK(steps[0].at_ms == 1000);
  CHECK(steps[1].at_ms == 2500);
  const YAML::Node pod = sim::replay::bare_pod_manifest(steps[1].pods.at(0));
  CHECK(pod["metadata"]["name"].Scalar() == "b");
  CHECK(pod["metadata"]["labels"]["kai.scheduler/queue"].Scalar() == "team-a");
  CHECK(pod["metadata"]["annotations"]["gpu-fraction"].Scalar() == "0.5");
  CHECK(pod["metadata"]["annotations"]["kaisim/runtime"].Scalar() == "60000ms");
  CHECK(pod["spec"]["schedulerName"].Scalar() == "kai-scheduler");
  CHECK(steps[0].pods.at(0).runtime_ms == -1);
  CHECK(diagnostics.warnings.empty());
}

TEST_CASE("a bad trace cell names the file, line, column and field") {
  CHECK(error_of("submit_s,name,queue,gpus\n1,a,q,two\n") ==
        "t.csv:2:4: gpus: not a number: \"two\"");
  CHECK(error_of("submit_s,name,queue,gpus\n1,a,q,1.5\n") ==
        "t.csv:2:4: gpus: must be a whole number >= 0");
  CHECK(error_of("submit_s,name,queue\n-1,a,q\n") ==
        "t.csv:2:1: submit_s: required: seconds from the start, >= 0");
  CHECK(error_of("submit_s,name,queue\n1,,q\n") == "t.csv:2:2: name: required, empty");
  CHECK(error_of("submit_s,name,queue,cpu\n1,a,q,lots\n")
            .find("t.csv:2:4: cpu: not a Kubernetes quantity") == 0);
  CHECK(error_of("submit_s,name,queue\n1,a,q\n2,a,q\n") ==
        "t.csv:3:2: name: pod default/a repeats");
  CHECK(error_of("submit_s,name,queue\n1,a,q,extra\n") ==
        "t.csv:2:4: row has 4 cells, the header 3");
  CHECK(error_of("submit_s,name\n") == "t.csv:1: header lacks the required column \"queue\"");
  CHECK(error_of("submit_s,name,queue,gpus,gpu_fraction\n1,a,q,1,0.5\n") ==
        "t.csv:2:5: gpu_fraction: give one of gpus, gpu_fraction, gpu_memory_mib");
  CHECK(error_of("").find("empty trace") != std::string::npos);
}

TEST_CASE("unknown trace columns are warnings") {
  sim::Diagnostics diagnostics;
  (void)read_trace_csv("submit_s,name,queue,colour\n1,a,q,red\n", "t.csv", diagnostics);
  REQUIRE(diagnostics.warnings.size() == 1);
  CHECK(diagnostics.warnings[0] == "t.csv:1:4: colour: unknown column, ignored");
}

TEST_CASE("gen trace has the Alibaba trace's shape and depends only on its seed") {
  sim::api::TraceOptions options;
  const sim::api::GeneratedTrace a = sim::api::generate_trace(options);
  CHECK(a.nodes == 1523);  // 1,213 GPU nodes and 310 CPU-only nodes
  CHECK(a.gpus == 6212);
  CHECK(a.pods == 8000);
  const double fractional =
      static_cast<double>(a.fractional_gpu_pods) / static_cast<double>(a.gpu_pods);
  CHECK(fractional == Approx(0.44).margin(0.02));
  CHECK(a.files == sim::api::generate_trace(options).files);
  options.seed = 2;
  CHECK(a.files.at("pods.csv") != sim::api::generate_trace(options).files.at("pods.csv"));
  CHECK(a.files.at("scenario.yaml").find("trace: pods.csv") != std::string::npos);

  sim::Diagnostics diagnostics;
  const auto steps = read_trace_csv(a.files.at("pods.csv"), "pods.csv", diagnostics);
  std::size_t pods = 0;
  for (const auto& s : steps) pods += s.pods.size();
  CHECK(pods == 8000);
  CHECK(steps.back().at_ms <= 6 * 3'600'000);
}
