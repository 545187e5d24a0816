#pragma once
// Turns one case of tests/kai_cases/ (KAI v0.16.4's own action tests, converted to neutral JSON by
// tools/kai-cases) into a kaisim ClusterState, and checks a finished session against the case's
// expectations the way KAI's test_utils.MatchExpectedAndRealTasks does.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/model/cluster.hpp"
#include "sim/sched/framework/session.hpp"

namespace kai_cases {

/// Per-pod state that KAI's integration harness writes back between rounds.
struct PodState {
  std::string status;
  std::string node;
  std::vector<std::string> gpu_groups;
};

/// The cluster a case describes, with pod states taken from `pods` (by pod name) when given.
sim::model::ClusterState build_state(const nlohmann::json& c,
                                     const std::map<std::string, PodState>& pods);

/// Writes the claims' statuses after a session into the case's `dra.resource_claims` (what KAI's
/// integration harness copies from the session's DRA manager between rounds).
void write_back_claims(const sim::model::ClusterState& state, nlohmann::json& c);

/// The initial pod states of a case.
std::map<std::string, PodState> initial_pods(const nlohmann::json& c);

/// Compares the session (and the counts of binds, evictions and pipelines) with `expect`;
/// returns one line per mismatch.
std::vector<std::string> check(const nlohmann::json& expect, const sim::sched::Session& ssn,
                               std::size_t binds, std::size_t evictions, std::size_t pipelines);

}  // namespace kai_cases
