// kaisim._core: the thin layer between libsim's public API and the Python package. Everything
// user-facing (DataFrames, defaults, docs) is in python/kaisim; this file only moves strings and
// releases the GIL while libsim works.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "error_translation.hpp"
#include "sim/api/cycle_report.hpp"
#include "sim/api/explain.hpp"
#include "sim/api/fair_share_simulator.hpp"
#include "sim/api/replay.hpp"
#include "sim/api/trace_gen.hpp"
#include "sim/core/error.hpp"
#include "sim/io/snapshot.hpp"

namespace py = pybind11;

namespace {

py::dict replay(const std::string& scenario_path, const std::string& scenario_text, const std::string& base_dir,
                const std::string& out_dir, bool check, const py::object& progress) {
  sim::api::ReplayOptions options;
  if (!progress.is_none()) {
    // Called from the replay (GIL released): take the GIL for the Python callback; its errors
    // cannot stop the replay, so they are dropped.
    options.progress = [&progress](const sim::api::ReplayProgress& p) {
      py::gil_scoped_acquire locked;
      try {
        progress(p.now_ms, p.end_ms, p.cycles, p.pods_submitted, p.pods_done, p.finished);
      } catch (py::error_already_set& e) {
        e.discard_as_unraisable("kaisim progress callback");
      }
    };
  }
  options.scenario_path = scenario_path;
  options.scenario_text = scenario_text;
  options.base_dir = base_dir;
  options.out_dir = out_dir;
  options.check = check;
  sim::Diagnostics diagnostics;
  sim::api::ReplayResult result;
  {
    py::gil_scoped_release unlocked;  // replays of a sweep run side by side in threads
    result = sim::api::run_replay(options, diagnostics);
  }
  py::list failures;
  for (const auto& f : result.failures) failures.append(py::make_tuple(f.at_ms, f.what));
  py::dict out;
  out["summary_table"] = result.summary_table;
  out["failures"] = failures;
  out["expectations_checked"] = result.expectations_checked;
  out["cycles"] = result.cycles;
  out["cycles_reused"] = result.cycles_reused;
  out["cycles_fair_share_only"] = result.cycles_fair_share_only;
  out["cycles_updated"] = result.cycles_updated;
  out["outputs"] = result.outputs;
  out["warnings"] = diagnostics.warnings;
  return out;
}

std::pair<std::string, std::vector<std::string>> fair_share(const std::string& body, const std::string& source) {
  sim::Diagnostics diagnostics;
  std::string response;
  {
    py::gil_scoped_release unlocked;
    response = sim::api::answer_simulate_request(body, source, false, diagnostics);
  }
  return {response, diagnostics.warnings};
}

std::pair<std::string, std::vector<std::string>> cycle(const std::vector<std::pair<std::string, std::string>>& files,
                                                       const std::optional<std::string>& now) {
  std::vector<sim::io::SnapshotSource> sources;
  for (const auto& [text, name] : files) sources.push_back({text, name});
  sim::io::SnapshotOptions options;
  if (now) {
    options.now_ns = sim::io::parse_time_option(*now);
    if (!options.now_ns) {
      throw sim::InputError({}, "now", "not an RFC 3339 time such as 2026-08-03T10:00:00Z: \"" + *now + "\"");
    }
  }
  sim::Diagnostics diagnostics;
  std::string report;
  {
    py::gil_scoped_release unlocked;
    report = sim::api::run_cycle_report(sources, options, diagnostics);
  }
  return {report, diagnostics.warnings};
}

py::dict gen_trace(std::uint64_t seed, int pods, double arrival_hours, double node_scale, const std::string& out_dir) {
  sim::api::TraceOptions options;
  options.seed = seed;
  options.pods = pods;
  options.arrival_hours = arrival_hours;
  options.node_scale = node_scale;
  options.out_dir = out_dir;
  sim::api::GeneratedTrace trace;
  {
    py::gil_scoped_release unlocked;
    trace = sim::api::generate_trace(options);
  }
  py::dict out;
  out["files"] = trace.files;
  out["nodes"] = trace.nodes;
  out["gpus"] = trace.gpus;
  out["pods"] = trace.pods;
  out["gpu_pods"] = trace.gpu_pods;
  out["fractional_gpu_pods"] = trace.fractional_gpu_pods;
  return out;
}

std::string explain(const std::string& events, const std::string& summary, const std::string& target,
                    const std::string& folder) {
  py::gil_scoped_release unlocked;
  return sim::api::explain_replay(events, summary, target, folder);
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "libsim bindings; use the kaisim package, not this module";
  kaisim::python::register_error_translation();
  m.def("replay", &replay, py::arg("scenario_path"), py::arg("scenario_text"), py::arg("base_dir"),
        py::arg("out_dir"), py::arg("check"), py::arg("progress") = py::none(),
        "Runs a replay (progress: None or a callable(now_ms, end_ms, cycles, pods_submitted, pods_done, finished));"
        " returns summary_table, failures, expectations_checked, cycles, outputs, warnings.");
  m.def("fair_share", &fair_share, py::arg("body"), py::arg("source"),
        "Answers a KAI fair-share simulator request; returns (response JSON, warnings).");
  m.def("cycle", &cycle, py::arg("files"), py::arg("now"),
        "Runs one scheduling cycle on (text, name) sources; returns (report JSON, warnings).");
  m.def("explain", &explain, py::arg("events"), py::arg("summary"), py::arg("target"), py::arg("folder"),
        "Why pods of a replay waited (kaisim explain): events.jsonl and summary.json text in, the story out.");
  m.def("gen_trace", &gen_trace, py::arg("seed"), py::arg("pods"), py::arg("arrival_hours"), py::arg("node_scale"),
        py::arg("out_dir"), "Generates the Alibaba-shaped trace; returns files and counts (writes out_dir if set).");
}
