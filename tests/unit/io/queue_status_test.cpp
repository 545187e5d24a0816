// Queue.status counted as KAI's podgroup-controller and queue-controller count it: terminating
// pods that still run count, scheduled Pending pods are allocated, shares count by annotation,
// non-preemptible PodGroups fill allocatedNonPreemptible, children roll up into parents.
#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "io/pod_status.hpp"

namespace {

using sim::io::NanoAmount;

class Objects : public sim::io::StatusObjects {
 public:
  std::map<std::string, YAML::Node> groups, nodes;
  std::map<std::string, int> classes{{"train", 50}, {"build", 100}};
  const YAML::Node* pod_group(const std::string& ns, const std::string& name) const override {
    auto it = groups.find(ns + "/" + name);
    return it == groups.end() ? nullptr : &it->second;
  }
  const YAML::Node* node(const std::string& name) const override {
    auto it = nodes.find(name);
    return it == nodes.end() ? nullptr : &it->second;
  }
  std::optional<int> priority_class(const std::string& name) const override {
    auto it = classes.find(name);
    return it == classes.end() ? std::nullopt : std::optional<int>(it->second);
  }
  std::optional<int> global_default_priority() const override { return std::nullopt; }
};

NanoAmount milli(std::int64_t m) { return static_cast<NanoAmount>(m) * 1'000'000; }

const sim::io::StatusCountOptions kStrict{};

sim::io::PodStatusPart part(const char* pod_yaml, const Objects& objects,
                            sim::io::StatusCountOptions options = kStrict) {
  return sim::io::pod_status_part(YAML::Load(pod_yaml), objects, options);
}

Objects runbook_objects() {
  Objects o;
  o.groups["ns/pg-nlp"] = YAML::Load("{spec: {queue: team-nlp, priorityClassName: train}}");
  o.groups["ns/pg-infer"] = YAML::Load("{spec: {queue: team-nlp, priorityClassName: build}}");
  o.nodes["l40s-0"] = YAML::Load("{metadata: {labels: {nvidia.com/gpu.memory: '46068'}}}");
  return o;
}

}  // namespace

TEST_CASE("a Running pod with a deletionTimestamp still counts in allocated and requested",
          "[queue_status]") {
  const Objects o = runbook_objects();
  const auto p =
      part(R"({metadata: {name: burst, namespace: ns, deletionTimestamp: "2026-01-01T00:03:00Z",
    annotations: {pod-group-name: pg-nlp, gpu-fraction: "0.66", received-resource-type: Fraction}},
    spec: {nodeName: l40s-0, containers: [{name: c}]}, status: {phase: Running}})",
           o);
  CHECK(p.pod_group == "ns/pg-nlp");
  CHECK(p.queue == "team-nlp");
  CHECK(p.preemptible);
  CHECK(p.allocated.get("nvidia.com/gpu") == milli(660));
  CHECK(p.requested.get("nvidia.com/gpu") == milli(660));
}

TEST_CASE("Pending pods: allocated only once PodScheduled is True: requested always",
          "[queue_status]") {
  const Objects o = runbook_objects();
  const char* waiting =
      R"({metadata: {name: a, namespace: ns, annotations: {pod-group-name: pg-nlp, gpu-fraction: "0.33"}},
    spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}, status: {phase: Pending}})";
  auto p = part(waiting, o);
  CHECK(p.allocated.empty());
  CHECK(p.requested.get("nvidia.com/gpu") == milli(330));
  CHECK(p.requested.get("cpu") == milli(100));
  const char* scheduled =
      R"({metadata: {name: a, namespace: ns, annotations: {pod-group-name: pg-nlp}},
    spec: {nodeName: l40s-0, containers: [{name: c, resources: {limits: {nvidia.com/gpu: "1"}}}]},
    status: {phase: Pending, conditions: [{type: PodScheduled, status: "True"}]}})";
  p = part(scheduled, o);
  CHECK(p.allocated.get("nvidia.com/gpu") ==
        milli(1000));  // the limit, as the API server defaults the request
  CHECK(p.requested.get("nvidia.com/gpu") == milli(1000));
  // spec.nodeName without the condition: KAI does not count it; the replay's world does.
  const char* bound_no_condition =
      R"({metadata: {name: a, namespace: ns, annotations: {pod-group-name: pg-nlp}},
    spec: {nodeName: l40s-0, containers: [{name: c, resources: {requests: {cpu: "1"}}}]}, status: {phase: Pending}})";
  CHECK(part(bound_no_condition, o).allocated.empty());
  CHECK(
      part(bound_no_condition, o, {.assume_pod_grouper = false, .node_name_means_scheduled = true})
          .allocated.get("cpu") == milli(1000));
}

TEST_CASE("finished pods and pods without a PodGroup count nowhere", "[queue_status]") {
  const Objects o = runbook_objects();
  CHECK(part(R"({metadata: {name: a, namespace: ns, annotations: {pod-group-name: pg-nlp}},
    spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}, status: {phase: Succeeded}})",
             o)
            .requested.empty());
  CHECK(part(R"({metadata: {name: a, namespace: ns, annotations: {pod-group-name: missing}},
    spec: {containers: [{name: c}]}, status: {phase: Running}})",
             o)
            .pod_group.empty());
  const char* bare =
      R"({metadata: {name: bare, namespace: ns, uid: u1, labels: {kai.scheduler/queue: team-nlp}},
    spec: {schedulerName: kai-scheduler, containers: [{name: c, resources: {requests: {cpu: "2"}}}]}, status: {phase: Pending}})";
  CHECK(part(bare, o).pod_group.empty());
  const auto grouped =
      part(bare, o, {.assume_pod_grouper = true, .node_name_means_scheduled = false});
  CHECK(grouped.pod_group == "ns/pg-bare-u1");
  CHECK(grouped.queue == "team-nlp");
  CHECK(grouped.requested.get("cpu") == milli(2000));
}

TEST_CASE("a gpu-memory pod is allocated its memory over the node's GPU memory", "[queue_status]") {
  const Objects o = runbook_objects();
  const auto p = part(
      R"({metadata: {name: m, namespace: ns, annotations: {pod-group-name: pg-nlp, gpu-memory: "23034",
    received-resource-type: Fraction}}, spec: {nodeName: l40s-0, containers: [{name: c}]}, status: {phase: Running}})",
      o);
  CHECK(p.allocated.get("nvidia.com/gpu") == milli(500));
  CHECK(p.requested.get("run.ai/gpu.memory") == static_cast<NanoAmount>(23034) * 1'000'000'000);
  CHECK(p.requested.get("nvidia.com/gpu") == 0);
}

TEST_CASE("queue sums: non-preemptible groups, roll-up to parents, queues that do not exist",
          "[queue_status]") {
  const Objects o = runbook_objects();
  sim::io::QueueStatusSums sums;
  sums.add(part(
      R"({metadata: {name: a, namespace: ns, annotations: {pod-group-name: pg-nlp, gpu-fraction: "0.33",
    received-resource-type: Fraction}}, spec: {nodeName: l40s-0, containers: [{name: c}]}, status: {phase: Running}})",
      o));
  const auto infer =
      part(R"({metadata: {name: b, namespace: ns, annotations: {pod-group-name: pg-infer}},
    spec: {nodeName: l40s-0, containers: [{name: c, resources: {requests: {cpu: 250m}}}]}, status: {phase: Running}})",
           o);
  CHECK_FALSE(infer.preemptible);  // priority class build = 100
  sums.add(infer);
  const std::map<std::string, std::string> parents{
      {"ml-org", ""}, {"team-nlp", "ml-org"}, {"team-vision", "ml-org"}};
  auto status = sums.roll_up(parents);
  CHECK(status["team-nlp"].allocated.get("nvidia.com/gpu") == milli(330));
  CHECK(status["team-nlp"].allocated_non_preemptible.get("cpu") == milli(250));
  CHECK(status["team-nlp"].allocated_non_preemptible.get("nvidia.com/gpu") == 0);
  CHECK(status["ml-org"].allocated == status["team-nlp"].allocated);
  CHECK(status["team-vision"].allocated.empty());
  sums.remove(infer);
  status = sums.roll_up(parents);
  CHECK(status["ml-org"].allocated_non_preemptible.empty());
  CHECK(sums.roll_up({{"team-vision", ""}}).count("team-nlp") ==
        0);  // a queue that does not exist is not written
}

TEST_CASE("nano quantities: exact sums, canonical text", "[queue_status]") {
  using sim::io::format_nano_quantity;
  using sim::io::parse_nano_quantity;
  CHECK(format_nano_quantity(*parse_nano_quantity("0.33") + *parse_nano_quantity("660m")) ==
        "990m");
  CHECK(format_nano_quantity(*parse_nano_quantity("1500m")) == "1500m");
  CHECK(format_nano_quantity(*parse_nano_quantity("2")) == "2");
  CHECK(format_nano_quantity(*parse_nano_quantity("256Gi")) == "274877906944");
  CHECK(format_nano_quantity(*parse_nano_quantity("1M")) == "1M");
  CHECK(format_nano_quantity(*parse_nano_quantity("1e-10")) == "1n");  // rounded up to a nano
  CHECK(format_nano_quantity(0) == "0");
  CHECK_FALSE(parse_nano_quantity("abc"));
  CHECK_FALSE(parse_nano_quantity("1e40"));
  CHECK(sim::io::nano_to_double(*parse_nano_quantity("330m")) == 0.33);
}
