#include "sim/sched/framework/gang.hpp"

#include <algorithm>

#include "sim/core/assert.hpp"
#include "sim/sched/framework/job_order.hpp"

namespace sim::sched {
namespace {

using model::SubGroupSet;
using model::SubGroupTree;

using Member = SubgroupMember;

std::vector<Member> members_of(const SubGroupSet& s) {
  std::vector<Member> out;
  for (int c : s.child_sets) out.push_back({true, c});
  for (int p : s.pod_sets) out.push_back({false, p});
  return out;
}

std::size_t at(int i) { return static_cast<std::size_t>(i); }

bool single_pod_set(const JobView& job) { return is_single_pod_set(job); }

std::int64_t count_in_pod_set(const Session& ssn, const JobView& job, int p,
                              bool (*status_ok)(model::TaskStatus)) {
  std::int64_t n = 0;
  for (TaskId t : job.tasks) {
    const model::Task& task = ssn.state.tasks[t];
    n += task.pod_set == p && status_ok(task.status) ? 1 : 0;
  }
  return n;
}

// GetNumActiveAllocatedDirectSubGroups: direct members at their minimum.
std::int64_t satisfied_members(const SubGroupTree& tree, const PodSetCounts& c, int set) {
  std::int64_t n = 0;
  for (int child : tree.sets[at(set)].child_sets) {
    n += satisfied_members(tree, c, child) >= tree.sets[at(child)].members_to_satisfy() ? 1 : 0;
  }
  for (int p : tree.sets[at(set)].pod_sets) {
    n += c.active_allocated[at(p)] >= tree.pod_sets[at(p)].min_available ? 1 : 0;
  }
  return n;
}

bool set_satisfied(const SubGroupTree& tree, const PodSetCounts& c, int set) {
  return satisfied_members(tree, c, set) >= tree.sets[at(set)].members_to_satisfy();
}

// subgrouporder's orderByAllocationRatio on (count, threshold), then the name: <0 puts l first.
int subgroup_order(const SubGroupTree& tree, const PodSetCounts& c, const Member& l,
                   const Member& r) {
  auto facts = [&](const Member& m) {
    if (m.is_set)
      return std::pair(satisfied_members(tree, c, m.index),
                       tree.sets[at(m.index)].members_to_satisfy());
    return std::pair(c.active_allocated[at(m.index)], tree.pod_sets[at(m.index)].min_available);
  };
  const auto [lc, lt] = facts(l);
  const auto [rc, rt] = facts(r);
  const bool l_sat = lc >= lt, r_sat = rc >= rt;
  int verdict = 0;
  if (!l_sat && r_sat)
    verdict = -1;
  else if (l_sat && !r_sat)
    verdict = 1;
  else if (l_sat && r_sat) {
    if (lt == 0 && rt > 0)
      verdict = 1;
    else if (rt == 0 && lt > 0)
      verdict = -1;
    else if (lt == 0 && rt == 0)
      verdict = lc < rc ? -1 : lc > rc ? 1 : 0;
    else {
      const double lr = static_cast<double>(lc) / static_cast<double>(lt);
      const double rr = static_cast<double>(rc) / static_cast<double>(rt);
      verdict = lr < rr ? -1 : lr > rr ? 1 : 0;
    }
  }
  if (verdict != 0) return verdict;
  const std::string& ln = l.is_set ? tree.sets[at(l.index)].name : tree.pod_sets[at(l.index)].name;
  const std::string& rn = r.is_set ? tree.sets[at(r.index)].name : tree.pod_sets[at(r.index)].name;
  return ln < rn ? -1 : ln > rn ? 1 : 0;
}

std::vector<Member> sorted_members(const SubGroupTree& tree, const PodSetCounts& c, int set,
                                   bool reverse) {
  std::vector<Member> ms = members_of(tree.sets[at(set)]);
  std::stable_sort(ms.begin(), ms.end(), [&](const Member& a, const Member& b) {
    return reverse ? subgroup_order(tree, c, b, a) < 0 : subgroup_order(tree, c, a, b) < 0;
  });
  return ms;
}

// collectTasksFromPodSet: the missing part of the PodSet's minimum, or one more pod.
std::vector<TaskId> from_pod_set(const Session& ssn, const JobView& job, std::int64_t active, int p,
                                 bool real) {
  auto before = [&](TaskId a, TaskId b) {
    return ssn.task_before(ssn.state.tasks[a], ssn.state.tasks[b]);
  };
  std::vector<TaskId> q;
  TaskOrderMemo* memo = job.order_memo.get();
  if (memo != nullptr && (memo->session != &ssn || memo->tasks != job.tasks)) {
    memo->session = &ssn;
    memo->tasks = job.tasks;
    memo->sorted = job.tasks;
    std::sort(memo->sorted.begin(), memo->sorted.end(), before);
    memo->strict =
        std::adjacent_find(memo->sorted.begin(), memo->sorted.end(),
                           [&](TaskId a, TaskId b) { return !before(a, b); }) == memo->sorted.end();
  }
  if (memo != nullptr && memo->strict) {
    // No two pods tie (their UIDs differ), so the wanted pods of the sorted view are the wanted
    // pods sorted.
    for (TaskId t : memo->sorted) {
      const model::Task& task = ssn.state.tasks[t];
      if (task.pod_set == p && should_allocate(task, real)) q.push_back(t);
    }
    SIM_ASSERT(std::is_sorted(q.begin(), q.end(), before));
  } else {
    for (TaskId t : job.tasks) {
      const model::Task& task = ssn.state.tasks[t];
      if (task.pod_set == p && should_allocate(task, real)) q.push_back(t);
    }
    if (q.size() > 1) std::sort(q.begin(), q.end(), before);
  }
  const std::int64_t min = job.groups->pod_sets[at(p)].min_available;
  const std::int64_t n =
      active >= min ? std::min<std::int64_t>(static_cast<std::int64_t>(q.size()), 1) : min - active;
  q.resize(std::min(q.size(), static_cast<std::size_t>(n)));
  return q;
}

std::vector<TaskId> collect(const Session& ssn, const JobView& job, const PodSetCounts& c, int set,
                            bool real) {
  const SubGroupTree& tree = *job.groups;
  const std::vector<Member> kids = sorted_members(tree, c, set, false);
  std::vector<TaskId> out;
  if (!set_satisfied(tree, c, set)) {
    // Gang phase: exactly the first K members; satisfied ones add nothing and are not replaced.
    const auto k = static_cast<std::size_t>(
        std::max<std::int64_t>(0, tree.sets[at(set)].members_to_satisfy()));
    for (std::size_t i = 0; i < std::min(k, kids.size()); ++i) {
      const Member& m = kids[i];
      std::vector<TaskId> part;
      if (m.is_set) {
        if (!set_satisfied(tree, c, m.index)) part = collect(ssn, job, c, m.index, real);
      } else if (c.active_allocated[at(m.index)] < tree.pod_sets[at(m.index)].min_available) {
        part = from_pod_set(ssn, job, c.active_allocated[at(m.index)], m.index, real);
      }
      out.insert(out.end(), part.begin(), part.end());
    }
    return out;
  }
  for (const Member& m : kids) {  // elastic phase: the first member with anything to add
    out = m.is_set ? collect(ssn, job, c, m.index, real)
                   : from_pod_set(ssn, job, c.active_allocated[at(m.index)], m.index, real);
    if (!out.empty()) return out;
  }
  return out;
}

// A PodSet's active pods, least important first.
std::vector<TaskId> active_reversed(const Session& ssn, const JobView& job, int p) {
  std::vector<TaskId> out;
  for (TaskId t : job.tasks) {
    const model::Task& task = ssn.state.tasks[t];
    if (task.pod_set == p && model::is_active_allocated(task.status)) out.push_back(t);
  }
  std::sort(out.begin(), out.end(), [&](TaskId a, TaskId b) {
    return ssn.task_before(ssn.state.tasks[b], ssn.state.tasks[a]);
  });
  return out;
}

void descendant_pod_sets(const SubGroupTree& tree, int set, std::vector<int>& out) {
  for (int child : tree.sets[at(set)].child_sets) descendant_pod_sets(tree, child, out);
  for (int p : tree.sets[at(set)].pod_sets) out.push_back(p);
}

// ALL(S): every active pod below the set. KAI walks its PodSets in Go map order; kaisim in tree
// order.
std::vector<TaskId> all_active(const Session& ssn, const JobView& job, int set) {
  std::vector<int> pod_sets;
  descendant_pod_sets(*job.groups, set, pod_sets);
  std::sort(pod_sets.begin(), pod_sets.end());
  std::vector<TaskId> out;
  for (int p : pod_sets) {
    const std::vector<TaskId> part = active_reversed(ssn, job, p);
    out.insert(out.end(), part.begin(), part.end());
  }
  return out;
}

bool surplus(const SubGroupTree& tree, const PodSetCounts& c, int set) {
  if (satisfied_members(tree, c, set) > tree.sets[at(set)].members_to_satisfy()) return true;
  for (int child : tree.sets[at(set)].child_sets) {
    if (surplus(tree, c, child)) return true;
  }
  for (int p : tree.sets[at(set)].pod_sets) {
    if (c.active_allocated[at(p)] > tree.pod_sets[at(p)].min_available) return true;
  }
  return false;
}

std::vector<TaskId> elastic_victims(const Session& ssn, const JobView& job, const PodSetCounts& c,
                                    int set) {
  const SubGroupTree& tree = *job.groups;
  const std::int64_t satisfied = satisfied_members(tree, c, set);
  if (satisfied == 0) return {};
  const std::vector<Member> ms = sorted_members(tree, c, set, true);
  if (surplus(tree, c, set)) {
    for (const Member& m : ms) {
      std::vector<TaskId> t;
      if (m.is_set) {
        t = elastic_victims(ssn, job, c, m.index);
      } else if (c.active_allocated[at(m.index)] > tree.pod_sets[at(m.index)].min_available) {
        t = active_reversed(ssn, job, m.index);
        t.resize(std::min<std::size_t>(t.size(), 1));
      }
      if (!t.empty()) return t;
    }
  }
  if (tree.sets[at(set)].members_to_satisfy() < satisfied) {  // a whole member can go
    for (const Member& m : ms) {
      std::vector<TaskId> t =
          m.is_set ? all_active(ssn, job, m.index) : active_reversed(ssn, job, m.index);
      if (!t.empty()) return t;
    }
  }
  return {};
}

bool ready(const SubGroupTree& tree, const PodSetCounts& c, int set) {
  std::int64_t n = 0;
  for (int child : tree.sets[at(set)].child_sets) n += ready(tree, c, child) ? 1 : 0;
  for (int p : tree.sets[at(set)].pod_sets)
    n += c.alive[at(p)] - c.gated[at(p)] >= tree.pod_sets[at(p)].min_available ? 1 : 0;
  return n >= tree.sets[at(set)].members_to_satisfy();
}

}  // namespace

JobView full_view(const Session& ssn, JobId job) {
  const model::Job& j = ssn.state.jobs[job];
  return JobView{job, j.tasks, j.groups, ssn.full_view_memo(job), {}};
}

PodSetCounts::PodSetCounts(const Session& ssn, const std::vector<TaskId>& tasks,
                           const model::SubGroupTree& groups) {
  const std::size_t n = groups.pod_sets.size();
  active_allocated.assign(n, 0);
  active_used.assign(n, 0);
  alive.assign(n, 0);
  gated.assign(n, 0);
  all.assign(n, 0);
  for (TaskId t : tasks) {
    const model::Task& task = ssn.state.tasks[t];
    if (task.pod_set < 0 || at(task.pod_set) >= n) continue;
    const std::size_t p = at(task.pod_set);
    active_allocated[p] += model::is_active_allocated(task.status) ? 1 : 0;
    active_used[p] += model::is_active_used(task.status) ? 1 : 0;
    alive[p] += model::is_alive(task.status) ? 1 : 0;
    gated[p] += task.status == model::TaskStatus::GATED ? 1 : 0;
    ++all[p];
  }
}

std::int64_t active_allocated_count(const Session& ssn, const JobView& job) {
  std::int64_t n = 0;
  for (TaskId t : job.tasks) n += model::is_active_allocated(ssn.state.tasks[t].status) ? 1 : 0;
  return n;
}

std::int64_t active_used_count(const Session& ssn, const JobView& job) {
  std::int64_t n = 0;
  for (TaskId t : job.tasks) n += model::is_active_used(ssn.state.tasks[t].status) ? 1 : 0;
  return n;
}

bool should_allocate(const model::Task& task, bool real_allocation) {
  if (task.status == model::TaskStatus::PENDING) return true;
  return !real_allocation && task.status == model::TaskStatus::RELEASING && task.virtual_status;
}

std::vector<TaskId> tasks_to_allocate(const Session& ssn, const JobView& job,
                                      bool real_allocation) {
  if (single_pod_set(job)) {  // both phases come down to the one PodSet's pods
    return from_pod_set(ssn, job, count_in_pod_set(ssn, job, 0, model::is_active_allocated), 0,
                        real_allocation);
  }
  return collect(ssn, job, PodSetCounts(ssn, job), 0, real_allocation);
}

std::vector<SubgroupMember> members_in_order(const Session& ssn, const JobView& job, int set) {
  return sorted_members(*job.groups, PodSetCounts(ssn, job), set, false);
}

bool pod_set_under(const model::SubGroupTree& groups, int pod_set, int set) {
  if (pod_set < 0 || at(pod_set) >= groups.pod_sets.size()) return false;
  for (int s = groups.pod_sets[at(pod_set)].parent; s >= 0; s = groups.sets[at(s)].parent) {
    if (s == set) return true;
  }
  return false;
}

bool is_single_pod_set(const JobView& job) {
  const SubGroupTree& t = *job.groups;
  return t.pod_sets.size() == 1 && t.sets.size() == 1 && t.sets[0].members_to_satisfy() == 1;
}

std::vector<TaskId> tasks_to_evict(const Session& ssn, const JobView& job, bool& more_left) {
  if (single_pod_set(job)) {  // one surplus pod while above the minimum, else all
    std::vector<TaskId> active = active_reversed(ssn, job, 0);
    const std::size_t n = active.size();
    if (n > 0 && static_cast<std::int64_t>(n) > job.groups->pod_sets[0].min_available)
      active.resize(1);
    more_left = active.size() < n;
    return active;
  }
  const PodSetCounts c(ssn, job);
  std::vector<TaskId> out = elastic_victims(ssn, job, c, 0);
  if (out.empty()) out = all_active(ssn, job, 0);
  // Pods of no PodSet (an unknown subgroup) are never victims: they do not count as left.
  std::int64_t active = 0;
  for (std::int64_t n : c.active_allocated) active += n;
  more_left = static_cast<std::int64_t>(out.size()) < active;
  return out;
}

bool is_ready_for_scheduling(const Session& ssn, const JobView& job) {
  if (single_pod_set(job)) {
    const std::int64_t alive = count_in_pod_set(ssn, job, 0, model::is_alive);
    const std::int64_t gated = count_in_pod_set(
        ssn, job, 0, [](model::TaskStatus s) { return s == model::TaskStatus::GATED; });
    return alive - gated >= job.groups->pod_sets[0].min_available;
  }
  return ready(*job.groups, PodSetCounts(ssn, job), 0);
}

bool should_pipeline_job(const Session& ssn, const JobView& job) {
  const std::size_t n = job.groups->pod_sets.size();
  std::vector<bool> has_pipelined(n, false);
  std::vector<std::int64_t> active_not_pipelined(n, 0);
  for (TaskId t : job.tasks) {
    const model::Task& task = ssn.state.tasks[t];
    if (task.pod_set < 0 || at(task.pod_set) >= n) continue;
    if (task.status == model::TaskStatus::PIPELINED)
      has_pipelined[at(task.pod_set)] = true;
    else if (model::is_active_allocated(task.status))
      ++active_not_pipelined[at(task.pod_set)];
  }
  for (std::size_t p = 0; p < n; ++p) {
    if (has_pipelined[p] && active_not_pipelined[p] < job.groups->pod_sets[p].min_available)
      return true;
  }
  return false;
}

bool is_gang_satisfied(const Session& ssn, const JobView& job) {
  const PodSetCounts c(ssn, job);
  for (std::size_t p = 0; p < c.active_used.size(); ++p) {
    if (c.active_used[p] < job.groups->pod_sets[p].min_available) return false;
  }
  return true;
}

bool is_stale(const Session& ssn, JobId job) {
  const model::Job& j = ssn.state.jobs[job];
  bool any_used = false;
  for (TaskId t : j.tasks) {
    const model::TaskStatus s = ssn.state.tasks[t].status;
    if (s == model::TaskStatus::SUCCEEDED) return false;
    any_used = any_used || model::is_active_used(s);
  }
  if (!any_used) return false;
  if (j.groups->pod_sets.size() == 1) {  // the common case, without per-PodSet tallies
    std::int64_t used = 0;
    for (TaskId t : j.tasks) {
      const model::Task& task = ssn.state.tasks[t];
      used += task.pod_set == 0 && model::is_active_used(task.status) ? 1 : 0;
    }
    return used < j.groups->pod_sets[0].min_available;
  }
  const PodSetCounts c(ssn, j.tasks, *j.groups);
  for (std::size_t p = 0; p < c.active_used.size(); ++p) {
    if (c.active_used[p] < j.groups->pod_sets[p].min_available) return true;
  }
  return false;
}

bool job_has_pending_pod(const Session& ssn, JobId job) {
  auto pending = [&] {
    const std::vector<TaskId>& tasks = ssn.state.jobs[job].tasks;
    return std::any_of(tasks.begin(), tasks.end(), [&](TaskId t) {
      return ssn.state.tasks[t].status == model::TaskStatus::PENDING;
    });
  };
  if (!ssn.may_have_pending(job)) {  // no pod of it was pending at open or since
    SIM_ASSERT(!pending());
    return false;
  }
  return pending();
}

bool is_elastic(const Session& ssn, JobId job) {
  const JobView view = full_view(ssn, job);
  const PodSetCounts c(ssn, view);
  for (std::size_t p = 0; p < c.all.size(); ++p) {
    if (view.groups->pod_sets[p].min_available < c.all[p]) return true;
  }
  return false;
}

namespace {

int plain_min_available_state(const Session& ssn, const JobView& job) {
  if (single_pod_set(job)) {
    const std::int64_t active = count_in_pod_set(ssn, job, 0, model::is_active_allocated);
    const std::int64_t min = job.groups->pod_sets[0].min_available;
    return active < min ? 0 : active == min ? 1 : 2;
  }
  const PodSetCounts c(ssn, job);
  bool exact = true;
  for (std::size_t p = 0; p < c.active_allocated.size(); ++p) {
    const std::int64_t min = job.groups->pod_sets[p].min_available;
    if (c.active_allocated[p] < min) return 0;
    if (c.active_allocated[p] > min) exact = false;
  }
  return exact ? 1 : 2;
}

}  // namespace

// Elastic's job order asks at every heap comparison; the view's memo, where it has one, keeps the
// answer while its pods and their statuses stay as they were.
int min_available_state(const Session& ssn, const JobView& job) {
  if (!job.allocation_memo) return plain_min_available_state(ssn, job);
  AllocationMemo& memo = current_allocation_memo(ssn, job);
  if (!memo.min_state) {
    memo.min_state = plain_min_available_state(ssn, job);
  } else {
    SIM_ASSERT(*memo.min_state == plain_min_available_state(ssn, job));
  }
  return *memo.min_state;
}

JobView partial_view(const Session& ssn, JobId job, std::vector<TaskId> tasks) {
  JobView view{job, std::move(tasks), ssn.state.jobs[job].groups, {}, {}};
  const PodSetCounts c(ssn, view);
  auto lowered = std::make_shared<SubGroupTree>(*view.groups);
  for (std::size_t p = 0; p < c.all.size(); ++p) {
    if (c.all[p] > 0)
      lowered->pod_sets[p].min_available = std::min(lowered->pod_sets[p].min_available, c.all[p]);
  }
  // adjustSubGroupsMinSubGroup: members holding pods, children first.
  std::function<bool(int)> lower = [&](int set) {
    std::int64_t non_empty = 0;
    for (int child : lowered->sets[at(set)].child_sets) non_empty += lower(child) ? 1 : 0;
    for (int p : lowered->sets[at(set)].pod_sets) non_empty += c.all[at(p)] > 0 ? 1 : 0;
    auto& min_subgroup = lowered->sets[at(set)].min_subgroup;
    if (min_subgroup) min_subgroup = std::min(*min_subgroup, non_empty);
    return non_empty > 0;
  };
  lower(0);
  view.groups = std::move(lowered);
  return view;
}

const model::PodSet* pod_set_of(const JobView& job, const model::Task& task) {
  if (task.pod_set < 0 || at(task.pod_set) >= job.groups->pod_sets.size()) return nullptr;
  return &job.groups->pod_sets[at(task.pod_set)];
}

}  // namespace sim::sched
