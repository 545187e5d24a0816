// kaisim._core's live functions: snapshot, apply, diff (once, --watch style, against a
// recording). Strings in, JSON strings out; the GIL is released while libsim talks to the cluster.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <utility>
#include <vector>

#include "sim/api/live_recording.hpp"
#include "sim/live/apply.hpp"
#include "sim/live/diff.hpp"
#include "sim/live/snapshot.hpp"

namespace py = pybind11;

namespace kaisim::python {
namespace {

sim::live::ConnectionOptions connection(const std::string& kubeconfig, const std::string& context,
                                        double request_timeout_s, double timeout_s) {
  sim::live::ConnectionOptions c;
  c.kubeconfig = kubeconfig;
  c.context = context;
  c.request_timeout_s = request_timeout_s;
  c.deadline_s = timeout_s;
  return c;
}

std::pair<std::string, std::vector<std::string>> snapshot(const std::string& kubeconfig,
                                                          const std::string& context,
                                                          double request_timeout_s,
                                                          double timeout_s) {
  sim::Diagnostics diagnostics;
  std::string text;
  {
    py::gil_scoped_release unlocked;
    text = sim::live::take_snapshot(connection(kubeconfig, context, request_timeout_s, timeout_s),
                                    diagnostics);
  }
  return {text, diagnostics.warnings};
}

std::pair<std::string, std::vector<std::string>> apply(const std::vector<std::string>& paths,
                                                       bool dry_run, bool force_conflicts,
                                                       const std::string& kubeconfig,
                                                       const std::string& context,
                                                       double request_timeout_s, double timeout_s) {
  sim::live::ApplyOptions options;
  options.paths = paths;
  options.dry_run = dry_run;
  options.force_conflicts = force_conflicts;
  sim::Diagnostics diagnostics;
  sim::live::ApplyReport report;
  {
    py::gil_scoped_release unlocked;
    report = sim::live::apply_manifests(
        connection(kubeconfig, context, request_timeout_s, timeout_s), options, diagnostics);
  }
  return {report.json(), diagnostics.warnings};
}

std::pair<std::string, std::vector<std::string>> diff(const std::vector<std::string>& plan,
                                                      double settle_s,
                                                      const std::string& kubeconfig,
                                                      const std::string& context,
                                                      double request_timeout_s, double timeout_s) {
  sim::live::DiffOptions options;
  options.plan = plan;
  options.settle_s = settle_s;
  sim::Diagnostics diagnostics;
  sim::live::DiffReport report;
  {
    py::gil_scoped_release unlocked;
    report = sim::live::diff_live(connection(kubeconfig, context, request_timeout_s, timeout_s),
                                  options, diagnostics);
  }
  return {report.json(), diagnostics.warnings};
}

// Every change a --watch session reports, in order, as one JSON report each.
std::pair<std::vector<std::string>, std::vector<std::string>> watch(
    const std::vector<std::string>& plan, double settle_s, double duration_s,
    const std::string& kubeconfig, const std::string& context, double request_timeout_s,
    double timeout_s) {
  sim::live::DiffOptions options;
  options.plan = plan;
  options.settle_s = settle_s;
  sim::Diagnostics diagnostics;
  std::vector<std::string> changes;
  {
    py::gil_scoped_release unlocked;
    sim::live::watch_diff(
        connection(kubeconfig, context, request_timeout_s, timeout_s), options, duration_s,
        [&](const sim::live::DiffReport& r) { changes.push_back(r.json()); }, nullptr, diagnostics);
  }
  return {changes, diagnostics.warnings};
}

std::pair<std::string, std::vector<std::string>> diff_recording(const std::string& recording,
                                                                const std::string& scenario,
                                                                double settle_s) {
  sim::Diagnostics diagnostics;
  sim::live::DiffReport report;
  {
    py::gil_scoped_release unlocked;
    report = sim::api::diff_recording(recording, scenario, settle_s, diagnostics);
  }
  return {report.json(), diagnostics.warnings};
}

}  // namespace

void bind_live(py::module_& m) {
  m.def("live_snapshot", &snapshot, py::arg("kubeconfig"), py::arg("context"),
        py::arg("request_timeout_s"), py::arg("timeout_s"),
        "The live cluster as a kaisim snapshot (JSON List); returns (text, warnings).");
  m.def("live_apply", &apply, py::arg("paths"), py::arg("dry_run"), py::arg("force_conflicts"),
        py::arg("kubeconfig"), py::arg("context"), py::arg("request_timeout_s"),
        py::arg("timeout_s"), "Server-side apply of manifests; returns (report JSON, warnings).");
  m.def("live_diff", &diff, py::arg("plan"), py::arg("settle_s"), py::arg("kubeconfig"),
        py::arg("context"), py::arg("request_timeout_s"), py::arg("timeout_s"),
        "Spec and status drift; returns (report JSON, warnings).");
  m.def("live_watch", &watch, py::arg("plan"), py::arg("settle_s"), py::arg("duration_s"),
        py::arg("kubeconfig"), py::arg("context"), py::arg("request_timeout_s"),
        py::arg("timeout_s"),
        "A --watch session of duration_s; returns (one report JSON per change, warnings).");
  m.def("live_diff_recording", &diff_recording, py::arg("recording"), py::arg("scenario"),
        py::arg("settle_s"),
        "Status drift of a replay against a recording of the real KAI; returns (report JSON, "
        "warnings).");
}

}  // namespace kaisim::python
