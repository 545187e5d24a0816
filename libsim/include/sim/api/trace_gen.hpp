#pragma once
// `kaisim gen trace`: a synthetic workload shaped like Alibaba's public GPU trace
// (cluster-trace-gpu-v2023): about 1,200 GPU nodes of several models with 6,212 GPUs, about
// 300 CPU-only nodes, and about 8,000 pods of which 44% of the GPU pods ask for a fraction of a
// GPU; with tenants, queues and priority classes added. The output is a scenario (plain YAML)
// and its trace (CSV), described in docs/scenario-format.md.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace sim::api {

struct TraceOptions {
  std::uint64_t seed = 1;
  int pods = 8000;           ///< pods in the trace
  double arrival_hours = 6;  ///< arrivals fall in [0, arrival_hours) hours (Poisson)
  double node_scale = 1.0;   ///< multiplies every node pool's count (at least one node each)
  std::string out_dir;       ///< empty: only return the files
};

struct GeneratedTrace {
  /// scenario.yaml and pods.csv by name.
  std::map<std::string, std::string> files;
  std::size_t nodes = 0, gpus = 0, pods = 0, fractional_gpu_pods = 0, gpu_pods = 0;
  /// What writing `out_dir` did besides creating it (io::OutputFolderReport::notes).
  std::vector<std::string> output_notes;
};

/// Draws the trace from `seed` (same options, same bytes). Writes the files into `out_dir` when it
/// is set, through io::write_output_folder: all or nothing, and only kaisim's own files replaced.
GeneratedTrace generate_trace(const TraceOptions& options);

}  // namespace sim::api
