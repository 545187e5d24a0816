// A snapshot with a long pod list is read on two threads (io/side_thread.hpp): the pods keep
// their document order, and the first bad field in document order is the one reported.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "io/snapshot_error.hpp"
#include "sim/api/cluster_gen.hpp"
#include "sim/io/snapshot.hpp"

namespace {

// A generated cluster of 240 nodes: 8,400 pods, past the length worth a second thread.
const std::string& snapshot_json() {
  static const std::string json = [] {
    sim::api::ClusterGenOptions options;
    options.nodes = 240;
    return sim::api::generate_cluster(options).files.at("snapshot.json");
  }();
  return json;
}

constexpr std::string_view kPodStart = R"({"apiVersion":"v1","kind":"Pod","metadata":{)";

// Where each pod object starts in the text, in document order.
std::vector<std::size_t> pod_starts(const std::string& json) {
  std::vector<std::size_t> starts;
  for (std::size_t at = json.find(kPodStart); at != std::string::npos;
       at = json.find(kPodStart, at + 1))
    starts.push_back(at);
  return starts;
}

// The text of string member `key` at the first place after `from`.
std::string string_after(const std::string& json, std::size_t from, const std::string& key) {
  const std::string quoted = "\"" + key + "\":\"";
  const std::size_t at = json.find(quoted, from) + quoted.size();
  return json.substr(at, json.find('"', at) - at);
}

// The text with `insert` placed right after the `{` of pod `pod`'s `member` object.
std::string with_member_inserted(std::string json, std::size_t pod, const std::string& member,
                                 const std::string& insert) {
  const std::size_t start = pod_starts(json).at(pod);
  const std::string key = "\"" + member + "\":{";
  json.insert(json.find(key, start) + key.size(), insert);
  return json;
}

std::string error_of(const std::string& json) { return snapshot_error(json, "snapshot.json"); }

}  // namespace

TEST_CASE("a long pod list read on two threads keeps its document order", "[io][snapshot]") {
  const std::string& json = snapshot_json();
  const std::vector<std::size_t> starts = pod_starts(json);
  REQUIRE(starts.size() == 8400);
  sim::Diagnostics d;
  const sim::model::ClusterState state = sim::io::load_snapshot({{json, "snapshot.json"}}, {}, d);
  REQUIRE(state.tasks.size() == starts.size());
  std::size_t bound = 0;
  for (std::size_t i = 0; i < starts.size(); ++i) {
    const sim::model::Task& task = state.tasks[sim::TaskId(static_cast<std::uint32_t>(i))];
    INFO("pod " << i);
    REQUIRE(task.name == string_after(json, starts[i], "name"));
    const std::size_t end = i + 1 < starts.size() ? starts[i + 1] : json.size();
    const std::size_t node = json.find("\"nodeName\":\"", starts[i]);
    if (node < end) {
      REQUIRE(task.node.valid());
      REQUIRE(state.nodes[task.node].name == string_after(json, starts[i], "nodeName"));
      ++bound;
    } else {
      REQUIRE_FALSE(task.node.valid());
    }
  }
  CHECK(bound > starts.size() / 2);  // most pods run
}

TEST_CASE("a long pod list read on two threads reports the first bad field in document order",
          "[io][snapshot][errors]") {
  const std::string& json = snapshot_json();
  const std::size_t late = pod_starts(json).size() - 10;
  // Read by the pods' reader: the first of the list and the last are on different threads.
  const std::string bad_spec = R"("initContainers":5,)";
  const std::string late_bad = with_member_inserted(json, late, "spec", bad_spec);
  CHECK_THAT(error_of(late_bad),
             Catch::Contains("rawObjects.pods[" + std::to_string(late) + "].spec.initContainers"));
  CHECK_THAT(error_of(with_member_inserted(late_bad, 10, "spec", bad_spec)),
             Catch::Contains("rawObjects.pods[10].spec.initContainers"));
  // Read first of all, for the snapshot's clock: the times of every object.
  const std::string bad_time = R"("deletionTimestamp":"soon",)";
  const std::string late_time = with_member_inserted(json, late, "metadata", bad_time);
  CHECK_THAT(error_of(late_time), Catch::Contains("rawObjects.pods[" + std::to_string(late) +
                                                  "].metadata.deletionTimestamp"));
  CHECK_THAT(error_of(with_member_inserted(late_time, 10, "metadata", bad_time)),
             Catch::Contains("rawObjects.pods[10].metadata.deletionTimestamp"));
}
