#pragma once
// `kaisim explain OUT [POD|QUEUE]`: a replay's output folder (events.jsonl, summary.json) told
// in plain words: why each pod waited, period by period, with the cycle's numbers.

#include <string>

namespace sim::api {

/// The story of `target`: a pod ("namespace/name", or a name that is unique), a queue, or, when
/// empty, every queue and the pods that waited longest. `events_jsonl` and `summary_json` are
/// the files' text; `folder` names them in messages. Throws InputError for a file that is not a
/// replay's, or a target that names no pod or queue of it.
std::string explain_replay(const std::string& events_jsonl, const std::string& summary_json,
                           const std::string& target, const std::string& folder);

}  // namespace sim::api
