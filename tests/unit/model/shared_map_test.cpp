// A shared map's copies share one map until one of them is changed: labels and MIG requests are
// copied into every cycle's state, and a change to one task must not reach the others.
#include "sim/model/shared_map.hpp"

#include <catch2/catch.hpp>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

TEST_CASE("a shared map changed through one copy leaves the others as they were",
          "[model][shared_map]") {
  sim::model::SharedMap<std::int64_t> mig;
  CHECK(mig.empty());
  mig.set("nvidia.com/mig-1g.5gb", 1);
  const sim::model::SharedMap<std::int64_t> copy = mig;
  CHECK(&copy.map() == &mig.map());  // shared, not copied

  mig.set("nvidia.com/mig-1g.5gb", 2);
  mig.set("nvidia.com/mig-3g.20gb", 1);
  CHECK(copy.size() == 1);
  CHECK(copy.at("nvidia.com/mig-1g.5gb") == 1);
  CHECK(mig.at("nvidia.com/mig-1g.5gb") == 2);
  CHECK(mig.size() == 2);
  CHECK_FALSE(mig == copy);
  CHECK_THROWS_AS(copy.at("nvidia.com/mig-3g.20gb"), std::out_of_range);

  mig.clear();
  CHECK(mig.empty());
  CHECK(mig == sim::model::SharedMap<std::int64_t>{});
  CHECK(copy.contains("nvidia.com/mig-1g.5gb"));
}

TEST_CASE("a shared map iterates in key order and finds by a literal key", "[model][shared_map]") {
  const sim::model::SharedMap<std::string> labels({{"zone", "b"}, {"app", "a"}});
  std::string keys;
  for (const auto& [key, value] : labels) keys += key + "=" + value + ";";
  CHECK(keys == "app=a;zone=b;");
  CHECK(labels.find("zone")->second == "b");
  CHECK(labels.find("missing") == labels.end());
}

TEST_CASE("a shared map takes several entries in one copy and leaves its other copies alone",
          "[model][shared_map]") {
  sim::model::SharedMap<std::string> labels({{"app", "a"}, {"team", "t"}});
  const sim::model::SharedMap<std::string> before = labels;
  labels.set_all(std::vector<std::pair<std::string, std::string>>{});
  CHECK(&labels.map() == &before.map());  // nothing to set: still shared
  labels.set_all(std::vector<std::pair<std::string, std::string>>{{"app", "b"}, {"zone", "z"}});
  CHECK(labels.at("app") == "b");  // an existing key is overwritten
  CHECK(labels.at("zone") == "z");
  CHECK(before.size() == 2);
  CHECK(before.at("app") == "a");
}
