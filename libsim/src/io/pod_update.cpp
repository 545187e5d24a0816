// Brings an assembled cluster state up to date with a few changed pods and PodGroups, giving the
// state a new assembly would give (snapshot.cpp): a replay's cycles then cost what changed, not
// the whole cluster.

#include <algorithm>
#include <functional>
#include <string_view>

#include "parsed_objects.hpp"
#include "snapshot_fields.hpp"

namespace sim::io {
namespace {

// Whether "a_ns/a_name" sorts before "b_ns/b_name", as the objects' keys do (byte order), without
// building either string.
bool key_less(std::string_view a_ns, std::string_view a_name, std::string_view b_ns,
              std::string_view b_name) {
  if (a_ns == b_ns) return a_name < b_name;
  auto at = [](std::string_view ns, std::string_view name, std::size_t i) -> int {
    if (i < ns.size()) return static_cast<unsigned char>(ns[i]);
    if (i == ns.size()) return '/';
    i -= ns.size() + 1;
    return i < name.size() ? static_cast<unsigned char>(name[i]) : -1;
  };
  const std::size_t n = std::max(a_ns.size() + a_name.size(), b_ns.size() + b_name.size()) + 1;
  for (std::size_t i = 0; i < n; ++i) {
    const int a = at(a_ns, a_name, i), b = at(b_ns, b_name, i);
    if (a != b) return a < b;
  }
  return false;
}

// Where an object of that key is, or would go, among elements in key order.
template <typename Elements>
std::size_t place(const Elements& elements, std::string_view ns, std::string_view name) {
  auto it = std::lower_bound(elements.begin(), elements.end(), 0,
                             [&](const auto& e, int) { return key_less(e.ns, e.name, ns, name); });
  return static_cast<std::size_t>(it - elements.begin());
}

template <typename Elements>
bool at_place(const Elements& elements, std::size_t i, std::string_view ns, std::string_view name) {
  if (i >= elements.size()) return false;
  const auto& e = *(elements.begin() + static_cast<std::ptrdiff_t>(i));
  return e.ns == ns && e.name == name;
}

// One place of the new order: an old element kept (`old` >= 0), a changed object read anew
// (`object`), or both when a changed object replaces its old element.
template <typename Object>
struct Slot {
  std::ptrdiff_t old = -1;
  const Object* object = nullptr;
};

// The new order: the old elements (in key order) less those gone, with the changed objects in
// their places, as a new assembly orders them. `dropped` gets the old indices of the gone ones.
template <typename Object, typename Id, typename Element>
std::vector<Slot<Object>> merge(const IdVector<Id, Element>& old,
                                std::vector<const Object*> changed,
                                const std::vector<std::string>& gone,
                                std::vector<std::size_t>& dropped) {
  std::vector<char> removed(old.size(), 0);
  for (const std::string& key : gone) {
    const std::size_t slash = key.find('/');
    const std::string_view ns(key.data(), slash), name = std::string_view(key).substr(slash + 1);
    const std::size_t i = place(old, ns, name);
    if (at_place(old, i, ns, name) && !removed[i]) {
      removed[i] = 1;
      dropped.push_back(i);
    }
  }
  std::sort(changed.begin(), changed.end(), [](const Object* a, const Object* b) {
    return key_less(a->ns, a->name, b->ns, b->name);
  });
  std::vector<Slot<Object>> slots;
  slots.reserve(old.size() + changed.size());
  std::size_t next = 0;  // old elements up to here are placed
  for (const Object* object : changed) {
    const std::size_t i = place(old, object->ns, object->name);
    for (; next < i; ++next) {
      if (!removed[next]) slots.push_back({static_cast<std::ptrdiff_t>(next), nullptr});
    }
    if (at_place(old, i, object->ns, object->name)) {
      slots.push_back({static_cast<std::ptrdiff_t>(i), object});
      ++next;
    } else {
      slots.push_back({-1, object});
    }
  }
  for (; next < old.size(); ++next) {
    if (!removed[next]) slots.push_back({static_cast<std::ptrdiff_t>(next), nullptr});
  }
  return slots;
}

// Moves the kept elements to their new places, in place: the mapping keeps their order, so those
// moving left go first, left to right, then those moving right, right to left. `remap` gives each
// old index its new id (invalid when gone); the elements of changed objects are the caller's to
// fill. False when nothing moves.
template <typename Id, typename Element, typename Object>
bool reorder(IdVector<Id, Element>& elements, const std::vector<Slot<Object>>& slots,
             std::vector<Id>& remap) {
  remap.assign(elements.size(), Id::invalid());
  bool moved = slots.size() != elements.size();
  for (std::size_t k = 0; k < slots.size(); ++k) {
    if (slots[k].old >= 0)
      remap[static_cast<std::size_t>(slots[k].old)] = Id(static_cast<typename Id::value_type>(k));
    moved = moved || slots[k].old != static_cast<std::ptrdiff_t>(k);
  }
  if (!moved) return false;
  if (slots.size() > elements.size()) elements.resize(slots.size());
  auto id = [](std::size_t i) { return Id(static_cast<typename Id::value_type>(i)); };
  for (std::size_t k = 0; k < slots.size(); ++k) {
    const std::ptrdiff_t from = slots[k].old;
    if (from > static_cast<std::ptrdiff_t>(k))
      elements[id(k)] = std::move(elements[id(static_cast<std::size_t>(from))]);
  }
  for (std::size_t k = slots.size(); k-- > 0;) {
    const std::ptrdiff_t from = slots[k].old;
    if (from >= 0 && from < static_cast<std::ptrdiff_t>(k))
      elements[id(k)] = std::move(elements[id(static_cast<std::size_t>(from))]);
  }
  elements.resize(slots.size());
  return true;
}

// The changes this update follows: one-pod parts of KAI pods in a PodGroup, with no DRA claims;
// PodGroups whose names no other PodGroup takes. (The state's own conditions are updatable()'s.)
bool supported(const model::ClusterState& state, const PodChanges& changes) {
  for (const ParsedObjects* p : changes.pods) {
    if (p->pods.size() != 1 || p->kinds != ParsedObjects::kPods) return false;
    const PodObject& pod = p->pods.front();
    if (pod.reservation_label || pod.grouper || !pod.claims.empty()) return false;
  }
  const bool by_name =
      state.jobs_by_name.size() == state.jobs.size();  // else every job is looked at
  for (const ParsedObjects* p : changes.groups) {
    if (p->pod_groups.size() != 1 || p->kinds != ParsedObjects::kPodGroups) return false;
    const PodGroupObject& pg = p->pod_groups.front();
    auto other_namespace = [&](const model::Job& job) {
      return job.name == pg.name && job.ns != pg.ns;
    };
    if (!by_name) {
      if (std::any_of(state.jobs.begin(), state.jobs.end(), other_namespace)) return false;
      continue;
    }
    auto it = std::lower_bound(
        state.jobs_by_name.begin(), state.jobs_by_name.end(), pg.name,
        [&](JobId j, const std::string& name) { return state.jobs[j].name < name; });
    for (; it != state.jobs_by_name.end() && state.jobs[*it].name == pg.name; ++it) {
      if (other_namespace(state.jobs[*it])) return false;
    }
  }
  return true;
}

// The job a pod's PodGroup annotation names. PodGroup names are unique (updatable() and
// supported() see to it), so the one in the pod's namespace, where it nearly always is, is the one.
JobId job_named(const model::ClusterState& state, const PodObject& pod) {
  const std::size_t i = place(state.jobs, pod.ns, pod.pod_group);
  if (at_place(state.jobs, i, pod.ns, pod.pod_group))
    return JobId(static_cast<JobId::value_type>(i));
  for (std::size_t j = 0; j < state.jobs.size(); ++j) {
    const JobId id(static_cast<JobId::value_type>(j));
    if (state.jobs[id].name == pod.pod_group) return id;
  }
  return JobId::invalid();
}

// Gives the moved tasks their new ids in the books of the nodes that are not built again. The
// new ids keep the old ones' order, so each node's books stay sorted.
void rename_on_nodes(model::ClusterState& state, const std::vector<TaskId>& remap,
                     const std::vector<char>& rebuilt) {
  std::size_t first = 0;  // ids before this one stay
  while (first < remap.size() && remap[first].index() == first) ++first;
  const TaskId from(static_cast<TaskId::value_type>(first));
  // Only nodes that hold a task now at `first` or after have ids to rename: the tasks moved keep
  // their order, so none lands before `first`.
  std::vector<char> holds(state.nodes.size(), 0);
  for (std::size_t i = first; i < state.tasks.size(); ++i) {
    const NodeId node = state.tasks[TaskId(static_cast<TaskId::value_type>(i))].node;
    if (node.valid()) holds[node.index()] = 1;
  }
  for (std::size_t n = 0; n < state.nodes.size(); ++n) {
    if (rebuilt[n] || !holds[n]) continue;
    model::TaskBooks& books = state.nodes[NodeId(static_cast<NodeId::value_type>(n))].tasks;
    auto it = std::lower_bound(books.begin(), books.end(), from,
                               [](const auto& e, TaskId t) { return e.first < t; });
    for (; it != books.end(); ++it) it->first = remap[it->first.index()];
  }
}

// The name order of the jobs, when the state has it, under their new ids and with the new ones.
template <typename Object>
void keep_jobs_by_name(model::ClusterState& state, const std::vector<Slot<Object>>& slots,
                       const std::vector<JobId>& remap) {
  std::vector<JobId>& order = state.jobs_by_name;
  if (order.size() != remap.size() || order.empty()) {
    order.clear();
    return;
  }
  std::erase_if(order, [&](JobId& id) { return !(id = remap[id.index()]).valid(); });
  for (std::size_t k = 0; k < slots.size(); ++k) {
    if (slots[k].old >= 0) continue;
    const JobId id(static_cast<JobId::value_type>(k));
    const std::string& name = state.jobs[id].name;
    order.insert(
        std::lower_bound(order.begin(), order.end(), name,
                         [&](JobId j, const std::string& n) { return state.jobs[j].name < n; }),
        id);
  }
}

}  // namespace

bool updatable(const model::ClusterState& state) {
  // Pods and PodGroups each in key order: no reservation pods first, no pod-grouper jobs last, no
  // objects from a List.
  auto in_key_order = [](const auto& elements) {
    return std::adjacent_find(elements.begin(), elements.end(), [](const auto& a, const auto& b) {
             return !key_less(a.ns, a.name, b.ns, b.name);
           }) == elements.end();
  };
  if (!state.claims.empty() || !state.resource_slices.empty() || !in_key_order(state.tasks) ||
      !in_key_order(state.jobs))
    return false;
  if (std::any_of(state.tasks.begin(), state.tasks.end(),
                  [](const model::Task& t) { return t.reservation; }))
    return false;
  // NUMA zones come from NodeResourceTopology objects, and a session writes its placements into
  // the tasks: an update would have to undo that.
  if (std::any_of(state.nodes.begin(), state.nodes.end(),
                  [](const model::Node& n) { return n.numa.has_value(); }))
    return false;
  std::vector<std::string_view> names;  // KAI keys PodGroups by name alone
  names.reserve(state.jobs.size());
  for (const model::Job& job : state.jobs) names.push_back(job.name);
  std::sort(names.begin(), names.end());
  return std::adjacent_find(names.begin(), names.end()) == names.end();
}

TaskId find_task(const model::ClusterState& state, std::string_view ns, std::string_view name) {
  const std::size_t i = place(state.tasks, ns, name);
  return at_place(state.tasks, i, ns, name) ? TaskId(static_cast<TaskId::value_type>(i))
                                            : TaskId::invalid();
}

bool read_changed_pod(const model::ClusterState& state, const ParsedObjects& part, model::Task& out,
                      Diagnostics& diagnostics) {
  if (part.pods.size() != 1 || part.kinds != ParsedObjects::kPods) return false;
  const PodObject& pod = part.pods.front();
  if (pod.reservation_label || pod.grouper || !pod.claims.empty() ||
      pod.scheduler_name != "kai-scheduler")
    return false;
  const TaskId id = find_task(state, pod.ns, pod.name);
  if (!id.valid()) return false;
  const model::Task& kept = state.tasks[id];
  if (!kept.job.valid() || state.jobs[kept.job].name != pod.pod_group) return false;
  out = kept;
  set_task(out, id, state, pod, nullptr, diagnostics);
  out.job = kept.job;
  out.pod_set = state.jobs[kept.job].groups->find_pod_set(pod.sub_group);
  // What the node's books would give it (Node::add_task).
  if (out.node.valid() && model::is_active_used(out.status))
    state.nodes[out.node].set_accepted(out);
  return true;
}

bool update_pods(model::ClusterState& state, const PodChanges& changes,
                 const std::function<const ParsedObjects*(const std::string&)>& node_object,
                 Diagnostics& diagnostics) {
  if (!supported(state, changes)) return false;
  std::vector<const PodObject*> pods;
  for (const ParsedObjects* p : changes.pods) pods.push_back(&p->pods.front());
  std::vector<const PodGroupObject*> groups;
  for (const ParsedObjects* p : changes.groups) groups.push_back(&p->pod_groups.front());
  std::vector<std::size_t> dropped_tasks, dropped_jobs;
  const auto task_slots = merge(state.tasks, pods, changes.gone_pods, dropped_tasks);
  const auto job_slots = merge(state.jobs, groups, changes.gone_groups, dropped_jobs);

  // Nodes built again: where a changed or gone pod was, and where a changed pod is now. Their
  // tasks are those in their books now, less the gone, plus the changed.
  std::vector<char> rebuilt(state.nodes.size(), 0);
  std::vector<NodeId> rebuilt_ids;
  auto rebuild = [&](NodeId n) {
    if (n.valid() && !rebuilt[n.index()]) rebuilt[n.index()] = 1, rebuilt_ids.push_back(n);
  };
  auto was_on = [&](std::size_t i) {
    const model::Task& t = state.tasks[TaskId(static_cast<TaskId::value_type>(i))];
    if (t.node.valid() && state.nodes[t.node].tasks.contains(t.id)) rebuild(t.node);
  };
  for (std::size_t i : dropped_tasks) was_on(i);
  for (const auto& slot : task_slots) {
    if (slot.object && slot.old >= 0) was_on(static_cast<std::size_t>(slot.old));
  }
  for (const PodObject* pod : pods) rebuild(state.find_node(pod->node_name));
  std::vector<const model::Node*> read_nodes;
  for (NodeId id : rebuilt_ids) {
    const ParsedObjects* part = node_object(state.nodes[id].name);
    if (!part || part->nodes.size() != 1 || part->nodes.front().second.name != state.nodes[id].name)
      return false;
    read_nodes.push_back(&part->nodes.front().second);
  }
  std::vector<std::vector<TaskId>> rebuilt_books;  // old ids
  for (NodeId id : rebuilt_ids) {
    rebuilt_books.emplace_back();
    for (const auto& [task, rec] : state.nodes[id].tasks) rebuilt_books.back().push_back(task);
  }

  // Jobs first: the changed pods find theirs by name.
  std::vector<JobId> job_remap;
  const bool jobs_moved = reorder(state.jobs, job_slots, job_remap);
  for (std::size_t j = 0; j < job_slots.size(); ++j) {
    if (job_slots[j].object) {
      set_job(state.jobs[JobId(static_cast<JobId::value_type>(j))], state, *job_slots[j].object,
              job_slots[j].object->priority_class);
    }
  }
  keep_jobs_by_name(state, job_slots, job_remap);

  std::vector<TaskId> task_remap;
  const bool tasks_moved = reorder(state.tasks, task_slots, task_remap);
  std::vector<TaskId> changed_ids;
  bool regroup = jobs_moved || tasks_moved;  // some job's list of tasks changes
  for (std::size_t i = 0; i < task_slots.size(); ++i) {
    const PodObject* pod = task_slots[i].object;
    if (!pod) continue;
    const TaskId id(static_cast<TaskId::value_type>(i));
    model::Task& task = state.tasks[id];
    const JobId before = task_slots[i].old >= 0 ? task.job : JobId::invalid();
    changed_ids.push_back(id);
    set_task(task, id, state, *pod, nullptr, diagnostics);
    if (pod->scheduler_name == "kai-scheduler") {
      task.job = job_named(state, *pod);
      if (!task.job.valid()) {
        diagnostics.warn(pod->source.where(), pod->source.path(),
                         "pod " + pod->ns + "/" + pod->name + " names PodGroup \"" +
                             pod->pod_group + "\" which does not exist; ignored as KAI does");
      } else {
        task.pod_set = state.jobs[task.job].groups->find_pod_set(pod->sub_group);
      }
    }
    regroup = regroup || task.job != before;
  }
  if (regroup) {  // every id under its new value, and every job's tasks listed again in id order
    for (model::Job& job : state.jobs) job.tasks.clear();
    for (std::size_t i = 0; i < task_slots.size(); ++i) {
      const TaskId id(static_cast<TaskId::value_type>(i));
      model::Task& task = state.tasks[id];
      if (!task_slots[i].object) {
        task.id = id;
        if (task.job.valid()) task.job = job_remap[task.job.index()];
      }
      if (task.job.valid()) state.jobs[task.job].tasks.push_back(id);
    }
  }

  // Nodes that are not built again keep their books under the tasks' new ids; the others are
  // built as an assembly builds them: the node as read, then its tasks in id order.
  if (tasks_moved) rename_on_nodes(state, task_remap, rebuilt);
  for (std::size_t r = 0; r < rebuilt_ids.size(); ++r) {
    const NodeId node = rebuilt_ids[r];
    std::vector<TaskId> on_node;
    for (TaskId old : rebuilt_books[r]) {
      if (task_remap[old.index()].valid()) on_node.push_back(task_remap[old.index()]);
    }
    on_node.insert(on_node.end(), changed_ids.begin(), changed_ids.end());
    std::sort(on_node.begin(), on_node.end());
    on_node.erase(std::unique(on_node.begin(), on_node.end()), on_node.end());
    state.nodes[node] = *read_nodes[r];
    for (TaskId id : on_node) {
      model::Task& task = state.tasks[id];
      if (task.node == node && model::is_active_used(task.status)) state.nodes[node].add_task(task);
    }
  }
  return true;
}

}  // namespace sim::io
