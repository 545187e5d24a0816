#pragma once
// Queue v2 manifests (apiVersion scheduling.run.ai/v2, kind Queue) as KAI's CRD defines them,
// e.g. the runbook's create-queues.yaml. Omitted numbers are 0 and -1 means unlimited, exactly
// as the scheduler reads them; see sim/model/queue.hpp for units.

#include <string>
#include <string_view>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/model/queue.hpp"

namespace sim::io {

/// Reads every `kind: Queue` document of a multi-document YAML stream, in order. Documents of
/// other kinds are skipped with a warning. Throws InputError on the first bad field, e.g.
/// `create-queues.yaml:12:14: documents[1].spec.resources.gpu.quota: must be >= 0 or -1`.
std::vector<model::QueueSpec> load_queue_manifests(std::string_view text, const std::string& file,
                                                   Diagnostics& diagnostics);

}  // namespace sim::io
