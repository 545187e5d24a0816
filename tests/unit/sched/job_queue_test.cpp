// KAI's job queue (JobsOrderByQueues) over a two-level queue tree: views pushed by value and
// views only borrowed (as the victim solver pushes the pending jobs into every scenario's queue)
// come out in the same order, and a leaf queue emptied and filled again comes back; the session
// lists each queue's jobs in name order, as a victim queue of a few queues reads them.
#include "sim/sched/framework/job_queue.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/io/snapshot.hpp"
#include "sim/sched/cycle.hpp"

namespace {

// Departments a (queues a1, a2) and b (queue b1); each leaf has pending PodGroups of one GPU
// pod with priorities.
std::string cluster() {
  std::string text = R"(
apiVersion: v1
kind: Node
metadata: {name: n0}
status: {allocatable: {cpu: "64", memory: 256Gi, pods: "110", nvidia.com/gpu: "8"}}
)";
  const char* queues[][2] = {{"a", ""}, {"b", ""}, {"a1", "a"}, {"a2", "a"}, {"b1", "b"}};
  for (const auto& [name, parent] : queues) {
    text += std::string("---\napiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: ") +
            name + "}\nspec: {" + (*parent ? std::string("parentQueue: ") + parent + ", " : "") +
            "resources: {gpu: {quota: 2, limit: -1, overQuotaWeight: 1}}}\n";
  }
  // The lower-priority job of each pair is the older one: priority, not age, orders them.
  const char* jobs[][3] = {{"j2", "a1", "50"},  {"j5", "b1", "100"}, {"j1", "a1", "100"},
                           {"j3", "a2", "100"}, {"j4", "b1", "200"}, {"j6", "a2", "50"}};
  int second = 0;
  for (const auto& [name, queue, priority] : jobs) {
    text += std::string("---\napiVersion: scheduling.run.ai/v2alpha2\nkind: PodGroup\n") +
            "metadata: {name: " + name + ", namespace: t}\nspec: {queue: " + queue +
            ", minMember: 1, priorityClassName: p" + priority + "}\n";
    text += std::string("---\napiVersion: v1\nkind: Pod\nmetadata: {name: ") + name +
            "-0, namespace: t, uid: " + name + "-0, creationTimestamp: '2026-01-01T00:00:0" +
            std::to_string(second++) + "Z', annotations: {pod-group-name: " + name + "}}\n" +
            "spec: {schedulerName: kai-scheduler, containers: [{name: c, resources: {limits: " +
            "{nvidia.com/gpu: '1'}}}]}\nstatus: {phase: Pending}\n";
  }
  for (const char* priority : {"50", "100", "200"}) {
    text += std::string("---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n") +
            "metadata: {name: p" + priority + "}\nvalue: " + priority + "\n";
  }
  return text;
}

std::vector<std::string> drain(sim::sched::Session& ssn, sim::sched::JobQueue& queue) {
  std::vector<std::string> names;
  while (const sim::sched::JobView* view = queue.pop_view())
    names.push_back(ssn.state.jobs[view->id].name);
  return names;
}

// Every job's full view, in name order.
std::vector<sim::sched::JobView> views_by_name(const sim::sched::Session& ssn) {
  std::vector<sim::sched::JobView> views;
  for (sim::JobId j : ssn.jobs_by_name()) views.push_back(sim::sched::full_view(ssn, j));
  return views;
}

}  // namespace

TEST_CASE("a job queue pops borrowed views in the order of views pushed by value",
          "[sched][job_queue]") {
  sim::Diagnostics d;
  sim::model::ClusterState state = sim::io::load_snapshot({{cluster(), "c.yaml"}}, {}, d);
  sim::sched::Session ssn = sim::sched::open_session(state);
  const std::vector<sim::sched::JobView> views = views_by_name(ssn);
  REQUIRE(views.size() == 6);

  for (bool victim_mode : {false, true}) {
    sim::sched::JobQueue owned(ssn, victim_mode), borrowed(ssn, victim_mode);
    for (const sim::sched::JobView& v : views) {
      owned.push(v);
      borrowed.push_borrowed(v);
    }
    const std::vector<std::string> order = drain(ssn, owned);
    CHECK(order.size() == 6);
    CHECK(drain(ssn, borrowed) == order);
    CHECK(borrowed.empty());
    // Within a queue, higher priority first (victims: lower priority first).
    const auto at = [&](const std::string& name) {
      return std::find(order.begin(), order.end(), name) - order.begin();
    };
    CHECK((at("j4") < at("j5")) == !victim_mode);
    CHECK((at("j1") < at("j2")) == !victim_mode);
  }

  // A borrowed view comes back as itself, and an emptied leaf takes jobs again.
  sim::sched::JobQueue queue(ssn, false);
  queue.push_borrowed(views[0]);
  CHECK(queue.pop_view() == &views[0]);
  CHECK(queue.empty());
  CHECK(queue.pop_view() == nullptr);
  queue.push(views[1]);
  queue.push_borrowed(views[0]);
  CHECK(drain(ssn, queue) == std::vector<std::string>{"j1", "j2"});
}

TEST_CASE("a batch of jobs pushed at once comes out as the same jobs pushed one by one",
          "[sched][job_queue]") {
  sim::Diagnostics d;
  sim::model::ClusterState state = sim::io::load_snapshot({{cluster(), "c.yaml"}}, {}, d);
  sim::sched::Session ssn = sim::sched::open_session(state);
  const std::vector<sim::sched::JobView> all = views_by_name(ssn);
  REQUIRE(all.size() == 6);

  // As the victim solver uses it: the batch is every pending job but a victim's (j5, queued as
  // an extra) and the preemptor's (j3, queued as its own view, also an extra).
  std::vector<sim::sched::JobView> batch;
  for (const sim::sched::JobView& v : all) {
    if (ssn.state.jobs[v.id].name != "j5") batch.push_back(v);
  }
  const sim::sched::JobView own = all[2];
  const sim::sched::JobView& victim = all[4];
  sim::sched::JobQueue batched(ssn, false, true), one_by_one(ssn, false, true);
  REQUIRE(batched.batchable());
  std::vector<sim::sched::JobQueue::JobKeys> keys;
  for (const sim::sched::JobView& v : batch) keys.push_back(batched.keys_of(v));
  batched.set_batch(batch, keys, own.id);
  // Each extra with how many batch views come before it.
  const std::vector<std::pair<std::size_t, const sim::sched::JobView*>> extras = {{2, &own},
                                                                                  {4, &victim}};
  const std::vector<const sim::sched::JobView*> pushed = {&batch[0], &batch[1], &own,
                                                          &batch[3], &victim,   &batch[4]};
  for (int use = 0; use < 2; ++use) {  // the second use sorts no leaf again
    batched.reset();
    one_by_one.reset();
    batched.push_batch(extras);
    for (const sim::sched::JobView* v : pushed) one_by_one.push_borrowed(*v);
    std::vector<const sim::sched::JobView*> popped;
    while (const sim::sched::JobView* v = one_by_one.pop_view()) {
      CHECK(batched.pop_view() == v);
      popped.push_back(v);
    }
    CHECK(batched.empty());
    CHECK(popped.size() == 6);
    CHECK(std::find(popped.begin(), popped.end(), &own) != popped.end());  // not batch[2]
  }
}

TEST_CASE("a session lists each queue's jobs by their places in name order", "[sched][job_queue]") {
  sim::Diagnostics d;
  sim::model::ClusterState state = sim::io::load_snapshot({{cluster(), "c.yaml"}}, {}, d);
  sim::sched::Session ssn = sim::sched::open_session(state);
  const auto& by_queue = ssn.jobs_by_queue();
  REQUIRE(by_queue.size() == ssn.state.queue_tree.size());
  auto names = [&](const char* queue) {
    std::vector<std::string> out;
    for (std::uint32_t p : by_queue[ssn.state.queue_tree.find(queue).index()])
      out.push_back(ssn.state.jobs[ssn.jobs_by_name()[p]].name);
    return out;
  };
  // Pushed as j2, j5, j1, j3, j4, j6; listed by name within each leaf.
  CHECK(names("a1") == std::vector<std::string>{"j1", "j2"});
  CHECK(names("a2") == std::vector<std::string>{"j3", "j6"});
  CHECK(names("b1") == std::vector<std::string>{"j4", "j5"});
  CHECK(names("a").empty());
  CHECK(names("b").empty());
}

TEST_CASE("the queue order's key and its tie decide as the full queue order does",
          "[sched][job_queue]") {
  // The cluster above, with a running pod in a1 (its queue's allocation no longer 0) and a
  // top-level queue of a higher priority and a smaller quota; a2 and b1 stay alike but for age.
  std::string text = cluster() + R"(---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: c}
spec: {priority: 200, resources: {gpu: {quota: 1, limit: 4, overQuotaWeight: 2}}}
---
apiVersion: scheduling.run.ai/v2alpha2
kind: PodGroup
metadata: {name: r1, namespace: t}
spec: {queue: a1, minMember: 1}
---
apiVersion: v1
kind: Pod
metadata: {name: r1-0, namespace: t, uid: r1-0, annotations: {pod-group-name: r1}}
spec: {schedulerName: kai-scheduler, nodeName: n0, containers: [{name: c, resources: {limits: {nvidia.com/gpu: '3'}}}]}
status: {phase: Running}
)";
  sim::Diagnostics d;
  sim::model::ClusterState state = sim::io::load_snapshot({{text, "c.yaml"}}, {}, d);
  sim::sched::Session ssn = sim::sched::open_session(state);
  REQUIRE(ssn.hooks.queue_order_key);
  REQUIRE(ssn.hooks.queue_order_key_tie);
  const std::vector<sim::sched::JobView> views = views_by_name(ssn);
  // Each queue with no head, and with each job as its head (a job of another queue included:
  // an inner queue's head is a job of one of its leaves).
  std::vector<const sim::sched::JobView*> heads = {nullptr};
  for (const sim::sched::JobView& v : views) heads.push_back(&v);
  const std::vector<const sim::sched::JobView*> none;
  int decided_by_key = 0, decided_by_tie = 0;
  for (std::size_t l = 0; l < ssn.state.queue_tree.size(); ++l) {
    for (std::size_t r = 0; r < ssn.state.queue_tree.size(); ++r) {
      const sim::QueueId lq(static_cast<sim::QueueId::value_type>(l));
      const sim::QueueId rq(static_cast<sim::QueueId::value_type>(r));
      for (const sim::sched::JobView* lj : heads) {
        for (const sim::sched::JobView* rj : heads) {
          int c = sim::sched::QueueOrderKey::compare(ssn.hooks.queue_order_key(ssn, lq, lj),
                                                     ssn.hooks.queue_order_key(ssn, rq, rj));
          ++(c != 0 ? decided_by_key : decided_by_tie);
          if (c == 0) c = ssn.hooks.queue_order_key_tie(ssn, lq, rq);
          REQUIRE(c != 0);
          CHECK((c < 0) == ssn.queue_before(lq, rq, lj, rj, none, none));
        }
      }
    }
  }
  // Both ways are taken.
  CHECK(decided_by_key > 0);
  CHECK(decided_by_tie > 0);
}
