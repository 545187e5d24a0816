#pragma once
// `kaisim diff --recording DIR --scenario SCENARIO`: the replay's Queue.status (pods counted as
// KAI's controllers count them) against a recording of the real KAI running the same steps
// (../shared/kai-live's format, docs/live.md), so drift against the real KAI is tested without a
// cluster.

#include <string>

#include "sim/core/error.hpp"
#include "sim/live/diff.hpp"

namespace sim::api {

/// Replays `scenario` and, at every recorded sample whose prediction does not change within
/// `settle_s` before or after it (a settled sample), compares every Queue's status: one row per
/// queue, status field and resource per settled sample. Throws InputError when the recording is
/// malformed or its steps are not the scenario's (count and times).
live::DiffReport diff_recording(const std::string& recording_dir, const std::string& scenario,
                                double settle_s, Diagnostics& diagnostics);

}  // namespace sim::api
