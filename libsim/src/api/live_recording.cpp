// `kaisim diff --recording DIR SCENARIO`: the replay's Queue.status (as KAI's controllers count
// pods) against a recording of the real KAI running the same steps (docs/live.md).

#include "sim/api/live_recording.hpp"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "replay/scenario.hpp"
#include "sim/api/replay.hpp"

namespace sim::api {

using live::DiffReport;
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The lines of a gzip (or plain) file; InputError naming the file when it cannot be read.
std::vector<std::string> read_lines(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) throw Error(ErrorCode::IO, path + ": cannot open");
  std::vector<std::string> lines;
  std::string current;
  char buf[1 << 16];
  for (int n; (n = gzread(f, buf, sizeof buf)) > 0;) {
    for (int i = 0; i < n; ++i) {
      if (buf[i] == '\n') {
        lines.push_back(std::move(current));
        current.clear();
      } else {
        current.push_back(buf[i]);
      }
    }
  }
  int err = 0;
  const char* message = gzerror(f, &err);
  const bool failed = err != Z_OK && err != Z_STREAM_END;
  const std::string why = failed ? message : "";
  gzclose(f);
  if (failed) throw Error(ErrorCode::IO, path + ": cannot read: " + why);
  if (!current.empty()) lines.push_back(std::move(current));
  return lines;
}

// A recorded Queue.status: the maps KAI's queue controller wrote (null before it first wrote).
io::QueueStatus recorded_status(const json& status, const std::string& where) {
  io::QueueStatus out;
  if (!status.is_object()) return out;
  const std::pair<const char*, io::ResourceAmounts*> fields[] = {
      {"allocated", &out.allocated},
      {"allocatedNonPreemptible", &out.allocated_non_preemptible},
      {"requested", &out.requested}};
  for (const auto& [name, target] : fields) {
    if (!status.contains(name) || status[name].is_null()) continue;
    if (!status[name].is_object())
      throw InputError({where, 0, 0}, std::string("status.") + name, "not a map of quantities");
    for (auto it = status[name].begin(); it != status[name].end(); ++it) {
      const std::optional<io::NanoAmount> v =
          it.value().is_string() ? io::parse_nano_quantity(it.value().get<std::string>())
                                 : std::nullopt;
      if (!v)
        throw InputError({where, 0, 0}, std::string("status.") + name + "." + it.key(),
                         "not a quantity");
      target->add(it.key(), *v);
    }
  }
  return out;
}

}  // namespace

DiffReport diff_recording(const std::string& recording_dir, const std::string& scenario,
                          double settle_s, Diagnostics& diagnostics) {
  const std::string path = (fs::path(recording_dir) / "recording.jsonl.gz").string();
  if (!fs::exists(path))
    throw InputError({path, 0, 0}, "", "no recording here (recording.jsonl.gz is missing)");
  const std::vector<std::string> lines = read_lines(path);

  // The recording's steps must be the scenario's: same count, times and names.
  const replay::Scenario sc = replay::load_scenario(scenario, diagnostics);
  std::vector<json> samples;
  std::size_t step = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    const std::string where = path + ":" + std::to_string(i + 1);
    json record = json::parse(lines[i], nullptr, false);
    if (!record.is_object() || !record.contains("kind") || !record["kind"].is_string()) {
      throw InputError({path, static_cast<int>(i + 1), 0}, "kind",
                       "not a recording record (a JSON object with \"kind\")");
    }
    const std::string kind = record["kind"];
    if (kind == "step") {
      const double t = record.value("t", -1.0);
      if (step >= sc.steps.size()) {
        throw InputError({path, static_cast<int>(i + 1), 0}, "t",
                         "the recording has more steps than " + scenario);
      }
      if (std::abs(t * 1000 - static_cast<double>(sc.steps[step].at_ms)) > 0.5) {
        throw InputError({path, static_cast<int>(i + 1), 0}, "t",
                         "step " + std::to_string(step + 1) + " is at " + std::to_string(t) +
                             " s; the scenario's is at " +
                             std::to_string(static_cast<double>(sc.steps[step].at_ms) / 1000) +
                             " s");
      }
      ++step;
    } else if (kind == "sample") {
      if (!record.contains("queues") || !record["queues"].is_object()) {
        throw InputError({path, static_cast<int>(i + 1), 0}, "queues", "a sample without queues");
      }
      record["where"] = where;
      samples.push_back(std::move(record));
    }
  }
  if (step != sc.steps.size()) {
    throw InputError({path, 0, 0}, "",
                     "the recording has " + std::to_string(step) + " steps, " + scenario + " has " +
                         std::to_string(sc.steps.size()));
  }

  ReplayOptions options;
  options.scenario_path = scenario;
  const ReplayResult replayed = run_replay(options, diagnostics);
  const std::vector<QueueStatusSample>& history = replayed.queue_status;
  std::vector<double> changes;
  for (const QueueStatusSample& s : history) changes.push_back(static_cast<double>(s.at_ms) / 1000);

  DiffReport report;
  report.text_drift_only = true;
  std::size_t settled_samples = 0;
  for (const json& sample : samples) {
    // The sample's time after T0: when it began reading the cluster.
    const double t = sample.contains("sample_start_s") ? sample.value("sample_start_s", 0.0)
                                                       : sample.value("t", 0.0) + 0.5;
    // Settled: the prediction does not change within one settle period either side.
    const bool settled = std::none_of(changes.begin(), changes.end(),
                                      [&](double c) { return std::abs(c - t) <= settle_s; });
    if (!settled) continue;
    ++settled_samples;
    const QueueStatusSample* at = nullptr;
    for (const QueueStatusSample& s : history) {
      if (static_cast<double>(s.at_ms) / 1000 <= t) at = &s;
    }
    std::map<std::string, io::QueueStatus> predicted =
        at ? at->queues : std::map<std::string, io::QueueStatus>{};
    std::map<std::string, io::QueueStatus> observed;
    for (auto it = sample["queues"].begin(); it != sample["queues"].end(); ++it) {
      observed[it.key()] = recorded_status(
          it.value().is_object() && it.value().contains("status") ? it.value()["status"] : json(),
          sample.value("where", path));
      predicted.try_emplace(it.key());
    }
    for (const auto& [q, p] : predicted) {
      const io::QueueStatus none;
      const io::QueueStatus& o = observed.contains(q) ? observed.at(q) : none;
      for (const char* field : {"allocated", "allocatedNonPreemptible", "requested"}) {
        const auto& pf = std::string(field) == "allocated"   ? p.allocated
                         : std::string(field) == "requested" ? p.requested
                                                             : p.allocated_non_preemptible;
        const auto& of = std::string(field) == "allocated"   ? o.allocated
                         : std::string(field) == "requested" ? o.requested
                                                             : o.allocated_non_preemptible;
        std::set<std::string> resources{"nvidia.com/gpu"};
        for (const auto& [r, v] : pf.entries()) resources.insert(r);
        for (const auto& [r, v] : of.entries()) resources.insert(r);
        for (const std::string& r : resources) {
          report.rows.push_back({q, "status", field, r, "", io::format_nano_quantity(pf.get(r)),
                                 io::format_nano_quantity(of.get(r)), pf.get(r) != of.get(r), t});
        }
      }
    }
  }
  report.note =
      "recording " + fs::path(recording_dir).lexically_normal().filename().string() + ": " +
      std::to_string(samples.size()) + " samples, " + std::to_string(settled_samples) +
      " settled (no predicted change within " +
      io::format_nano_quantity(static_cast<io::NanoAmount>(std::llround(settle_s * 1e9))) +
      " s either side), each queue's status compared at each";
  return report;
}

}  // namespace sim::api
