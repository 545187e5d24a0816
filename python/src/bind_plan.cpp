// kaisim._core's planner entry points: the deterministic plan (run_plan) with replays on libsim's
// threads or on a Python runner (a Dask cluster), one replay job for a worker, and a session the
// package's Optuna search proposes quota candidates to. The GIL is released while libsim works
// and taken again only to call back into Python.

#include "bind_plan.hpp"

#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/plan/plan_spec.hpp"
#include "sim/plan/planner.hpp"

namespace py = pybind11;

namespace kaisim::python {
namespace {

py::dict job_dict(const sim::plan::ReplayJob& j) {
  py::dict d;
  d["scenario_text"] = j.scenario_text;
  d["scenario_name"] = j.scenario_name;
  d["base_dir"] = j.base_dir;
  d["seed"] = j.seed;
  d["measure_options"] = j.measure_options;
  return d;
}

sim::plan::ReplayJob job_of(const py::dict& d) {
  sim::plan::ReplayJob j;
  j.scenario_text = d["scenario_text"].cast<std::string>();
  j.scenario_name = d["scenario_name"].cast<std::string>();
  j.base_dir = d["base_dir"].cast<std::string>();
  j.seed = d["seed"].cast<std::uint64_t>();
  j.measure_options = d["measure_options"].cast<std::string>();
  return j;
}

// Replays through a Python callable: list of job dicts in, list of measure strings out.
class PythonRunner : public sim::plan::ReplayRunner {
 public:
  explicit PythonRunner(py::function run) : run_(std::move(run)) {}
  std::vector<std::string> run(const std::vector<sim::plan::ReplayJob>& jobs) override {
    py::gil_scoped_acquire locked;
    py::list batch;
    for (const sim::plan::ReplayJob& j : jobs) batch.append(job_dict(j));
    std::vector<std::string> out = run_(batch).cast<std::vector<std::string>>();
    if (out.size() != jobs.size())
      throw sim::Error(sim::ErrorCode::INTERNAL,
                       "the runner returned a different number of results");
    return out;
  }

 private:
  py::function run_;
};

sim::plan::PlanSpec load(const std::string& path, const std::string& text,
                         const std::string& base_dir, sim::Diagnostics& diagnostics) {
  return text.empty() ? sim::plan::load_plan(path, diagnostics)
                      : sim::plan::load_plan_text(text, path.empty() ? "<plan>" : path, base_dir,
                                                  diagnostics);
}

py::dict result_dict(const sim::plan::PlanResult& r, const sim::Diagnostics& diagnostics) {
  py::dict out;
  out["files"] = r.files;
  out["summary"] = r.summary;
  out["targets_met"] = r.targets_met;
  out["replays"] = r.replays;
  out["replay_seconds"] = r.replay_seconds;
  out["search_seconds"] = r.search_seconds;
  out["warnings"] = diagnostics.warnings;
  return out;
}

sim::plan::PlanOptions options_of(int jobs, const std::optional<py::function>& runner,
                                  const std::optional<py::function>& progress,
                                  std::unique_ptr<PythonRunner>& python_runner) {
  sim::plan::PlanOptions o;
  o.jobs = jobs;
  if (runner) {
    python_runner = std::make_unique<PythonRunner>(*runner);
    o.runner = python_runner.get();
  }
  if (progress) {
    py::function report = *progress;
    o.progress = [report](const sim::plan::Progress& p) {
      py::gil_scoped_acquire locked;
      report(p.judged, p.replays, p.replays_left, p.best, p.elapsed_s, p.left_s);
    };
  }
  return o;
}

// The session behind the Optuna search: the plan and its options live as long as it does.
class Session {
 public:
  Session(const std::string& path, const std::string& text, const std::string& base_dir, int jobs,
          const std::optional<py::function>& runner, const std::optional<py::function>& progress)
      : spec_(load(path, text, base_dir, diagnostics_)),
        options_(options_of(jobs, runner, progress, runner_)),
        session_(std::make_unique<sim::plan::PlanSession>(spec_, options_, diagnostics_)) {}

  py::list dimensions() const {
    py::list out;
    for (const auto& d : session_->dimensions())
      out.append(py::make_tuple(d.queue, d.field, d.min, d.max, d.step));
    return out;
  }
  std::vector<int> judge_quotas(const std::vector<std::vector<double>>& values, bool fresh,
                                const std::string& role) {
    py::gil_scoped_release unlocked;
    return session_->judge_quotas(values, fresh, role);
  }
  std::string candidate_json(int id) const { return session_->candidate_json(id); }
  py::dict finish(int chosen, const std::vector<int>& pareto,
                  const std::vector<std::string>& notes) {
    sim::plan::PlanResult r;
    {
      py::gil_scoped_release unlocked;
      r = session_->finish(chosen, pareto, notes);
    }
    return result_dict(r, diagnostics_);
  }
  std::string question() const {
    const char* names[] = {"check", "gpus", "quotas", "hardware"};
    return names[static_cast<int>(spec_.question)];
  }
  std::vector<std::string> warnings() const { return diagnostics_.warnings; }
  std::vector<std::string> leaf_queues() const { return session_->leaf_queues(); }

 private:
  sim::Diagnostics diagnostics_;
  sim::plan::PlanSpec spec_;
  std::unique_ptr<PythonRunner> runner_;
  sim::plan::PlanOptions options_;
  std::unique_ptr<sim::plan::PlanSession> session_;
};

}  // namespace

void bind_plan(py::module_& m) {
  m.def(
      "plan_run",
      [](const std::string& path, const std::string& text, const std::string& base_dir, int jobs,
         const std::optional<py::function>& runner, const std::optional<py::function>& progress) {
        sim::Diagnostics diagnostics;
        const sim::plan::PlanSpec spec = load(path, text, base_dir, diagnostics);
        std::unique_ptr<PythonRunner> python_runner;
        const sim::plan::PlanOptions options = options_of(jobs, runner, progress, python_runner);
        sim::plan::PlanResult r;
        {
          py::gil_scoped_release unlocked;
          r = sim::plan::run_plan(spec, options, diagnostics);
        }
        return result_dict(r, diagnostics);
      },
      py::arg("path"), py::arg("text"), py::arg("base_dir"), py::arg("jobs"), py::arg("runner"),
      py::arg("progress"),
      "Answers a plan; returns files, summary, targets_met, replays, replay_seconds, "
      "search_seconds, warnings.");
  m.def(
      "plan_replay_job",
      [](const py::dict& job) {
        const sim::plan::ReplayJob j = job_of(job);
        py::gil_scoped_release unlocked;
        return sim::plan::run_replay_job(j);
      },
      py::arg("job"),
      "Replays one planner job (a dict as plan_run's runner receives it); returns its measure "
      "(JSON).");
  m.def(
      "plan_write",
      [](const std::map<std::string, std::string>& files, const std::string& out) {
        sim::plan::PlanResult r;
        r.files = files;
        return sim::plan::write_plan_folder(out, r);
      },
      py::arg("files"), py::arg("out"),
      "Writes a plan folder (all at once; replaces only an earlier plan folder's files); returns "
      "what it did besides "
      "creating it, one line each.");
  py::class_<Session>(m, "PlanSession")
      .def(py::init<const std::string&, const std::string&, const std::string&, int,
                    const std::optional<py::function>&, const std::optional<py::function>&>(),
           py::arg("path"), py::arg("text"), py::arg("base_dir"), py::arg("jobs"),
           py::arg("runner"), py::arg("progress"))
      .def("dimensions", &Session::dimensions)
      .def("judge_quotas", &Session::judge_quotas, py::arg("values"), py::arg("fresh"),
           py::arg("role"))
      .def("candidate_json", &Session::candidate_json, py::arg("id"))
      .def("finish", &Session::finish, py::arg("chosen"), py::arg("pareto"), py::arg("notes"))
      .def("question", &Session::question)
      .def("leaf_queues", &Session::leaf_queues)
      .def("warnings", &Session::warnings);
}

}  // namespace kaisim::python
