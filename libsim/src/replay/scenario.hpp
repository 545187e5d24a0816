#pragma once
// Private: the scenario file (docs/scenario-format.md, schema_version 1) parsed and validated.

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/model/cluster.hpp"
#include "usage_db.hpp"

namespace sim::replay {

/// A Kubernetes object to apply, with the file it came from (for messages).
struct Manifest {
  YAML::Node doc;
  std::string file;
};

/// Names an object to delete.
struct ObjectRef {
  std::string kind, ns, name;
  SourceLocation where;  ///< the scenario entry that names it, for messages
  std::string path;
};

/// One bare KAI pod as generators and traces create it; it becomes a Pod manifest only when its
/// step applies (generators.hpp bare_pod_manifest), so 200,000 of them stay small.
struct PodShape {
  std::string name, ns = "default", queue, priority_class = "train";
  int gpus = 0;                  ///< whole devices, as a limit
  double gpu_fraction = 0;       ///< `gpu-fraction` annotation when > 0
  int gpu_memory_mib = 0;        ///< `gpu-memory` annotation when > 0
  std::string mig_profile;       ///< `nvidia.com/mig-<profile>` limit when set, e.g. "1g.10gb"
  int mig_instances = 1;         ///< how many instances of `mig_profile`
  std::string cpu, memory;       ///< requests as quantities; empty: none
  std::int64_t runtime_ms = -1;  ///< `kaisim/runtime`; -1: runs until deleted
  int line = 0;                  ///< the trace row it came from (0: a generator)
};

struct Step {
  std::int64_t at_ms = 0;
  SourceLocation where;  ///< its `at` (or its first trace row), for messages
  std::string path;
  std::string name;
  std::vector<Manifest> apply;
  std::vector<ObjectRef> remove;
  std::vector<PodShape>
      pods;  ///< generated from checked fields (generators, traces), applied after `apply`
  std::string pods_file;  ///< where `pods` came from, for messages
};

struct QueueExpectation {
  std::string queue;
  double allocated_gpu = 0;
  SourceLocation where;  ///< the queue's key in the scenario
  std::string path;
};

struct Expectation {
  std::int64_t at_ms = 0;
  std::vector<QueueExpectation> queues;
  std::map<std::string, std::string> pods;   ///< "ns/name" -> Pending, Running, Releasing, Deleted
  std::vector<std::string> evicted;          ///< pods evicted at or before `at`
  std::map<std::string, std::string> nodes;  ///< "ns/name" -> the node it is bound to
  SourceLocation where;
  /// Where each pod these expectations name is named ("ns/name" -> position, path).
  std::map<std::string, std::pair<SourceLocation, std::string>> pod_refs;
};

struct Scenario {
  std::string name;
  std::string description;
  std::uint64_t seed = 1;
  std::int64_t period_ms = 1000;  ///< KAI --schedule-period default 1s
  std::int64_t duration_ms = 600000;
  std::int64_t grace_ms = 30000;  ///< Kubernetes default terminationGracePeriodSeconds
  std::int64_t bind_delay_ms = 0;
  bool end_when_drained = false;  ///< stop at the first cycle after the last step with no pod left
  double k_value = 1.0;           ///< proportion kValue (KAI's default)
  model::SchedulerConfig scheduler;  ///< actions and plugin switches (placementStrategy)
  UsageConfig usage;  ///< time-based fair share; off unless `fairShare.usage` is given
  std::vector<Manifest> manifests;  ///< applied at time 0, before the steps
  std::vector<Step> steps;          ///< in time order
  std::vector<Expectation> expectations;
  std::vector<std::string> files;  ///< every file read, for messages
};

/// Reads the scenario and every manifest file it names (paths relative to the scenario).
Scenario load_scenario(const std::string& path, Diagnostics& diagnostics);

/// The same from text already in memory (the Python API); `name` labels messages and manifest
/// paths are relative to `base_dir`.
Scenario load_scenario_text(std::string_view text, const std::string& name,
                            const std::string& base_dir, Diagnostics& diagnostics);

}  // namespace sim::replay
