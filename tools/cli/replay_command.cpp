// `kaisim replay SCENARIO [--out DIR] [--check]`: a scenario on a virtual clock.

#include <iostream>

#include "commands.hpp"
#include "progress.hpp"
#include "sim/api/replay.hpp"
#include "sim/core/go_json.hpp"

namespace kaisim::cli {
namespace {

constexpr int kExitExpectationFailed = 1;

struct ReplayCommandOptions {
  std::string scenario;
  std::string out;
  bool check = false;
  bool quiet = false;
};

int run_replay(const ReplayCommandOptions& options) {
  sim::Diagnostics diagnostics;
  diagnostics.strict = global_options().strict;
  sim::api::ReplayOptions replay;
  replay.scenario_path = options.scenario;
  replay.out_dir = options.out;
  replay.check = options.check;
  ProgressBar bar(!options.quiet && stderr_is_terminal());
  replay.progress = bar.callback();
  const sim::api::ReplayResult result = sim::api::run_replay(replay, diagnostics);
  for (const std::string& warning : diagnostics.warnings)
    std::cerr << "kaisim: warning: " << warning << "\n";
  for (const std::string& note : result.output_notes) std::cerr << "kaisim: note: " << note << "\n";
  std::cout << result.summary_table;
  if (!options.check) return kExitOk;
  for (const auto& f : result.failures) {
    std::cout << "FAILED at " << sim::go_json_number(static_cast<double>(f.at_ms) / 1000.0)
              << "s: " << f.what << "\n";
  }
  std::cout << "expectations: " << (result.expectations_checked - result.failures.size())
            << " passed, " << result.failures.size() << " failed\n";
  return result.failures.empty() ? kExitOk : kExitExpectationFailed;
}

}  // namespace

Command add_replay_command(CLI::App& app) {
  auto options = std::make_shared<ReplayCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "replay",
      "Replay a scenario (docs/scenario-format.md) on a virtual clock: one KAI scheduling cycle\n"
      "every schedulePeriod, pods bound, evicted and terminated as a cluster would. Prints a\n"
      "per-queue summary; --out writes timeline.csv, kai-timeline.csv, events.jsonl and\n"
      "summary.json (docs/replay-output.md); --check evaluates the scenario's expect blocks.");
  cmd->add_option("scenario", options->scenario, "scenario file")->required();
  cmd->add_option(
      "--out", options->out,
      "output folder: new, empty, or an earlier replay's (only kaisim's own files are replaced)");
  cmd->add_flag("--check", options->check,
                "check the scenario's expectations; exit 1 if one fails");
  cmd->add_flag("-q,--quiet", options->quiet,
                "no progress bar on stderr (shown on a terminal for runs over a second)");
  return [options] { return run_replay(*options); };
}

}  // namespace kaisim::cli
