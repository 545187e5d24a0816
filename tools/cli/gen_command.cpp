// `kaisim gen trace --out DIR`: writes a synthetic workload (scenario.yaml + pods.csv) that
// `kaisim replay DIR/scenario.yaml` runs.

#include <iostream>

#include "commands.hpp"
#include "sim/api/trace_gen.hpp"

namespace kaisim::cli {

Command add_gen_command(CLI::App& app) {
  auto options = std::make_shared<sim::api::TraceOptions>();
  CLI::App* gen = app.add_subcommand("gen", "Generate inputs for kaisim");
  gen->require_subcommand(1);
  CLI::App* trace = gen->add_subcommand(
      "trace",
      "A workload shaped like Alibaba's GPU trace (cluster-trace-gpu-v2023): about 1,200 GPU nodes\n"
      "of six models with 6,212 GPUs, 310 CPU-only nodes, 8,000 pods (44% of the GPU pods\n"
      "fractional), four tenant queues. Writes DIR/scenario.yaml and DIR/pods.csv.");
  trace->add_option("--out", options->out_dir, "output folder: new, empty, or an earlier trace's (only kaisim's own files are replaced)")->required();
  trace->add_option("--seed", options->seed, "random seed (same seed, same files)");
  trace->add_option("--pods", options->pods, "number of pods");
  trace->add_option("--arrival-hours", options->arrival_hours, "arrivals spread over this many hours");
  trace->add_option("--node-scale", options->node_scale, "multiply every node pool's size");
  return [options] {
    const sim::api::GeneratedTrace t = sim::api::generate_trace(*options);
    for (const std::string& note : t.output_notes) std::cerr << "kaisim: note: " << note << "\n";
    std::cout << "wrote " << options->out_dir << ": " << t.nodes << " nodes, " << t.gpus << " GPUs, " << t.pods
              << " pods (" << t.gpu_pods << " with GPUs, " << t.fractional_gpu_pods << " of them fractional)\n";
    return kExitOk;
  };
}

}  // namespace kaisim::cli
