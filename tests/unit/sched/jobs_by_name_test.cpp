// The session lists the jobs in PodGroup name order, as KAI's solver walks them; it sorts them by
// their names' first 16 bytes before the text, which must order them as the text alone does.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "gpu_node_manifest.hpp"
#include "sim/io/snapshot.hpp"
#include "sim/sched/cycle.hpp"

namespace {

// One pending one-GPU PodGroup per name, in the order given (which becomes the jobs' ids).
std::string cluster(const std::vector<std::string>& names) {
  std::string text = sim::test::gpu_node_manifest("n0") + R"(
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: q}
spec: {resources: {gpu: {quota: 2, limit: -1, overQuotaWeight: 1}}}
)";
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    const std::string ns = "t" + std::to_string(i);  // equal names live in other namespaces
    text +=
        "---\napiVersion: scheduling.run.ai/v2alpha2\nkind: PodGroup\nmetadata: {name: " + name +
        ", namespace: " + ns + "}\nspec: {queue: q, minMember: 1}\n";
    text += "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p-" + std::to_string(i) +
            ", namespace: " + ns + ", uid: u-" + std::to_string(i) +
            ", annotations: {pod-group-name: " + name + "}}\n" +
            "spec: {schedulerName: kai-scheduler, containers: [{name: c, resources: {limits: " +
            "{nvidia.com/gpu: '1'}}}]}\nstatus: {phase: Pending}\n";
  }
  return text;
}

}  // namespace

TEST_CASE("a session lists its jobs in their names' text order", "[sched][jobs_by_name]") {
  // Names that differ in their first 16 bytes, names that share them and differ later, a name
  // that is a prefix of another (both shorter and longer than 16 bytes), numbers that sort as
  // text, and one name twice.
  const std::vector<std::string> names = {
      "pg-job-2",
      "pg-job-10",
      "pg-job-1",
      "pg-job-100",
      "long-name-same-sixteen-b",
      "long-name-same-sixteen-a",
      "long-name-same-s",
      "long-name-same-sixteen",
      "a",
      "a-1",
      "ab",
      "pg-job-10",
      "z.0",
  };
  sim::Diagnostics d;
  sim::model::ClusterState state = sim::io::load_snapshot({{cluster(names), "c.yaml"}}, {}, d);
  REQUIRE(state.jobs.size() == names.size());
  sim::sched::Session ssn = sim::sched::open_session(state);
  std::vector<std::string> listed;
  for (sim::JobId j : ssn.jobs_by_name()) listed.push_back(ssn.state.jobs[j].name);
  std::vector<std::string> expected = names;
  std::sort(expected.begin(), expected.end());
  CHECK(listed == expected);
  CHECK(listed == std::vector<std::string>{"a", "a-1", "ab", "long-name-same-s",
                                           "long-name-same-sixteen", "long-name-same-sixteen-a",
                                           "long-name-same-sixteen-b", "pg-job-1", "pg-job-10",
                                           "pg-job-10", "pg-job-100", "pg-job-2", "z.0"});
}
