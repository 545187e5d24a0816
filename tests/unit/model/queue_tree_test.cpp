#include "sim/model/queue_tree.hpp"

#include <catch2/catch.hpp>

using sim::model::QueueLink;
using sim::model::QueueTree;

namespace {
std::vector<QueueLink> links(std::initializer_list<std::pair<const char*, const char*>> pairs) {
  std::vector<QueueLink> out;
  std::size_t i = 0;
  for (auto [uid, parent] : pairs) {
    QueueLink link;
    link.uid = uid;
    link.parent = parent;
    link.where.file = "q.yaml";
    link.where.line = static_cast<int>(i + 1);
    link.where.column = 1;
    link.path = "queues[" + std::to_string(i) + "]";
    out.push_back(std::move(link));
    ++i;
  }
  return out;
}
}  // namespace

TEST_CASE("queue tree orders children by UID and parents before children", "[model][tree]") {
  sim::Diagnostics d;
  auto tree =
      QueueTree::build(links({{"z-team", "org"}, {"org", ""}, {"a-team", "org"}, {"b", ""}}), d);
  REQUIRE(tree.size() == 4);
  REQUIRE(tree.roots().size() == 2);
  CHECK(tree.uid(tree.roots()[0]) == "b");
  CHECK(tree.uid(tree.roots()[1]) == "org");
  const auto org = tree.find("org");
  REQUIRE(tree.children(org).size() == 2);
  CHECK(tree.uid(tree.children(org)[0]) == "a-team");
  CHECK(tree.uid(tree.children(org)[1]) == "z-team");
  CHECK(tree.parent(tree.find("a-team")) == org);
  CHECK(tree.source_index(tree.find("z-team")) == 0);
  CHECK(d.warnings.empty());
  // level order: every parent before its children
  std::vector<bool> seen(tree.size(), false);
  for (auto id : tree.level_order()) {
    if (tree.parent(id).valid()) CHECK(seen[tree.parent(id).index()]);
    seen[id.index()] = true;
  }
}

TEST_CASE("queue tree rejects duplicate names with both positions", "[model][tree]") {
  sim::Diagnostics d;
  try {
    (void)QueueTree::build(links({{"a", ""}, {"b", ""}, {"a", ""}}), d);
    FAIL("expected an error");
  } catch (const sim::InputError& e) {
    CHECK(e.path() == "queues[2]");
    CHECK(e.where().line == 3);
    CHECK_THAT(e.what(), Catch::Contains("duplicate queue \"a\" (first declared at queues[0])"));
  }
}

TEST_CASE("queue tree rejects parent cycles and names the cycle", "[model][tree]") {
  sim::Diagnostics d;
  try {
    (void)QueueTree::build(links({{"root", ""}, {"a", "c"}, {"b", "a"}, {"c", "b"}}), d);
    FAIL("expected an error");
  } catch (const sim::InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("cycle"));
    CHECK_THAT(e.what(), Catch::Contains("a -> c -> b -> a") ||
                             Catch::Contains("b -> a -> c -> b") ||
                             Catch::Contains("c -> b -> a -> c"));
  }
  CHECK_THROWS_AS(QueueTree::build(links({{"self", "self"}}), d), sim::InputError);
}

TEST_CASE("queue tree drops orphan subtrees with one warning each, as KAI does", "[model][tree]") {
  sim::Diagnostics d;
  auto tree = QueueTree::build(links({{"org", ""},
                                      {"lost", "missing"},
                                      {"lost-child", "lost"},
                                      {"lost-grandchild", "lost-child"},
                                      {"team", "org"}}),
                               d);
  CHECK(tree.size() == 2);
  CHECK_FALSE(tree.find("lost").valid());
  CHECK_FALSE(tree.find("lost-grandchild").valid());
  CHECK(tree.find("team").valid());
  REQUIRE(d.warnings.size() == 1);
  CHECK_THAT(d.warnings[0], Catch::Contains("parent queue \"missing\" does not exist"));
  CHECK_THAT(d.warnings[0], Catch::Contains("the 2 queue(s) below it"));
  CHECK_THAT(d.warnings[0], Catch::StartsWith("q.yaml:2:1: queues[1].parentQueue"));
}

TEST_CASE("queue tree rejects an empty name", "[model][tree]") {
  sim::Diagnostics d;
  CHECK_THROWS_AS(QueueTree::build(links({{"", ""}}), d), sim::InputError);
}
