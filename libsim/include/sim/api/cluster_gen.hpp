#pragma once
// `kaisim gen cluster`: a production-shaped cluster state at a chosen size, for benchmarks and
// capacity questions at scale. Node pools of several GPU models (H100, H200, A100 80 GB, A100
// 40 GB partitioned with MIG, L40S shared by GPU fractions) and CPU-only nodes; a queue tree of 2
// or 3 levels with 50 to 500 leaf queues; mostly running pods (system DaemonSet pods, whole-GPU,
// fractional, MIG and CPU pods, distributed gangs) and a few thousand pending jobs, gangs among
// them. Written as KAI's snapshot.json (what `kaisim cycle` reads) and as a scenario (what
// `kaisim replay` runs: that state at time 0, then a day of arrivals). docs/cluster-gen.md.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace sim::api {

/// Pods per node when ClusterGenOptions::pods is not given (large shared GPU clusters' shape).
inline constexpr int kDefaultPodsPerNode = 35;

struct ClusterGenOptions {
  std::uint64_t seed = 1;
  int nodes = 1000;
  int pods = -1;          ///< all pods incl. system and pending; -1: kDefaultPodsPerNode each
  int pending_pods = -1;  ///< -1: a twentieth of the pods
  int queues = -1;        ///< leaf queues; -1: nodes / 8 within [50, 500]
  int levels = 3;         ///< queue levels, 2 or 3
  int arrivals =
      -1;  ///< the scenario's arrivals over its day; -1: a tenth of the pods (at most 200,000)
  std::string out_dir;  ///< empty: only return the files
};

struct GeneratedCluster {
  /// snapshot.json, scenario.yaml, cluster.yaml and arrivals.csv by name.
  std::map<std::string, std::string> files;
  std::size_t nodes = 0, gpus = 0, queues = 0, pods = 0, running_pods = 0, pending_pods = 0,
              pending_jobs = 0, pending_gangs = 0, system_pods = 0, arrivals = 0;
  /// What writing `out_dir` did besides creating it (earlier files replaced, others kept).
  std::vector<std::string> output_notes;
};

/// Draws the cluster from `seed` (same options, same bytes). Writes the files into `out_dir` when
/// it is set, through io::write_output_folder: all or nothing, only kaisim's own files replaced.
GeneratedCluster generate_cluster(const ClusterGenOptions& options);

}  // namespace sim::api
