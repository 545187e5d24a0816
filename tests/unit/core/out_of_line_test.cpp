// A value kept out of line reads as empty until written, copies deeply, and stays absent where
// writing would only store emptiness: tasks without NUMA or DRA must not each grow a heap block.
#include "sim/core/out_of_line.hpp"

#include <catch2/catch.hpp>
#include <memory>
#include <vector>

namespace {

struct Extras {
  std::vector<int> zones;
  std::shared_ptr<const int> units;
  bool empty() const { return zones.empty() && !units; }
};

}  // namespace

TEST_CASE("an absent value reads as empty and is created by its first write",
          "[core][out_of_line]") {
  sim::OutOfLine<Extras> box;
  CHECK(box->zones.empty());
  CHECK(&*box == &*sim::OutOfLine<Extras>{});  // every absent value reads the same empty one
  box.edit().zones.push_back(3);
  CHECK(box->zones == std::vector<int>{3});
  CHECK(&*box != &*sim::OutOfLine<Extras>{});
}

TEST_CASE("copies are deep, and an empty value copies as absent", "[core][out_of_line]") {
  sim::OutOfLine<Extras> a;
  a.edit().zones = {1, 2};
  sim::OutOfLine<Extras> b = a;
  b.edit().zones.push_back(9);
  CHECK(a->zones == std::vector<int>{1, 2});
  CHECK(b->zones == std::vector<int>{1, 2, 9});

  a.edit().zones.clear();
  const sim::OutOfLine<Extras> c = a;
  CHECK(&*c == &*sim::OutOfLine<Extras>{});
  b = c;
  CHECK(b->zones.empty());
}

TEST_CASE("set stores an empty member only where the value is already present",
          "[core][out_of_line]") {
  sim::OutOfLine<Extras> box;
  box.set(&Extras::zones, std::vector<int>{});
  box.set(&Extras::units, std::shared_ptr<const int>{});
  CHECK(&*box == &*sim::OutOfLine<Extras>{});  // still absent

  box.set(&Extras::units, std::make_shared<const int>(4));
  REQUIRE(box->units);
  CHECK(*box->units == 4);
  box.set(&Extras::zones, std::vector<int>{5});
  box.set(&Extras::zones, std::vector<int>{});  // present: the member is cleared
  CHECK(box->zones.empty());
  CHECK(box->units);
}
