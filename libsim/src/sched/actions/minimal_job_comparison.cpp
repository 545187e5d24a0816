// MinimalJobRepresentatives (actions/common/minimal_job_comparison.go): an action skips a job that
// is not "easier" than one with the same scheduling constraints that already failed in this
// action; the constraints are kaisim's reduction of GetSchedulingConstraintsSignature.

#include <algorithm>
#include <sstream>

#include "sim/sched/actions/solver.hpp"

namespace sim::sched {

namespace {

std::vector<ResourceVec> pending_vectors(const Session& ssn, const JobView& job) {
  std::vector<ResourceVec> out;
  for (TaskId t : job.tasks) {
    if (ssn.state.tasks[t].status == model::TaskStatus::PENDING)
      out.push_back(ssn.state.tasks[t].request);
  }
  // KAI sorts with "vector <= vector" as less, a partial order; kaisim breaks the unspecified
  // cases lexicographically (CPU, memory, GPU, pods) so the order is total and repeatable.
  std::sort(out.begin(), out.end(), [](const ResourceVec& a, const ResourceVec& b) {
    for (int i = 0; i < kResourceCount; ++i) {
      if (a[i] != b[i]) return a[i] < b[i];
    }
    return false;
  });
  return out;
}

std::string term_signature(const model::PodAffinityTerm& term) {
  std::ostringstream s;
  s << term.topology_key << (term.all_namespaces ? "*" : "") << ":";
  for (const std::string& ns : term.namespaces) s << ns << ",";
  if (term.selector) {
    for (const auto& r : *term.selector) {
      s << r.key << r.op;
      for (const auto& v : r.values) s << v << ";";
    }
  }
  s << "/";
  return s.str();
}

// GetSchedulingConstraintsSignature, reduced to what kaisim models: per PodSet, one entry per pod
// not yet active (its placement rules and the job's priority), sorted; PodSets whose pods are all
// active add nothing; the PodSets' signatures sorted (podset.go, job_info.go).
std::string pod_entry(const Session& ssn, const JobView& job, const model::Task& task) {
  std::ostringstream s;
  s << ssn.state.jobs[job.id].priority << "|";
  for (const auto& [k, v] : task.placement->node_selector) s << k << "=" << v << ",";
  s << "|";
  for (const auto& term : task.placement->required) {
    for (const auto& r : term.expressions) {
      s << r.key << r.op;
      for (const auto& v : r.values) s << v << ";";
    }
    s << "/";
  }
  s << "|";
  for (const auto& tol : task.placement->tolerations)
    s << tol.key << tol.op << tol.value << tol.effect << ",";
  for (const auto* terms : {&task.placement->pod_affinity, &task.placement->pod_anti_affinity}) {
    s << "|";
    for (const model::PodAffinityTerm& term : *terms) s << term_signature(term);
  }
  // The whole spec.affinity is hashed, preferred terms too.
  for (const auto* terms :
       {&task.placement->preferred_pod_affinity, &task.placement->preferred_pod_anti_affinity}) {
    s << "|";
    for (const model::WeightedPodAffinityTerm& w : *terms)
      s << w.weight << "*" << term_signature(w.term);
  }
  return s.str();
}

// The topology constraints of a PodSet and its ancestors, "|" between levels (podset.go).
std::string topology_signature(const model::SubGroupTree& groups, int pod_set) {
  if (pod_set < 0) return {};
  auto one = [](const model::TopologyConstraint& c) {
    return c.topology + ":" + c.required_level + ":" + c.preferred_level;
  };
  const model::PodSet& p = groups.pod_sets[static_cast<std::size_t>(pod_set)];
  std::string out = one(p.topology);
  for (int set = p.parent; set >= 0; set = groups.sets[static_cast<std::size_t>(set)].parent) {
    out += "|" + one(groups.sets[static_cast<std::size_t>(set)].topology);
  }
  return out;
}

std::string signature(const Session& ssn, const JobView& job) {
  std::map<int, std::vector<std::string>> by_pod_set;
  for (TaskId t : job.tasks) {
    const model::Task& task = ssn.state.tasks[t];
    if (model::is_active_allocated(task.status)) continue;
    by_pod_set[task.pod_set].push_back(pod_entry(ssn, job, task));
  }
  std::vector<std::string> pod_sets;
  for (auto& [pod_set, entries] : by_pod_set) {
    std::sort(entries.begin(), entries.end());
    std::string one = topology_signature(*job.groups, pod_set) + "{";
    for (const std::string& e : entries) one += e + "\n";
    pod_sets.push_back(one + "}");
  }
  std::sort(pod_sets.begin(), pod_sets.end());
  std::string out;
  for (const std::string& p : pod_sets) out += p;
  return out;
}

}  // namespace

bool FailedJobMemory::is_easier(const Session& ssn, const JobView& job) const {
  auto it = representative_.find(signature(ssn, job));
  if (it == representative_.end()) return true;
  const std::vector<ResourceVec> a = pending_vectors(ssn, job);
  const std::vector<ResourceVec> b = pending_vectors(ssn, it->second);
  if (a.empty() || b.empty()) return false;
  if (b.size() > a.size()) return true;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (i >= b.size()) return false;
    if (less_equal(a[i], b[i])) {
      if ((a[i] == b[i]).all()) continue;
      return true;
    }
  }
  return false;
}

void FailedJobMemory::update(const Session& ssn, const JobView& job) {
  const std::string key = signature(ssn, job);
  auto it = representative_.find(key);
  if (it == representative_.end()) {
    representative_.emplace(key, job);
    return;
  }
  const std::vector<ResourceVec> a = pending_vectors(ssn, job);
  const std::vector<ResourceVec> b = pending_vectors(ssn, it->second);
  if (a.empty() || a.size() > b.size()) return;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!less_equal(a[i], b[i])) return;
  }
  it->second = job;
}

}  // namespace sim::sched
