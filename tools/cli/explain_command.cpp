// `kaisim explain OUT [POD|QUEUE]`: why pods of a replay waited, in plain words.

#include <filesystem>
#include <iostream>

#include "commands.hpp"
#include "read_input.hpp"
#include "sim/api/explain.hpp"

namespace kaisim::cli {
namespace {

struct ExplainOptions {
  std::string out;
  std::string target;
};

int run_explain(const ExplainOptions& options) {
  const std::filesystem::path dir(options.out);
  const std::string events = read_input((dir / "events.jsonl").string());
  const std::string summary = read_input((dir / "summary.json").string());
  std::cout << sim::api::explain_replay(events, summary, options.target, options.out) << std::flush;
  return kExitOk;
}

}  // namespace

Command add_explain_command(CLI::App& app) {
  auto options = std::make_shared<ExplainOptions>();
  CLI::App* cmd = app.add_subcommand(
      "explain",
      "Tell why pods of a replay waited, in plain words: for each pending period its cause\n"
      "(OverLimit, NonPreemptibleOverQuota, OverQuota, not enough GPUs or GPU memory,\n"
      "fragmentation, gang minimum, topology, ...) with the cycle's numbers. OUT is a folder\n"
      "`kaisim replay --out` wrote; POD (namespace/name or a unique name) or QUEUE narrows it.");
  cmd->add_option("out", options->out, "replay output folder")->required();
  cmd->add_option("target", options->target,
                  "a pod (namespace/name or name) or a queue; default: every queue");
  return [options] { return run_explain(*options); };
}

}  // namespace kaisim::cli
