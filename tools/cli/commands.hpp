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

/// Options of every command (they may come before or after the subcommand).
struct GlobalOptions {
  bool strict = false;     ///< --strict: unknown fields are errors
  double max_input_mb;     ///< --max-input-mb (sim::io::InputLimits::max_input_bytes)
  double max_replay_work;  ///< --max-replay-work (sim::io::InputLimits::max_replay_work)
};
/// The process's options, with sim::io::InputLimits' defaults until the command line sets them.
GlobalOptions& global_options();

Command add_fairshare_command(CLI::App& app);
Command add_serve_command(CLI::App& app);
Command add_cycle_command(CLI::App& app);
Command add_replay_command(CLI::App& app);
Command add_gen_command(CLI::App& app);
// The live commands (live_commands.cpp), against a Kubernetes API server.
Command add_snapshot_command(CLI::App& app);
Command add_apply_command(CLI::App& app);
Command add_diff_command(CLI::App& app);
Command add_verify_live_command(CLI::App& app);
Command add_plan_command(CLI::App& app);
Command add_explain_command(CLI::App& app);

}  // namespace kaisim::cli
