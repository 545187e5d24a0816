// The gang rules over a subgroup tree: a leader PodSet (min 1) and a workers PodSet (min 2).
#include "sim/sched/framework/gang.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "sim/io/snapshot.hpp"
#include "sim/sched/cycle.hpp"

namespace {

// A PodGroup with subGroups leader (1) and workers (2); `running` of its 4 pods run (in the
// order leader-0, worker-0, worker-1, worker-2), the rest are pending.
std::string gang(int running) {
  std::string text = R"(
apiVersion: v1
kind: Node
metadata: {name: n0}
status: {allocatable: {cpu: "8", memory: 64Gi, pods: "110", nvidia.com/gpu: "8"}}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: q}
spec: {resources: {gpu: {quota: 8, limit: -1, overQuotaWeight: 1}}}
---
apiVersion: scheduling.run.ai/v2alpha2
kind: PodGroup
metadata: {name: g, namespace: a}
spec: {queue: q, subGroups: [{name: leader, minMember: 1}, {name: workers, minMember: 2}]}
)";
  const char* pods[][2] = {{"leader-0", "leader"},
                           {"worker-0", "workers"},
                           {"worker-1", "workers"},
                           {"worker-2", "workers"}};
  for (int i = 0; i < 4; ++i) {
    const bool runs = i < running;
    text += std::string("---\napiVersion: v1\nkind: Pod\nmetadata: {name: ") + pods[i][0] +
            ", namespace: a, uid: " + pods[i][0] + ", creationTimestamp: '2026-01-01T00:00:0" +
            std::to_string(i) +
            "Z', annotations: {pod-group-name: g}, labels: {kai.scheduler/subgroup-name: " +
            pods[i][1] + "}}\n" + "spec: {schedulerName: kai-scheduler, " +
            (runs ? "nodeName: n0, " : "") +
            "containers: [{name: c, resources: {limits: {nvidia.com/gpu: '1'}}}]}\n" +
            "status: {phase: " + (runs ? "Running" : "Pending") + "}\n";
  }
  return text;
}

std::vector<std::string> names(const sim::sched::Session& ssn,
                               const std::vector<sim::TaskId>& tasks) {
  std::vector<std::string> out;
  for (sim::TaskId t : tasks) out.push_back(ssn.state.tasks[t].name);
  return out;
}

}  // namespace

TEST_CASE("a gang of subgroups is placed as its missing minimum, then one pod at a time",
          "[sched][gang]") {
  sim::Diagnostics d;
  sim::model::ClusterState none = sim::io::load_snapshot({{gang(0), "g.yaml"}}, {}, d);
  sim::sched::Session ssn = sim::sched::open_session(none);
  const sim::sched::JobView job = sim::sched::full_view(ssn, sim::JobId(0));
  CHECK(sim::sched::is_ready_for_scheduling(ssn, job));
  CHECK(sim::sched::min_available_state(ssn, job) == 0);
  // Both members are short: the leader and two workers (the older ones) make the block.
  CHECK(names(ssn, sim::sched::tasks_to_allocate(ssn, job, true)) ==
        std::vector<std::string>{"leader-0", "worker-0", "worker-1"});

  sim::model::ClusterState three = sim::io::load_snapshot({{gang(3), "g.yaml"}}, {}, d);
  sim::sched::Session ssn3 = sim::sched::open_session(three);
  const sim::sched::JobView at_min = sim::sched::full_view(ssn3, sim::JobId(0));
  CHECK(sim::sched::is_gang_satisfied(ssn3, at_min));
  CHECK(sim::sched::min_available_state(ssn3, at_min) == 1);
  // Satisfied: one more pod, from the first member in subgroup order that has one.
  CHECK(names(ssn3, sim::sched::tasks_to_allocate(ssn3, at_min, true)) ==
        std::vector<std::string>{"worker-2"});
  bool more = false;
  // At its minimum nothing is surplus: a victim loses every pod.
  CHECK(sim::sched::tasks_to_evict(ssn3, at_min, more).size() == 3);
  CHECK_FALSE(more);

  sim::model::ClusterState four = sim::io::load_snapshot({{gang(4), "g.yaml"}}, {}, d);
  sim::sched::Session ssn4 = sim::sched::open_session(four);
  const sim::sched::JobView above = sim::sched::full_view(ssn4, sim::JobId(0));
  CHECK(sim::sched::min_available_state(ssn4, above) == 2);
  // Above the workers' minimum: the newest worker goes first, one at a time.
  CHECK(names(ssn4, sim::sched::tasks_to_evict(ssn4, above, more)) ==
        std::vector<std::string>{"worker-2"});
  CHECK(more);
  // A probe holding only the leader and one worker lowers the workers' minimum to 1.
  const sim::sched::JobView partial =
      sim::sched::partial_view(ssn4, sim::JobId(0), {sim::TaskId(0), sim::TaskId(1)});
  CHECK(partial.groups->pod_sets.at(1).min_available == 1);
  CHECK(above.groups->pod_sets.at(1).min_available == 2);  // the job's own tree is untouched
}
