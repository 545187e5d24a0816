// kaisim._core: the thin layer between libsim's public API and the Python package. Everything
// user-facing (DataFrames, defaults, docs) is in python/kaisim; this file only moves strings and
// releases the GIL while libsim works.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bind_plan.hpp"
#include "error_translation.hpp"
#include "sim/api/cycle_report.hpp"
#include "sim/api/explain.hpp"
#include "sim/api/fair_share_simulator.hpp"
#include "sim/api/replay.hpp"
#include "sim/api/trace_gen.hpp"
#include "sim/core/error.hpp"
#include "sim/io/input_limits.hpp"
#include "sim/io/output_folder.hpp"
#include "sim/io/snapshot.hpp"

namespace py = pybind11;

namespace kaisim::python {
void bind_live(py::module_& m);  // bind_live.cpp
}  // namespace kaisim::python

namespace {

// Between cycles: at most every 50 ms, takes the GIL and runs Python's signal handlers, so
// Ctrl-C (KeyboardInterrupt) stops a replay within a second.
std::function<bool()> signal_poll() {
  auto last =
      std::make_shared<std::chrono::steady_clock::time_point>(std::chrono::steady_clock::now());
  return [last] {
    const auto now = std::chrono::steady_clock::now();
    if (now - *last < std::chrono::milliseconds(50)) return false;
    *last = now;
    py::gil_scoped_acquire locked;
    return PyErr_CheckSignals() != 0;  // the handler's exception stays set for the caller
  };
}

py::dict replay(const std::string& scenario_path, const std::string& scenario_text,
                const std::string& base_dir, const std::string& out_dir, bool check, bool strict,
                const py::object& progress) {
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
  options.poll = signal_poll();
  sim::Diagnostics diagnostics;
  diagnostics.strict = strict;
  sim::api::ReplayResult result;
  try {
    py::gil_scoped_release unlocked;  // replays of a sweep run side by side in threads
    result = sim::api::run_replay(options, diagnostics);
  } catch (const sim::Error& e) {
    if (e.code() == sim::ErrorCode::INTERRUPTED)
      throw py::error_already_set();  // the KeyboardInterrupt
    throw;
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
  out["output_notes"] = result.output_notes;
  return out;
}

std::vector<std::string> write_output_folder(const std::string& dir,
                                             const std::map<std::string, std::string>& files,
                                             const std::string& kind) {
  py::gil_scoped_release unlocked;
  return sim::io::write_output_folder(dir, files, kind).notes();
}

std::pair<std::string, std::vector<std::string>> fair_share(const std::string& body,
                                                            const std::string& source,
                                                            bool strict) {
  sim::Diagnostics diagnostics;
  diagnostics.strict = strict;
  std::string response;
  {
    py::gil_scoped_release unlocked;
    response = sim::api::answer_simulate_request(body, source, false, diagnostics);
  }
  return {response, diagnostics.warnings};
}

std::pair<std::string, std::vector<std::string>> cycle(
    const std::vector<std::pair<py::bytes, std::string>>& files,
    const std::optional<std::string>& now, bool strict) {
  std::vector<sim::io::SnapshotSource> sources;
  for (const auto& [text, name] : files) sources.push_back({std::string(text), name});
  sim::io::SnapshotOptions options;
  if (now) {
    options.now_ns = sim::io::parse_time_option(*now);
    if (!options.now_ns) {
      throw sim::InputError({}, "now",
                            "not an RFC 3339 time such as 2026-08-03T10:00:00Z: \"" + *now + "\"");
    }
  }
  sim::Diagnostics diagnostics;
  diagnostics.strict = strict;
  std::string report;
  {
    py::gil_scoped_release unlocked;
    report = sim::api::run_cycle_report(sources, options, diagnostics);
  }
  return {report, diagnostics.warnings};
}

py::dict gen_trace(std::uint64_t seed, int pods, double arrival_hours, double node_scale,
                   const std::string& out_dir) {
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

// A file's bytes (not decoded: the parsers say where text is not UTF-8), within the input limits.
py::bytes read_input(const std::string& path) {
  std::string text;
  {
    py::gil_scoped_release unlocked;
    text = sim::io::read_input_file(path);
  }
  return py::bytes(text);
}

void set_limits(std::size_t max_input_bytes, int max_depth, double max_replay_work,
                double max_replay_cycles) {
  sim::io::set_input_limits({max_input_bytes, max_depth, max_replay_work, max_replay_cycles});
}

py::tuple get_limits() {
  const sim::io::InputLimits l = sim::io::input_limits();
  return py::make_tuple(l.max_input_bytes, l.max_depth, l.max_replay_work, l.max_replay_cycles);
}

std::string explain(const std::string& events, const std::string& summary,
                    const std::string& target, const std::string& folder) {
  py::gil_scoped_release unlocked;
  return sim::api::explain_replay(events, summary, target, folder);
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "libsim bindings; use the kaisim package, not this module";
  kaisim::python::register_error_translation();
  m.def("replay", &replay, py::arg("scenario_path"), py::arg("scenario_text"), py::arg("base_dir"),
        py::arg("out_dir"), py::arg("check"), py::arg("strict"), py::arg("progress") = py::none(),
        "Runs a replay (progress: None or a callable(now_ms, end_ms, cycles, pods_submitted, "
        "pods_done, finished));"
        " returns summary_table, failures, expectations_checked, cycles, outputs, warnings.");
  m.def("fair_share", &fair_share, py::arg("body"), py::arg("source"), py::arg("strict"),
        "Answers a KAI fair-share simulator request; returns (response JSON, warnings).");
  m.def("cycle", &cycle, py::arg("files"), py::arg("now"), py::arg("strict"),
        "Runs one scheduling cycle on (text, name) sources; returns (report JSON, warnings).");
  m.def("read_input", &read_input, py::arg("path"),
        "A file's bytes within the input limits (kaisim's errors otherwise).");
  m.def("set_limits", &set_limits, py::arg("max_input_bytes"), py::arg("max_depth"),
        py::arg("max_replay_work"), py::arg("max_replay_cycles"),
        "Replaces the process's input limits.");
  m.def("get_limits", &get_limits,
        "The input limits: (max_input_bytes, max_depth, max_replay_work, max_replay_cycles).");
  m.def("write_output_folder", &write_output_folder, py::arg("dir"), py::arg("files"),
        py::arg("kind"),
        "Writes files (name -> text) into an output folder by kaisim's rules; returns its notes.");
  m.def("explain", &explain, py::arg("events"), py::arg("summary"), py::arg("target"),
        py::arg("folder"),
        "Why pods of a replay waited (kaisim explain): events.jsonl and summary.json text in, the "
        "story out.");
  m.def("gen_trace", &gen_trace, py::arg("seed"), py::arg("pods"), py::arg("arrival_hours"),
        py::arg("node_scale"), py::arg("out_dir"),
        "Generates the Alibaba-shaped trace; returns files and counts (writes out_dir if set).");
  kaisim::python::bind_live(m);
  kaisim::python::bind_plan(m);
}
