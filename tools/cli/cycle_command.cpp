// `kaisim cycle SNAPSHOT... [-o table|json]`: one KAI scheduling cycle on a snapshot, its decisions
// as tables (default) or as the JSON report on stdout.

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "commands.hpp"
#include "read_input.hpp"
#include "sim/api/cycle_report.hpp"
#include "sim/core/error.hpp"

namespace kaisim::cli {
namespace {

namespace fs = std::filesystem;

struct CycleOptions {
  std::vector<std::string> inputs;
  std::string now;
  std::string output = "table";
};

// A folder stands for its *.yaml, *.yml and *.json files, in name order.
std::vector<sim::io::SnapshotSource> read_sources(const std::vector<std::string>& inputs) {
  std::vector<sim::io::SnapshotSource> sources;
  for (const std::string& input : inputs) {
    std::error_code ec;
    if (input != "-" && fs::is_directory(input, ec)) {
      std::vector<fs::path> files;
      for (const auto& entry : fs::directory_iterator(input, ec)) {
        const std::string ext = entry.path().extension().string();
        if (entry.is_regular_file() && (ext == ".yaml" || ext == ".yml" || ext == ".json"))
          files.push_back(entry.path());
      }
      if (ec) throw sim::Error(sim::ErrorCode::IO, input + ": cannot list: " + ec.message());
      std::sort(files.begin(), files.end());
      for (const fs::path& f : files) sources.push_back({read_input(f.string()), f.string()});
    } else {
      sources.push_back({read_input(input), display_name(input)});
    }
  }
  return sources;
}

int run_cycle(const CycleOptions& options) {
  sim::io::SnapshotOptions snapshot;
  if (!options.now.empty()) {
    snapshot.now_ns = sim::io::parse_time_option(options.now);
    if (!snapshot.now_ns) {
      throw sim::InputError(
          {}, "--now",
          "not an RFC 3339 time such as 2026-08-03T10:00:00Z: \"" + options.now + "\"");
    }
  }
  sim::Diagnostics diagnostics;
  diagnostics.strict = global_options().strict;
  const sim::api::CycleFormat format =
      options.output == "json" ? sim::api::CycleFormat::Json : sim::api::CycleFormat::Table;
  const std::string report =
      sim::api::run_cycle_report(read_sources(options.inputs), snapshot, diagnostics, format);
  for (const std::string& warning : diagnostics.warnings)
    std::cerr << "kaisim: warning: " << warning << "\n";
  std::cout << report << std::flush;
  return kExitOk;
}

}  // namespace

Command add_cycle_command(CLI::App& app) {
  auto options = std::make_shared<CycleOptions>();
  CLI::App* cmd = app.add_subcommand(
      "cycle",
      "Run one KAI v0.16.4 scheduling cycle (allocate, consolidation, reclaim, preempt,\n"
      "stalegangeviction) on a cluster snapshot and print its decisions: binds, evictions with\n"
      "their reason, pipelined pods, each queue's fair share, allocation, quota and limit, and\n"
      "why pending jobs wait, as tables (-o json: the JSON report). Input: KAI's snapshot.json,\n"
      "or Kubernetes manifests (files or folders). See docs/cycle.md.");
  cmd->add_option("snapshot", options->inputs,
                  "snapshot file(s) or folder(s), or - for standard input")
      ->required();
  cmd->add_option("-o,--output", options->output, "table (for people) or json (docs/cycle.md)")
      ->capture_default_str()
      ->check(CLI::IsMember({"table", "json"}));
  cmd->add_option("--now", options->now,
                  "the session's clock (RFC 3339); default: the newest timestamp in the snapshot");
  return [options] { return run_cycle(*options); };
}

}  // namespace kaisim::cli
