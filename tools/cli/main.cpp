// kaisim: entry point. Parses the command line, runs one subcommand, and turns every error into
// one clear line on stderr with the documented exit code (2 for bad input of any kind).

#include <iostream>
#include <map>
#include <new>
#include <string_view>

#include "commands.hpp"
#include "sim/core/error.hpp"
#include "sim/io/input_limits.hpp"

namespace {

// The subcommands in the order `kaisim --help` lists them ("a, b and c").
std::string command_list(const CLI::App& app) {
  std::string out;
  const auto subs = app.get_subcommands([](const CLI::App*) { return true; });
  for (std::size_t i = 0; i < subs.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == subs.size() ? " and " : ", ") + subs[i]->get_name();
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kaisim: a KAI Scheduler v0.16.4 faithful simulator for shared GPU clusters"};
  app.require_subcommand(1);
  app.fallthrough();  // the options below may follow the subcommand too
  app.set_version_flag("--version", "kaisim 0.1.0 (models KAI Scheduler v0.16.4)");
  kaisim::cli::GlobalOptions& global = kaisim::cli::global_options();
  app.add_flag("--strict", global.strict, "an unknown field is an error, not a warning");
  app.add_option("--max-input-mb", global.max_input_mb, "largest input file read, in MiB")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 1048576.0));
  app.add_option("--max-replay-work", global.max_replay_work,
                 "largest replay, as estimated cycles x objects (nodes, pods, queues)")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 1e18));
  std::map<std::string, kaisim::cli::Command> commands;
  commands["replay"] = kaisim::cli::add_replay_command(app);
  commands["explain"] = kaisim::cli::add_explain_command(app);
  commands["plan"] = kaisim::cli::add_plan_command(app);
  commands["cycle"] = kaisim::cli::add_cycle_command(app);
  commands["fairshare"] = kaisim::cli::add_fairshare_command(app);
  commands["serve"] = kaisim::cli::add_serve_command(app);
  commands["gen"] = kaisim::cli::add_gen_command(app);
  commands["snapshot"] = kaisim::cli::add_snapshot_command(app);
  commands["apply"] = kaisim::cli::add_apply_command(app);
  commands["diff"] = kaisim::cli::add_diff_command(app);
  commands["verify-live"] = kaisim::cli::add_verify_live_command(app);

  // A first word that is no option and no command: say so, and what the commands are (CLI11
  // alone would only say that an argument was not expected).
  if (argc > 1 && argv[1][0] != '-' && !commands.contains(argv[1])) {
    std::cerr << "kaisim: error: unknown command '" << argv[1] << "'; the commands are "
              << command_list(app) << " (kaisim --help)\n";
    return kaisim::cli::kExitBadInput;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    // One line, as for any bad input; CLI11's own text names the option and the problem.
    std::string text = e.what();
    for (char& c : text) c = c == '\n' ? ' ' : c;
    std::cerr << "kaisim: error: " << text << " (see kaisim --help)\n";
    return kaisim::cli::kExitBadInput;
  }
  sim::io::InputLimits limits = sim::io::input_limits();
  limits.max_input_bytes = static_cast<std::size_t>(global.max_input_mb * 1048576.0);
  limits.max_replay_work = global.max_replay_work;
  sim::io::set_input_limits(limits);
  try {
    return commands.at(app.get_subcommands().front()->get_name())();
  } catch (const sim::Error& e) {
    std::cerr << "kaisim: error: " << e.what() << "\n";
    return kaisim::cli::kExitBadInput;
  } catch (const std::bad_alloc&) {
    std::cerr << "kaisim: error: out of memory: the input needs more memory than this machine has "
                 "(README, \"Limits\")\n";
    return kaisim::cli::kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "kaisim: internal error: " << e.what() << "\n";
    return 1;
  }
}
