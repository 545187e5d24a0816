#pragma once
// The pod a scheduling test named in its manifests; the test fails when there is none.

#include <catch2/catch.hpp>
#include <string>

#include "sim/model/cluster.hpp"

namespace sim::test {

inline TaskId task_named(const model::ClusterState& state, const std::string& name) {
  for (const model::Task& t : state.tasks) {
    if (t.name == name) return t.id;
  }
  FAIL("no pod " << name);
  return TaskId::invalid();
}

}  // namespace sim::test
