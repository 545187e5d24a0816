#include "sim/live/diff.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <set>
#include <thread>

#include "cluster_read.hpp"
#include "manifests.hpp"
#include "status_prediction.hpp"

namespace sim::live {
namespace {

using Clock = std::chrono::steady_clock;
constexpr const char* kStatusFields[] = {"allocated", "allocatedNonPreemptible", "requested"};

const io::ResourceAmounts& field_of(const io::QueueStatus& s, const std::string& field) {
  if (field == "allocated") return s.allocated;
  if (field == "allocatedNonPreemptible") return s.allocated_non_preemptible;
  return s.requested;
}

std::string text_at(const ordered_json& o, std::initializer_list<const char*> keys) {
  const ordered_json* cur = &o;
  for (const char* k : keys) {
    if (!cur->is_object() || !cur->contains(k)) return {};
    cur = &(*cur)[k];
  }
  return cur->is_string() ? cur->get<std::string>() : std::string();
}

// Every leaf the plan sets in a Queue's spec against the live value.
void spec_leaves(const ordered_json& planned, const ordered_json* live, const std::string& path,
                 const std::string& queue, std::vector<DriftRow>& rows) {
  if (planned.is_object()) {
    for (auto it = planned.begin(); it != planned.end(); ++it) {
      const ordered_json* l = live != nullptr && live->is_object() && live->contains(it.key())
                                  ? &(*live)[it.key()]
                                  : nullptr;
      spec_leaves(it.value(), l, path + "." + it.key(), queue, rows);
    }
    return;
  }
  if (planned.is_null()) return;
  DriftRow row{
      queue, "spec", path, "", show_value(planned), "", live ? show_value(*live) : "(unset)",
      false, 0};
  row.drift = live == nullptr || !planned_field_drift(planned, *live, path).empty();
  rows.push_back(std::move(row));
}

std::vector<DriftRow> spec_rows(const std::vector<ManifestObject>& plan,
                                const std::vector<ordered_json>& items) {
  std::map<std::string, const ordered_json*> live;
  for (const ordered_json& o : items) {
    if (o.value("kind", "") == "Queue") live[text_at(o, {"metadata", "name"})] = &o;
  }
  std::vector<DriftRow> rows;
  for (const ManifestObject& m : plan) {
    if (m.kind != "Queue") continue;
    auto it = live.find(m.name);
    if (it == live.end()) {
      rows.push_back({m.name, "spec", "(queue)", "", "present", "", "missing", true, 0});
      continue;
    }
    const ordered_json empty = ordered_json::object();
    const ordered_json& planned = m.object.contains("spec") ? m.object["spec"] : empty;
    const ordered_json* live_spec = it->second->contains("spec") ? &(*it->second)["spec"] : nullptr;
    spec_leaves(planned, live_spec, "spec", m.name, rows);
  }
  return rows;
}

std::vector<ManifestObject> read_plan(const DiffOptions& options, Diagnostics& diagnostics) {
  if (options.plan.empty()) return {};
  return read_manifests(options.plan, diagnostics);
}

std::string row_key(const DriftRow& r) {
  return r.queue + "|" + r.kind + "|" + r.field + "|" + r.resource;
}

}  // namespace

std::vector<DriftRow> status_rows(const std::map<std::string, io::QueueStatus>& predicted,
                                  const std::map<std::string, io::QueueStatus>& observed,
                                  double at_s) {
  std::set<std::string> queues;
  for (const auto& [q, s] : predicted) queues.insert(q);
  for (const auto& [q, s] : observed) queues.insert(q);
  std::vector<DriftRow> rows;
  const io::QueueStatus none;
  for (const std::string& q : queues) {
    const io::QueueStatus& p = predicted.contains(q) ? predicted.at(q) : none;
    const io::QueueStatus& o = observed.contains(q) ? observed.at(q) : none;
    for (const char* field : kStatusFields) {
      std::set<std::string> resources{"nvidia.com/gpu"};
      for (const auto& [r, v] : field_of(p, field).entries()) resources.insert(r);
      for (const auto& [r, v] : field_of(o, field).entries()) resources.insert(r);
      for (const std::string& r : resources) {
        const io::NanoAmount pv = field_of(p, field).get(r), ov = field_of(o, field).get(r);
        rows.push_back({q, "status", field, r, "", io::format_nano_quantity(pv),
                        io::format_nano_quantity(ov), pv != ov, at_s});
      }
    }
  }
  return rows;
}

bool DiffReport::drifting() const {
  return std::any_of(rows.begin(), rows.end(), [](const DriftRow& r) { return r.drift; });
}

std::string DiffReport::text() const {
  std::vector<std::vector<std::string>> table{
      {"QUEUE", "FIELD", "RESOURCE", "PLANNED", "PREDICTED", "OBSERVED", "DRIFT"}};
  if (text_drift_only) table.front().insert(table.front().begin(), "AT_S");
  std::size_t drifting_rows = 0;
  for (const DriftRow& r : rows) {
    drifting_rows += r.drift ? 1 : 0;
    if (text_drift_only && !r.drift) continue;
    table.push_back({r.queue, (r.kind == "status" ? "status." : "") + r.field,
                     r.resource.empty() ? "-" : r.resource, r.planned.empty() ? "-" : r.planned,
                     r.predicted.empty() ? "-" : r.predicted, r.observed,
                     r.drift ? "DRIFT" : "ok"});
    if (text_drift_only) {
      char at[32];
      std::snprintf(at, sizeof at, "%.3f", r.at_s);
      table.back().insert(table.back().begin(), at);
    }
  }
  std::vector<std::size_t> width(table.front().size(), 0);
  for (const auto& row : table) {
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  std::string out = note.empty() ? std::string() : note + "\n";
  if (table.size() == 1 && text_drift_only) table.clear();
  for (const auto& row : table) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(width[i] - row[i].size() + 2, ' ');
    }
    out += line + "\n";
  }
  out += drifting_rows == 0 ? "no drift: " + std::to_string(rows.size()) + " values\n"
                            : "drift: " + std::to_string(drifting_rows) + " of " +
                                  std::to_string(rows.size()) + " values\n";
  return out;
}

std::string DiffReport::json() const {
  ordered_json out = ordered_json::object();
  out["schema_version"] = 1;
  out["rows"] = ordered_json::array();
  std::size_t drifting_rows = 0;
  for (const DriftRow& r : rows) {
    drifting_rows += r.drift ? 1 : 0;
    ordered_json e = ordered_json::object();
    e["queue"] = r.queue;
    e["kind"] = r.kind;
    e["field"] = r.field;
    e["resource"] = r.resource.empty() ? ordered_json(nullptr) : ordered_json(r.resource);
    e["planned"] = r.planned.empty() ? ordered_json(nullptr) : ordered_json(r.planned);
    e["predicted"] = r.predicted.empty() ? ordered_json(nullptr) : ordered_json(r.predicted);
    e["observed"] = r.observed;
    e["drift"] = r.drift;
    e["at_s"] = r.at_s;
    out["rows"].push_back(e);
  }
  out["drifting"] = drifting_rows;
  out["note"] = note.empty() ? ordered_json(nullptr) : ordered_json(note);
  return out.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

DiffReport diff_live(const ConnectionOptions& connection, const DiffOptions& options,
                     Diagnostics& diagnostics) {
  const std::vector<ManifestObject> plan = read_plan(options, diagnostics);
  KubeApi api(connection);
  const Clock::time_point start = Clock::now();
  ClusterObjects cluster = read_cluster(api, diagnostics);
  const std::map<std::string, io::QueueStatus> predicted =
      predict_queue_status(cluster.items, diagnostics);
  std::map<std::string, io::QueueStatus> observed = observed_queue_status(cluster.items);
  auto agree = [&] {
    for (const auto& [q, p] : predicted) {
      if (!(observed.contains(q) ? observed.at(q) == p : p == io::QueueStatus{})) return false;
    }
    return true;
  };
  // The observed status may lag the prediction by up to one settle period.
  std::optional<ResourceInfo> queues =
      cluster.served.contains("Queue") ? std::optional(cluster.served.at("Queue")) : std::nullopt;
  while (queues && !agree() &&
         std::chrono::duration<double>(Clock::now() - start).count() < options.settle_s) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    observed = observed_queue_status(api.list(*queues).items);
  }
  DiffReport report;
  report.rows = spec_rows(plan, cluster.items);
  for (DriftRow& r : status_rows(predicted, observed, 0)) report.rows.push_back(std::move(r));
  return report;
}

// ---------------------------------------------------------------- --watch

namespace {

// The objects the watches keep up to date, shared by the watcher threads and the comparison.
struct WatchStore {
  std::mutex mutex;
  std::condition_variable changed;
  std::map<std::string, std::map<std::string, ordered_json>> objects;  // kind -> ns/name -> object
  std::uint64_t version = 0;
  std::string fatal;
  bool stop = false;
};

std::string object_key(const ordered_json& o) {
  return text_at(o, {"metadata", "namespace"}) + "/" + text_at(o, {"metadata", "name"});
}

void replace_kind(WatchStore& store, const std::string& kind, std::vector<ordered_json> items) {
  std::map<std::string, ordered_json> fresh;
  for (ordered_json& o : items) {
    trim_object(o);
    std::string key =
        object_key(o);  // before the move: json's operator= takes its argument by value
    fresh[key] = std::move(o);
  }
  std::lock_guard lock(store.mutex);
  store.objects[kind] = std::move(fresh);
  ++store.version;
  store.changed.notify_all();
}

// Watches one kind until told to stop: resumes from the last resourceVersion when the watch ends
// or its connection drops, lists again after 410 Gone, gives up after `deadline_s` without a
// connection.
void watch_kind(const ConnectionOptions& connection, ResourceInfo r, std::string rv,
                WatchStore& store) {
  auto keep_going = [&] {
    std::lock_guard lock(store.mutex);
    return !store.stop;
  };
  try {
    KubeApi api(connection);
    Clock::time_point failing_since{};
    double backoff = 0.2;
    while (keep_going()) {
      try {
        rv = api.watch(
            r, rv, 60,
            [&](const WatchEvent& e) {
              failing_since = {};
              backoff = 0.2;
              if (e.type == "BOOKMARK") return true;
              ordered_json o = e.object;
              trim_object(o);
              std::lock_guard lock(store.mutex);
              if (e.type == "DELETED") {
                store.objects[r.kind].erase(object_key(o));
              } else {
                const std::string key = object_key(o);  // before the move (operator= takes a value)
                store.objects[r.kind][key] = std::move(o);
              }
              ++store.version;
              store.changed.notify_all();
              return !store.stop;
            },
            keep_going);
      } catch (const ClusterError& e) {
        if (e.http_status() == 410) {
          ListResult list = api.list(r);
          rv = list.resource_version;
          replace_kind(store, r.kind, std::move(list.items));
          continue;
        }
        // No connection, or a server not ready yet (429, 5xx: an apiserver that just restarted
        // serves its CRDs' paths a moment after it answers): try again until the deadline.
        const int code = e.http_status();
        if (code != 0 && code != 429 && code < 500) throw;
        if (failing_since == Clock::time_point{}) failing_since = Clock::now();
        if (std::chrono::duration<double>(Clock::now() - failing_since).count() >
            connection.deadline_s)
          throw;
        std::this_thread::sleep_for(std::chrono::duration<double>(backoff));
        backoff = std::min(backoff * 2, 5.0);
      }
    }
  } catch (const std::exception& e) {
    std::lock_guard lock(store.mutex);
    if (store.fatal.empty()) store.fatal = e.what();
    store.changed.notify_all();
  }
}

}  // namespace

DiffReport watch_diff(const ConnectionOptions& connection, const DiffOptions& options,
                      double duration_s, const std::function<void(const DiffReport&)>& on_change,
                      const std::function<bool()>& keep_going, Diagnostics& diagnostics) {
  const std::vector<ManifestObject> plan = read_plan(options, diagnostics);
  KubeApi api(connection);
  const Clock::time_point start = Clock::now();
  auto since_start = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  ClusterObjects cluster = read_cluster(api, diagnostics);
  WatchStore store;
  for (ordered_json& o : cluster.items) {
    const std::string kind = o.value("kind", ""), key = object_key(o);  // before the move
    store.objects[kind][key] = std::move(o);
  }
  std::vector<std::thread> watchers;
  for (const char* kind : {"Queue", "PodGroup", "Pod", "Node"}) {
    if (!cluster.served.contains(kind)) continue;
    watchers.emplace_back(watch_kind, connection, cluster.served.at(kind),
                          cluster.resource_versions.at(kind), std::ref(store));
  }
  auto stop_watchers = [&] {
    {
      std::lock_guard lock(store.mutex);
      store.stop = true;
    }
    for (std::thread& t : watchers) t.join();
  };

  std::map<std::string, double> differing_since;  // row -> when its values began to differ
  std::map<std::string, bool> reported;           // row -> drift as last reported
  DiffReport last;
  std::uint64_t seen_version = ~std::uint64_t{0};
  std::vector<DriftRow> raw;  // the latest comparison, before the settle period is applied
  try {
    while ((duration_s < 0 || since_start() < duration_s) && (!keep_going || keep_going())) {
      std::vector<ordered_json> items;
      {
        std::unique_lock lock(store.mutex);
        if (store.version == seen_version)
          store.changed.wait_for(lock, std::chrono::milliseconds(250));
        if (!store.fatal.empty()) throw ClusterError(0, "", store.fatal);
        if (store.version != seen_version) {
          seen_version = store.version;
          for (const auto& [kind, objects] : store.objects) {
            for (const auto& [key, o] : objects) items.push_back(o);
          }
        }
      }
      const double now = since_start();
      if (!items.empty()) {
        sort_objects(items);
        Diagnostics quiet;  // the same objects again: their warnings were given at the start
        raw = spec_rows(plan, items);
        for (DriftRow& r :
             status_rows(predict_queue_status(items, quiet), observed_queue_status(items), now)) {
          raw.push_back(std::move(r));
        }
      }
      DiffReport current;
      current.rows = raw;
      DiffReport changes;
      for (DriftRow& r : current.rows) {
        r.at_s = now;
        const std::string key = row_key(r);
        if (r.kind == "status") {
          // A status value drifts once it has differed for longer than the settle period.
          if (!r.drift) {
            differing_since.erase(key);
          } else {
            const double since = differing_since.try_emplace(key, now).first->second;
            r.drift = now - since >= options.settle_s;
          }
        }
        auto it = reported.find(key);
        if (it == reported.end() || it->second != r.drift) {
          reported[key] = r.drift;
          changes.rows.push_back(r);
        }
      }
      if (!changes.rows.empty() && on_change) on_change(changes);
      last = std::move(current);
    }
  } catch (...) {
    stop_watchers();
    throw;
  }
  stop_watchers();
  return last;
}

}  // namespace sim::live
