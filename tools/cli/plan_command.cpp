// `kaisim plan PLAN.yaml [--out DIR] [--jobs N] [--quiet]`: answers a plan file's question
// (docs/plan-format.md) and writes the plan folder.

#include <unistd.h>

#include <cmath>
#include <iostream>

#include "commands.hpp"
#include "sim/core/go_json.hpp"
#include "sim/plan/planner.hpp"

namespace kaisim::cli {
namespace {

constexpr int kExitTargetsMissed = 1;

struct PlanCommandOptions {
  std::string plan;
  std::string out;
  int jobs = 0;
  bool quiet = false;
};

std::string seconds(double s) { return sim::go_json_number(std::round(s * 10) / 10) + " s"; }

int run_plan(const PlanCommandOptions& options) {
  sim::Diagnostics diagnostics;
  const sim::plan::PlanSpec spec = sim::plan::load_plan(options.plan, diagnostics);
  sim::plan::PlanOptions run;
  run.jobs = options.jobs;
  // Progress only on a terminal: a log file or a pipe gets the answer alone.
  const bool progress = !options.quiet && ::isatty(STDERR_FILENO) != 0;
  std::size_t width = 0;
  if (progress) {
    run.progress = [&](const sim::plan::Progress& p) {
      std::string line = "plan: " + std::to_string(p.judged) + " candidates judged, " +
                         std::to_string(p.replays) + " replays, " + seconds(p.elapsed_s);
      if (!p.best.empty()) line += ", best so far: " + p.best;
      if (p.replays_left > 0) line += ", about " + seconds(p.left_s) + " left";
      if (line.size() > 150) line = line.substr(0, 147) + "...";
      std::cerr << "\r" << line << std::string(width > line.size() ? width - line.size() : 0, ' ')
                << std::flush;
      width = line.size();
    };
  }
  const sim::plan::PlanResult result = sim::plan::run_plan(spec, run, diagnostics);
  if (progress && width > 0) std::cerr << "\r" << std::string(width, ' ') << "\r" << std::flush;
  for (const std::string& warning : diagnostics.warnings)
    std::cerr << "kaisim: warning: " << warning << "\n";
  if (!options.out.empty()) {
    for (const std::string& note : sim::plan::write_plan_folder(options.out, result)) {
      std::cerr << "kaisim: note: " << note << "\n";
    }
  }
  std::cout << result.summary;
  if (!options.out.empty()) std::cout << "wrote " << options.out << "\n";
  if (!options.quiet) {
    std::cerr << "time: " << seconds(result.replay_seconds + result.search_seconds) << " ("
              << result.replays << " replays " << seconds(result.replay_seconds)
              << ", search and report " << seconds(result.search_seconds) << ")\n";
  }
  return result.targets_met ? kExitOk : kExitTargetsMissed;
}

}  // namespace

Command add_plan_command(CLI::App& app) {
  auto options = std::make_shared<PlanCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "plan",
      "Answer a capacity question (docs/plan-format.md): the fewest GPUs, queue quotas and "
      "weights,\n"
      "or the hardware that meets the plan's targets on several workload seeds, each target "
      "judged\n"
      "by its one-sided confidence bound. --out writes the plan folder: queues.yaml,\n"
      "priorityclasses.yaml, runtimeclass.yaml, vcluster-<team>.yaml, queue-guard.yaml, "
      "plan.json,\n"
      "report.md and report.html. Exit 1 when no candidate meets every target.");
  cmd->add_option("plan", options->plan, "plan file")->required();
  cmd->add_option("--out", options->out, "plan folder (replaced only if it holds an earlier plan)");
  cmd->add_option("--jobs", options->jobs, "replays run in parallel (default: one per core)")
      ->check(CLI::Range(1, 256));
  cmd->add_flag("--quiet", options->quiet, "no progress line and no time on stderr");
  return [options] { return run_plan(*options); };
}

}  // namespace kaisim::cli
