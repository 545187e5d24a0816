#pragma once
// `kaisim cycle`: load a snapshot, run one KAI scheduling cycle, describe what it decided as
// JSON (docs/cycle-output.md lists every field with its unit).

#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/io/snapshot.hpp"

namespace sim::api {

enum class CycleFormat {
  Json,   ///< the report of docs/cycle.md
  Table,  ///< the same decisions as tables for people, with each queue's quota and limit
};

/// Runs the cycle and returns the report (with a trailing newline). Throws InputError for bad
/// snapshots; warnings go to `diagnostics`.
std::string run_cycle_report(const std::vector<io::SnapshotSource>& sources,
                             const io::SnapshotOptions& options, Diagnostics& diagnostics,
                             CycleFormat format = CycleFormat::Json);

}  // namespace sim::api
