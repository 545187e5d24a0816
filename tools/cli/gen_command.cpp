// `kaisim gen trace --out DIR`: writes a synthetic workload (scenario.yaml + pods.csv) that
// `kaisim replay DIR/scenario.yaml` runs. `kaisim gen cluster --out DIR`: a production-shaped
// cluster state as KAI's snapshot.json (for `kaisim cycle`) and as a scenario.

#include <iostream>

#include "commands.hpp"
#include "sim/api/cluster_gen.hpp"
#include "sim/api/trace_gen.hpp"

namespace kaisim::cli {

Command add_gen_command(CLI::App& app) {
  auto options = std::make_shared<sim::api::TraceOptions>();
  CLI::App* gen = app.add_subcommand("gen", "Generate inputs for kaisim");
  gen->require_subcommand(1);
  CLI::App* trace = gen->add_subcommand(
      "trace",
      "A workload shaped like Alibaba's GPU trace (cluster-trace-gpu-v2023): about 1,200 GPU "
      "nodes\n"
      "of six models with 6,212 GPUs, 310 CPU-only nodes, 8,000 pods (44% of the GPU pods\n"
      "fractional), four tenant queues. Writes DIR/scenario.yaml and DIR/pods.csv.");
  trace
      ->add_option(
          "--out", options->out_dir,
          "output folder: new, empty, or an earlier trace's (only kaisim's own files are replaced)")
      ->required();
  trace->add_option("--seed", options->seed, "random seed (same seed, same files)");
  trace->add_option("--pods", options->pods, "number of pods");
  trace->add_option("--arrival-hours", options->arrival_hours,
                    "arrivals spread over this many hours");
  trace->add_option("--node-scale", options->node_scale, "multiply every node pool's size");
  auto cluster_options = std::make_shared<sim::api::ClusterGenOptions>();
  CLI::App* cluster = gen->add_subcommand(
      "cluster",
      "A production-shaped cluster state: node pools of H100, H200, A100 (one pool partitioned\n"
      "with MIG), L40S shared by GPU fractions and CPU nodes; 2 or 3 queue levels; mostly running\n"
      "pods and a few thousand pending jobs incl. gangs. Writes DIR/snapshot.json (KAI's format,\n"
      "for `kaisim cycle`) and DIR/scenario.yaml with cluster.yaml and arrivals.csv (that state,\n"
      "then a day of arrivals, for `kaisim replay`). See docs/cluster-gen.md.");
  cluster
      ->add_option("--out", cluster_options->out_dir,
                   "output folder (replaced only if it holds an earlier one)")
      ->required();
  cluster->add_option("--seed", cluster_options->seed, "random seed (same seed, same files)");
  cluster->add_option("--nodes", cluster_options->nodes, "number of nodes (1 to 20000)");
  cluster->add_option("--pods", cluster_options->pods,
                      "all pods incl. system and pending ones (default 35 per node)");
  cluster->add_option("--pending-pods", cluster_options->pending_pods,
                      "pending pods (default: a twentieth of the pods)");
  cluster->add_option("--queues", cluster_options->queues,
                      "leaf queues (default: nodes / 8 within 50 to 500)");
  cluster->add_option("--levels", cluster_options->levels, "queue levels, 2 or 3");
  cluster->add_option("--arrivals", cluster_options->arrivals,
                      "the scenario's arrivals over its day (default: pods / 10)");
  return [options, trace, cluster_options, cluster] {
    if (cluster->parsed()) {
      const sim::api::GeneratedCluster c = sim::api::generate_cluster(*cluster_options);
      for (const std::string& note : c.output_notes) std::cerr << "kaisim: note: " << note << "\n";
      std::cout << "wrote " << cluster_options->out_dir << ": " << c.nodes << " nodes, " << c.gpus
                << " GPUs, " << c.queues << " queues, " << c.pods << " pods (" << c.running_pods
                << " running, " << c.system_pods << " of them system pods; " << c.pending_pods
                << " pending in " << c.pending_jobs << " jobs, " << c.pending_gangs
                << " of them gangs), " << c.arrivals << " arrivals over the scenario's day\n";
      return kExitOk;
    }
    (void)trace;
    const sim::api::GeneratedTrace t = sim::api::generate_trace(*options);
    for (const std::string& note : t.output_notes) std::cerr << "kaisim: note: " << note << "\n";
    std::cout << "wrote " << options->out_dir << ": " << t.nodes << " nodes, " << t.gpus
              << " GPUs, " << t.pods << " pods (" << t.gpu_pods << " with GPUs, "
              << t.fractional_gpu_pods << " of them fractional)\n";
    return kExitOk;
  };
}

}  // namespace kaisim::cli
