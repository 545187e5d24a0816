// `kaisim fairshare FILE|-`: one answer of KAI's fair-share simulator, printed to stdout.

#include <iostream>

#include "commands.hpp"
#include "read_input.hpp"
#include "sim/api/fair_share_simulator.hpp"

namespace kaisim::cli {
namespace {

struct FairshareOptions {
  std::string input;
  bool pretty = false;
};

int run_fairshare(const FairshareOptions& options) {
  const std::string text = read_input(options.input);
  sim::Diagnostics diagnostics;
  diagnostics.strict = global_options().strict;
  // Compute the whole answer before printing anything: a bad input leaves stdout empty.
  const std::string answer = sim::api::answer_simulate_request(text, display_name(options.input),
                                                               options.pretty, diagnostics);
  for (const std::string& warning : diagnostics.warnings)
    std::cerr << "kaisim: warning: " << warning << "\n";
  std::cout << answer << std::flush;
  return kExitOk;
}

}  // namespace

Command add_fairshare_command(CLI::App& app) {
  auto options = std::make_shared<FairshareOptions>();
  CLI::App* cmd = app.add_subcommand(
      "fairshare",
      "Fair share per queue, as KAI v0.16.4 computes it. Input: the JSON (or YAML) body of KAI's\n"
      "fair-share simulator ({\"totalResource\": {...}, \"queues\": [...]}), plus the kaisim\n"
      "extensions parentQueue (hierarchical division) and kValue (time-based). Output: KAI's\n"
      "response, {\"<uid>\": {\"gpu\": x, \"cpu\": y, \"memory\": z}}. See docs/fairshare.md.");
  cmd->add_option("input", options->input, "request file, or - for standard input")->required();
  cmd->add_flag("--pretty", options->pretty, "indent the JSON output");
  return [options] { return run_fairshare(*options); };
}

}  // namespace kaisim::cli
