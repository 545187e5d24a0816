// kaisim: entry point. Parses the command line, runs one subcommand, and turns every error into
// one clear line on stderr with the documented exit code (2 for bad input of any kind).

#include <iostream>
#include <map>
#include <string_view>

#include "commands.hpp"
#include "sim/core/error.hpp"

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
  app.set_version_flag("--version", "kaisim 0.1.0 (models KAI Scheduler v0.16.4)");
  std::map<std::string, kaisim::cli::Command> commands;
  commands["replay"] = kaisim::cli::add_replay_command(app);
  commands["explain"] = kaisim::cli::add_explain_command(app);
  commands["cycle"] = kaisim::cli::add_cycle_command(app);
  commands["fairshare"] = kaisim::cli::add_fairshare_command(app);
  commands["serve"] = kaisim::cli::add_serve_command(app);
  commands["gen"] = kaisim::cli::add_gen_command(app);

  // A first word that is no option and no command: say so, and what the commands are (CLI11
  // alone would only say that an argument was not expected).
  if (argc > 1 && argv[1][0] != '-' && !commands.contains(argv[1])) {
    std::cerr << "kaisim: error: unknown command '" << argv[1] << "'; the commands are " << command_list(app)
              << " (kaisim --help)\n";
    return kaisim::cli::kExitBadInput;
  }
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
