#pragma once
// Private: readers for single Kubernetes objects, shared by the manifest and snapshot loaders.

#include <cstdint>

#include "sim/core/error.hpp"
#include "sim/model/queue.hpp"
#include "yaml_field.hpp"

namespace sim::io {

/// A `kind: Queue` (scheduling.run.ai/v2) object; `position` orders queues without a timestamp.
model::QueueSpec read_queue_object(const Field& doc, std::int64_t position,
                                   Diagnostics& diagnostics);

}  // namespace sim::io
