// kai-fairshare.md section 6 cases 26-33 (proportion_test.go, GPU only) and case H: the top-down
// division over a queue tree, where each parent's fair share is its children's total.

#include "sim/fairshare/hierarchy.hpp"

#include <catch2/catch.hpp>
#include <map>

#include "sim/fairshare/queue_quota.hpp"

namespace {

using sim::Resource;
using sim::fairshare::QueueShares;

struct Node {
  std::string uid, parent;
  double d = 0, w = 0, r = 0, l = -1;
  int p = 0;
};

// Builds the tree, runs the division on `gpus` GPUs, returns GPU fair share by UID.
std::map<std::string, double> divide(double gpus, const std::vector<Node>& nodes) {
  std::vector<sim::model::QueueLink> links;
  for (const Node& n : nodes) {
    sim::model::QueueLink link;
    link.uid = n.uid;
    link.parent = n.parent;
    link.path = n.uid;
    links.push_back(std::move(link));
  }
  sim::Diagnostics diagnostics;
  const auto tree = sim::model::QueueTree::build(links, diagnostics);
  sim::IdVector<sim::QueueId, QueueShares> shares(tree.size());
  for (sim::QueueId id : tree.level_order()) {
    const Node& n = nodes[tree.source_index(id)];
    auto& g = shares[id][Resource::GPU];
    g.deserved = n.d;
    g.over_quota_weight = n.w;
    g.request = n.r;
    g.max_allowed = n.l;
    shares[id].priority = n.p;
    shares[id].created = {static_cast<std::int64_t>(tree.source_index(id)), 0};
  }
  sim::ResourceVec total = sim::ResourceVec::Zero();
  sim::at(total, Resource::GPU) = gpus;
  sim::fairshare::compute_fair_shares(tree, shares, total, 0);
  std::map<std::string, double> out;
  for (sim::QueueId id : tree.level_order())
    out[tree.uid(id)] = shares[id][Resource::GPU].fair_share;
  return out;
}

}  // namespace

TEST_CASE("case 26: single top queue, three levels", "[fairshare][hierarchy][section6]") {
  auto fs = divide(3, {{"top", "", 3, 0, 3},
                       {"mid", "top", 3, 0, 3},
                       {"leaf1", "mid", 2, 0, 2},
                       {"leaf2", "mid", 1, 0, 1}});
  CHECK(fs["top"] == 3);
  CHECK(fs["mid"] == 3);
  CHECK(fs["leaf1"] == 2);
  CHECK(fs["leaf2"] == 1);
}

TEST_CASE("case 27: two top parent queues", "[fairshare][hierarchy][section6]") {
  auto fs = divide(4, {{"t1", "", 2, 0, 2},
                       {"c1", "t1", 1, 0, 1},
                       {"c2", "t1", 1, 0, 1},
                       {"t2", "", 2, 0, 2},
                       {"c3", "t2", 0, 0, 0},
                       {"c4", "t2", 1, 1, 2}});
  CHECK(fs["t1"] == 2);
  CHECK(fs["c1"] == 1);
  CHECK(fs["c2"] == 1);
  CHECK(fs["t2"] == 2);
  CHECK(fs["c3"] == 0);
  CHECK(fs["c4"] == 2);
}

TEST_CASE("cases 28-33: departments with one project each", "[fairshare][hierarchy][section6]") {
  auto two_departments = [](double gpus, double d1, double w1, int p1, double d2, double w2, int p2,
                            double child_deserved) {
    return divide(gpus, {{"d1", "", d1, w1, 100, -1, p1},
                         {"q1", "d1", child_deserved, 1, 100},
                         {"d2", "", d2, w2, 100, -1, p2},
                         {"q2", "d2", child_deserved, 1, 100}});
  };
  SECTION("28: deserved department quota; a child may get more than its parent") {
    auto fs = two_departments(4, 3, 1, 0, 1, 1, 0, 2);
    CHECK((fs["d1"] == 3 && fs["q1"] == 3 && fs["d2"] == 1 && fs["q2"] == 2));
  }
  SECTION("29: over-quota") {
    auto fs = two_departments(12, 3, 1, 0, 1, 1, 0, 2);
    CHECK((fs["d1"] == 7 && fs["q1"] == 7 && fs["d2"] == 5 && fs["q2"] == 5));
  }
  SECTION("30: over-quota weight") {
    auto fs = two_departments(12, 3, 1, 0, 1, 7, 0, 2);
    CHECK((fs["d1"] == 4 && fs["q1"] == 4 && fs["d2"] == 8 && fs["q2"] == 8));
  }
  SECTION("31: over-quota weight reversed") {
    auto fs = two_departments(12, 3, 7, 0, 1, 1, 0, 2);
    CHECK((fs["d1"] == 10 && fs["q1"] == 10 && fs["d2"] == 2 && fs["q2"] == 2));
  }
  SECTION("32: priority") {
    auto fs = two_departments(12, 1, 7, 1, 1, 1, 2, 1);
    CHECK((fs["d1"] == 1 && fs["q1"] == 1 && fs["d2"] == 11 && fs["q2"] == 11));
  }
  SECTION("33: priority reversed") {
    auto fs = two_departments(12, 1, 1, 2, 1, 7, 1, 1);
    CHECK((fs["d1"] == 11 && fs["q1"] == 11 && fs["d2"] == 1 && fs["q2"] == 1));
  }
}

TEST_CASE("case H: a parent's share its children cannot use stays unassigned",
          "[fairshare][hierarchy][section6]") {
  auto fs = divide(10, {{"P", "", 0, 1, 10}, {"c", "P", 0, 1, 10, 2}, {"Q", "", 0, 1, 10}});
  CHECK(fs["P"] == 5);
  CHECK(fs["Q"] == 5);
  CHECK(fs["c"] == 2);
}

TEST_CASE("the runbook's ml-org tree on one L40S", "[fairshare][hierarchy]") {
  auto fs = divide(1, {{"ml-org", "", 1, 1, 0.99, 1, 100},
                       {"team-nlp", "ml-org", 0.33, 1, 0.33, 1, 100},
                       {"team-vision", "ml-org", 0.33, 1, 0.33, 1, 100},
                       {"team-recommender", "ml-org", 0.33, 1, 0.33, 1, 100}});
  CHECK(fs["ml-org"] == 0.99);
  CHECK(fs["team-nlp"] == 0.33);
  CHECK(fs["team-vision"] == 0.33);
  CHECK(fs["team-recommender"] == 0.33);
}

TEST_CASE("Queue spec units become plugin units as KAI converts them", "[fairshare][units]") {
  sim::model::QueueSpec spec;
  spec.memory = {4096, -1, 2};
  spec.cpu = {1500, 4000, 1};
  spec.gpu = {0.33, 1, 1};
  spec.priority = 7;
  const QueueShares q = sim::fairshare::shares_from_spec(spec);
  CHECK(q[Resource::MEMORY].deserved == 4096e6);  // MB = 10^6 bytes, not MiB
  CHECK(q[Resource::MEMORY].max_allowed == -1);   // -1 survives the scaling
  CHECK(q[Resource::MEMORY].over_quota_weight == 2);
  CHECK(q[Resource::CPU].deserved == 1500);  // millicores stay millicores
  CHECK(q[Resource::GPU].deserved == 0.33);
  CHECK(q[Resource::GPU].max_allowed == 1);
  CHECK(q.priority == 7);
}
