// The live commands: `kaisim snapshot`, `kaisim apply`, `kaisim diff` and `kaisim verify-live`
// against a Kubernetes API server reached through a kubeconfig (docs/live.md).

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>

#include "commands.hpp"
#include "sim/api/live_recording.hpp"
#include "sim/api/live_verify.hpp"
#include "sim/core/error.hpp"
#include "sim/live/apply.hpp"
#include "sim/live/diff.hpp"
#include "sim/live/snapshot.hpp"

namespace kaisim::cli {
namespace {

namespace fs = std::filesystem;
constexpr int kExitDrift = 1;

struct Connection {
  std::string kubeconfig, context;
  std::string request_timeout = "30s", timeout = "60s";
  bool verbose = false;
};

// "500ms", "5s", "2m", "1h", or plain seconds.
double seconds_option(const std::string& text, const std::string& flag) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  const std::string unit = end == nullptr ? "" : std::string(end);
  double scale = 0;
  if (unit.empty() || unit == "s")
    scale = 1;
  else if (unit == "ms")
    scale = 0.001;
  else if (unit == "m")
    scale = 60;
  else if (unit == "h")
    scale = 3600;
  if (end == text.c_str() || scale == 0 || !std::isfinite(v) || v < 0) {
    throw sim::InputError({}, flag, "not a duration such as 500ms, 30s or 2m: \"" + text + "\"");
  }
  return v * scale;
}

void add_connection_options(CLI::App* cmd, Connection& c) {
  cmd->add_option("--kubeconfig", c.kubeconfig,
                  "kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)");
  cmd->add_option("--context", c.context, "kubeconfig context (default: its current-context)");
  cmd->add_option("--request-timeout", c.request_timeout,
                  "longest wait for one request (default 30s)");
  cmd->add_option(
      "--timeout", c.timeout,
      "deadline for a request with its retries on 429, 5xx and broken connections (default 60s)");
  cmd->add_flag("-v,--verbose", c.verbose,
                "print each request and retry on stderr (never credentials)");
}

sim::live::ConnectionOptions connection_options(const Connection& c) {
  sim::live::ConnectionOptions out;
  out.kubeconfig = c.kubeconfig;
  out.context = c.context;
  out.request_timeout_s = seconds_option(c.request_timeout, "--request-timeout");
  out.deadline_s = seconds_option(c.timeout, "--timeout");
  if (c.verbose) {
    static std::mutex mutex;  // watches log from several threads
    static const auto start = std::chrono::steady_clock::now();
    out.log = [](const std::string& line) {
      std::lock_guard lock(mutex);
      char at[32];
      std::snprintf(
          at, sizeof at, "%.3f",
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      std::cerr << "kaisim: [" << at << " s] " << line << "\n";
    };
  }
  return out;
}

void print_warnings(const sim::Diagnostics& d) {
  for (const std::string& w : d.warnings) std::cerr << "kaisim: warning: " << w << "\n";
}

std::string output_format(const std::string& o) {
  if (o != "text" && o != "json")
    throw sim::InputError({}, "-o", "the output format is text or json, not \"" + o + "\"");
  return o;
}

// ---------------------------------------------------------------- snapshot

struct SnapshotOptions {
  Connection connection;
  std::string out;
};

constexpr std::string_view kSnapshotStart =
    "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"List\",\n  \"items\": [";

// Overwrites only a file an earlier `kaisim snapshot` wrote; writes next to it and renames, so a
// failure leaves the old file as it was.
void write_snapshot(const std::string& path, const std::string& text) {
  std::error_code ec;
  if (fs::exists(path, ec)) {
    std::ifstream in(path, std::ios::binary);
    std::string head(kSnapshotStart.size(), '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    if (head != kSnapshotStart) {
      throw sim::Error(sim::ErrorCode::IO,
                       path + ": exists and is not a kaisim snapshot; not overwritten");
    }
  }
  const std::string tmp = path + ".kaisim-tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw sim::Error(sim::ErrorCode::IO, tmp + ": cannot write: " + std::strerror(errno));
    out << text;
    out.flush();
    if (!out) {
      fs::remove(tmp, ec);
      throw sim::Error(sim::ErrorCode::IO, tmp + ": write failed");
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw sim::Error(sim::ErrorCode::IO, path + ": cannot rename into place: " + ec.message());
  }
}

int run_snapshot(const SnapshotOptions& options) {
  sim::Diagnostics diagnostics;
  const std::string text =
      sim::live::take_snapshot(connection_options(options.connection), diagnostics);
  print_warnings(diagnostics);
  if (options.out.empty() || options.out == "-") {
    std::cout << text << std::flush;
  } else {
    write_snapshot(options.out, text);
  }
  return kExitOk;
}

// ---------------------------------------------------------------- apply

struct ApplyCommandOptions {
  Connection connection;
  std::vector<std::string> paths;
  bool yes = false;
  bool force_conflicts = false;
  std::string output = "text";
};

int run_apply(const ApplyCommandOptions& options) {
  const std::string format = output_format(options.output);
  sim::live::ApplyOptions apply;
  apply.paths = options.paths;
  apply.dry_run = !options.yes;
  apply.force_conflicts = options.force_conflicts;
  sim::Diagnostics diagnostics;
  const sim::live::ApplyReport report =
      sim::live::apply_manifests(connection_options(options.connection), apply, diagnostics);
  print_warnings(diagnostics);
  std::cout << (format == "json" ? report.json() : report.text()) << std::flush;
  if (!report.error.empty()) std::cerr << "kaisim: error: " << report.error << "\n";
  return report.exit_code();
}

// ---------------------------------------------------------------- diff

struct DiffCommandOptions {
  Connection connection;
  std::vector<std::string> plan;
  bool watch = false;
  std::string for_duration;
  std::string settle = "5s";
  std::string output = "text";
  std::string recording, scenario;
};

int run_diff(const DiffCommandOptions& options) {
  const std::string format = output_format(options.output);
  sim::live::DiffOptions diff;
  diff.plan = options.plan;
  diff.settle_s = seconds_option(options.settle, "--settle");
  sim::Diagnostics diagnostics;
  if (!options.recording.empty()) {
    if (options.scenario.empty())
      throw sim::InputError({}, "--scenario", "--recording needs the scenario the recording ran");
    const sim::live::DiffReport report =
        sim::api::diff_recording(options.recording, options.scenario, diff.settle_s, diagnostics);
    print_warnings(diagnostics);
    std::cout << (format == "json" ? report.json() : report.text()) << std::flush;
    return report.drifting() ? kExitDrift : kExitOk;
  }
  const sim::live::ConnectionOptions connection = connection_options(options.connection);
  if (!options.watch) {
    const sim::live::DiffReport report = sim::live::diff_live(connection, diff, diagnostics);
    print_warnings(diagnostics);
    std::cout << (format == "json" ? report.json() : report.text()) << std::flush;
    return report.drifting() ? kExitDrift : kExitOk;
  }
  const double duration =
      options.for_duration.empty() ? -1 : seconds_option(options.for_duration, "--for");
  bool first = true;
  const sim::live::DiffReport last = sim::live::watch_diff(
      connection, diff, duration,
      [&](const sim::live::DiffReport& changes) {
        if (first) print_warnings(diagnostics);
        if (format == "json") {
          std::string line = changes.json();
          std::erase(line, '\n');  // one JSON object a line
          std::cout << line << "\n" << std::flush;
        } else {
          char at[32];
          std::snprintf(at, sizeof at, "%.1f",
                        changes.rows.empty() ? 0.0 : changes.rows.front().at_s);
          std::cout << "-- " << at << " s: " << (first ? "now" : "changed") << "\n"
                    << changes.text() << std::flush;
        }
        first = false;
      },
      nullptr, diagnostics);
  return last.drifting() ? kExitDrift : kExitOk;
}

// ---------------------------------------------------------------- verify-live

struct VerifyCommandOptions {
  Connection connection;
  std::string scenario;
  std::string settle = "5s";
  bool yes = false;
  std::string output = "text";
};

int run_verify(const VerifyCommandOptions& options) {
  const std::string format = output_format(options.output);
  if (!options.yes) {
    throw sim::InputError({}, "--yes",
                          "verify-live changes the cluster (it applies the scenario's objects and "
                          "steps); pass --yes");
  }
  sim::api::VerifyOptions verify;
  verify.scenario = options.scenario;
  verify.settle_s = seconds_option(options.settle, "--settle");
  sim::Diagnostics diagnostics;
  const sim::api::VerifyReport report = sim::api::verify_live(
      connection_options(options.connection), verify,
      [&](const sim::api::VerifyStep& step) {
        if (format == "text") std::cout << sim::api::VerifyReport::step_text(step) << std::flush;
      },
      diagnostics);
  print_warnings(diagnostics);
  if (format == "json") std::cout << report.json();
  std::cout << "steps " << report.steps.size() << ", drifting " << report.drifting() << "\n"
            << std::flush;
  return report.drifting() == 0 ? kExitOk : kExitDrift;
}

}  // namespace

Command add_snapshot_command(CLI::App& app) {
  auto options = std::make_shared<SnapshotOptions>();
  CLI::App* cmd = app.add_subcommand(
      "snapshot",
      "Read what the scheduler uses from a live cluster (Nodes, Pods, Queues, PodGroups,\n"
      "BindRequests, PriorityClasses, Topologies, DRA objects) into one file that kaisim reads\n"
      "back: `kaisim cycle FILE`, or a scenario's `manifests: [FILE]`. See docs/live.md.");
  cmd->add_option("-o,--out", options->out, "snapshot file (default: standard output)");
  add_connection_options(cmd, options->connection);
  return [options] { return run_snapshot(*options); };
}

Command add_apply_command(CLI::App& app) {
  auto options = std::make_shared<ApplyCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "apply",
      "Server-side apply a plan folder (or manifest files) as field manager kaisim: Namespaces,\n"
      "PriorityClasses, RuntimeClasses, Queues (parents first), admission policies and bindings,\n"
      "then the rest. A server-side dry run unless --yes. Reports created / changed / unchanged\n"
      "per object; conflicts with other field managers are reported, not forced.\n"
      "Exit 0: applied; 1: a conflict or a rejected object; 2: error. See docs/live.md.");
  cmd->add_option("plan", options->paths, "plan folder(s) or manifest file(s)")->required();
  cmd->add_flag("--yes", options->yes,
                "change the cluster (default: server-side dry run, dryRun=All)");
  cmd->add_flag("--force-conflicts", options->force_conflicts,
                "take over fields another field manager owns");
  cmd->add_option("-o,--output", options->output, "text (default) or json");
  add_connection_options(cmd, options->connection);
  return [options] { return run_apply(*options); };
}

Command add_diff_command(CLI::App& app) {
  auto options = std::make_shared<DiffCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "diff",
      "Drift of a live cluster: each planned Queue's spec field by field against the live one,\n"
      "and each Queue's status (allocated, allocatedNonPreemptible, requested) against what\n"
      "kaisim predicts from the live state, within one settle period. --watch keeps comparing\n"
      "and prints changes; --recording compares a replay with a recording of the real KAI.\n"
      "Exit 0: no drift; 1: drift; 2: error. See docs/live.md.");
  cmd->add_option("plan", options->plan, "plan folder(s) or manifest file(s) (optional)");
  cmd->add_flag("--watch", options->watch, "keep comparing (watch API) and print only changes");
  cmd->add_option("--for", options->for_duration,
                  "with --watch: stop after this long (default: until interrupted)");
  cmd->add_option("--settle", options->settle,
                  "how long Queue.status may lag the prediction (default 5s)");
  cmd->add_option("-o,--output", options->output,
                  "text (default) or json (--watch: one JSON object a line)");
  cmd->add_option("--recording", options->recording,
                  "a recording folder (../shared/kai-live format) instead of a cluster");
  cmd->add_option("--scenario", options->scenario,
                  "with --recording: the scenario whose steps were recorded");
  add_connection_options(cmd, options->connection);
  return [options] { return run_diff(*options); };
}

Command add_verify_live_command(CLI::App& app) {
  auto options = std::make_shared<VerifyCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "verify-live",
      "Apply a scenario's objects and steps to a live cluster at the scenario's times, wait for\n"
      "KAI to settle after each step and compare every Queue's status with the replay's\n"
      "prediction. The last line is `steps N, drifting D`. Needs --yes (it changes the cluster).");
  cmd->add_option("scenario", options->scenario, "scenario file")->required();
  cmd->add_flag("--yes", options->yes, "apply the scenario to the cluster");
  cmd->add_option("--settle", options->settle,
                  "how long Queue.status may lag the prediction (default 5s)");
  cmd->add_option("-o,--output", options->output, "text (default) or json");
  add_connection_options(cmd, options->connection);
  return [options] { return run_verify(*options); };
}

}  // namespace kaisim::cli
