// kaisim: entry point. Parses the command line, runs one subcommand, and turns every error into
// one clear line on stderr with the documented exit code (2 for bad input of any kind).

#include <iostream>
#include <map>

#include "commands.hpp"
#include "sim/core/error.hpp"

int main(int argc, char** argv) {
  CLI::App app{"kaisim: a KAI Scheduler v0.16.4 faithful simulator for shared GPU clusters"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "kaisim 0.1.0 (models KAI Scheduler v0.16.4)");
  std::map<std::string, kaisim::cli::Command> commands;
  commands["fairshare"] = kaisim::cli::add_fairshare_command(app);
  commands["serve"] = kaisim::cli::add_serve_command(app);
  commands["cycle"] = kaisim::cli::add_cycle_command(app);
  commands["replay"] = kaisim::cli::add_replay_command(app);
  commands["gen"] = kaisim::cli::add_gen_command(app);
  commands["snapshot"] = kaisim::cli::add_snapshot_command(app);
  commands["apply"] = kaisim::cli::add_apply_command(app);
  commands["diff"] = kaisim::cli::add_diff_command(app);
  commands["verify-live"] = kaisim::cli::add_verify_live_command(app);
  commands["plan"] = kaisim::cli::add_plan_command(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kaisim::cli::kExitBadInput;
  }
  try {
    return commands.at(app.get_subcommands().front()->get_name())();
  } catch (const sim::Error& e) {
    std::cerr << "kaisim: error: " << e.what() << "\n";
    return kaisim::cli::kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "kaisim: internal error: " << e.what() << "\n";
    return 1;
  }
}
