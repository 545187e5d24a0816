#pragma once
// Subcommands of the kaisim CLI. Each `add_*` registers its options on the app and returns the
// function to run when that subcommand is chosen; the function returns the process exit code.

#include <CLI/CLI.hpp>
#include <functional>

namespace kaisim::cli {

/// Exit codes shared by every command.
inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 2;

using Command = std::function<int()>;

Command add_fairshare_command(CLI::App& app);
Command add_serve_command(CLI::App& app);
Command add_cycle_command(CLI::App& app);
Command add_replay_command(CLI::App& app);
Command add_gen_command(CLI::App& app);
Command add_explain_command(CLI::App& app);

}  // namespace kaisim::cli
