#include "scenario.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>

#include "generators.hpp"
#include "io/yaml_field.hpp"
#include "sim/io/input_limits.hpp"
#include "trace_csv.hpp"

namespace sim::replay {
namespace {

namespace fs = std::filesystem;
using io::Field;

constexpr int kSchemaVersion = 1;

// A file the scenario names; a problem reading it is reported at the name.
std::string read_file(const fs::path& path, const Field& referer) {
  try {
    return io::read_input_file(path.string());
  } catch (const Error& e) {
    referer.fail(e.what());
  }
}

std::int64_t duration_ms(const Field& f, std::int64_t fallback) {
  if (f.is_null()) return fallback;
  const std::string text = f.string();
  std::optional<std::int64_t> ms = io::parse_go_duration_ms(text);
  if (!ms || *ms < 0) f.fail("not a duration such as \"30s\", \"10m\" or \"1h\": \"" + text + "\"");
  return *ms;
}

class Loader {
 public:
  Loader(const std::string& name, fs::path base, Diagnostics& diagnostics)
      : base_(std::move(base)), diagnostics_(diagnostics) {
    files_.push_back(std::make_unique<std::string>(name));
  }

  Scenario load(std::string_view text) {
    const std::string& file = *files_.front();
    const Field root(io::parse_single_document(text, file), "", &file);
    root.expect_map();
    for (const Field& key : root.unknown_members(
             {"schema_version", "name", "description", "seed", "schedulePeriod", "duration",
              "podTerminationGracePeriod", "bindDelay", "fairShare", "scheduler", "cluster",
              "manifests", "generators", "trace", "endWhenDrained", "steps", "expect"})) {
      diagnostics_.unknown_field(key.where(), key.path());
    }
    const Field version = root.member("schema_version");
    if (version.is_null())
      root.fail("missing required field \"schema_version\" (this kaisim reads version 1)");
    if (version.optional_int() != kSchemaVersion)
      version.fail("unsupported schema_version; this kaisim reads version 1");

    Scenario sc;
    sc.name = root.member("name").optional_string().value_or(fs::path(file).stem().string());
    sc.description = root.member("description").optional_string().value_or("");
    if (std::optional<int> seed = root.member("seed").optional_int())
      sc.seed = static_cast<std::uint64_t>(*seed);
    sc.period_ms = duration_ms(root.member("schedulePeriod"), sc.period_ms);
    if (sc.period_ms <= 0) root.member("schedulePeriod").fail("must be positive");
    sc.duration_ms = duration_ms(root.member("duration"), sc.duration_ms);
    sc.grace_ms = duration_ms(root.member("podTerminationGracePeriod"), sc.grace_ms);
    sc.bind_delay_ms = duration_ms(root.member("bindDelay"), sc.bind_delay_ms);
    fair_share(root.member("fairShare"), sc);
    scheduler(root.member("scheduler"), sc);
    const Field cluster = root.member("cluster");
    if (!cluster.is_null()) {
      cluster.expect_map();
      for (const Field& key : cluster.unknown_members({"nodePools"})) {
        diagnostics_.unknown_field(key.where(), key.path());
      }
      sc.manifests = expand_node_pools(cluster.member("nodePools"), file, diagnostics_);
    }
    for (Manifest& m : manifests(root.member("manifests"))) sc.manifests.push_back(std::move(m));

    const Field steps = root.member("steps");
    if (!steps.is_null()) {
      steps.expect_sequence();
      for (std::size_t i = 0; i < steps.size(); ++i) sc.steps.push_back(step(steps.item(i)));
    }
    expand_generators(root.member("generators"), sc.seed, sc.duration_ms, queue_names(sc), file,
                      sc.steps, diagnostics_);
    const Field trace = root.member("trace");
    if (!trace.is_null()) {
      const fs::path path = base_ / trace.string();
      files_.push_back(std::make_unique<std::string>(path.lexically_normal().string()));
      for (Step& s : read_trace_csv(read_file(path, trace), *files_.back(), diagnostics_))
        sc.steps.push_back(std::move(s));
    }
    if (const Field drained = root.member("endWhenDrained"); !drained.is_null())
      sc.end_when_drained = boolean(drained);
    std::stable_sort(sc.steps.begin(), sc.steps.end(),
                     [](const Step& a, const Step& b) { return a.at_ms < b.at_ms; });

    const Field expect = root.member("expect");
    if (!expect.is_null()) {
      expect.expect_sequence();
      for (std::size_t i = 0; i < expect.size(); ++i)
        sc.expectations.push_back(expectation(expect.item(i)));
    }
    check_references(sc);
    check_work(sc, root.member("duration").is_null() ? root : root.member("duration"));
    for (const auto& f : files_) sc.files.push_back(*f);
    return sc;
  }

 private:
  static void require_kind(const Field& manifest) {
    if (!manifest.member("kind").optional_string().value_or("").empty()) return;
    // yaml-cpp reads a merge key (`<<: *anchor`) as an ordinary key: say so when that is why.
    const bool merged = manifest.node().IsMap() && manifest.node()["<<"].IsDefined();
    manifest.fail(std::string("missing required field \"kind\"") +
                  (merged ? " (YAML merge keys `<<` are not supported)" : ""));
  }

  // What a scenario names must exist in it: each mistake here would otherwise pass silently (a
  // step never applied, a delete of nothing, an expectation on a queue that is not there).
  void check_references(const Scenario& sc) const {
    std::set<std::string> kinds, objects, queues;  // objects: "Kind/name"
    std::set<std::string> pods;                    // "ns/name"
    auto add = [&](const Manifest& m) {
      const Field f(m.doc, "", &m.file);
      const std::string kind = f.member("kind").optional_string().value_or("");
      const std::string name = f.member("metadata").member("name").optional_string().value_or("");
      kinds.insert(kind);
      objects.insert(kind + "/" + name);
      if (kind == "Queue") queues.insert(name);
      if (kind == "Pod")
        pods.insert(f.member("metadata").member("namespace").optional_string().value_or("default") +
                    "/" + name);
    };
    for (const Manifest& m : sc.manifests) add(m);
    for (const Step& s : sc.steps) {
      for (const Manifest& m : s.apply) add(m);
      for (const PodShape& p : s.pods) {
        kinds.insert("Pod");
        kinds.insert("PodGroup");
        objects.insert("Pod/" + p.name);
        pods.insert(p.ns + "/" + p.name);
      }
    }
    const std::string queue_list = names(queues);
    for (const Step& s : sc.steps) {
      if (s.at_ms > sc.duration_ms) {
        throw InputError(s.where, s.path,
                         "at " + seconds(s.at_ms) + " is after the end of the scenario (duration " +
                             seconds(sc.duration_ms) + "): the step would never apply");
      }
      for (const ObjectRef& r : s.remove) {
        if (!kinds.contains(r.kind)) {
          throw InputError(
              r.where, r.path,
              "no " + r.kind +
                  " is ever applied in this scenario, so there is nothing to delete (kinds: " +
                  names(kinds) + ")");
        }
        if (!objects.contains(r.kind + "/" + r.name)) {
          throw InputError(r.where, r.path,
                           "no " + r.kind + " named \"" + r.name +
                               "\" in this scenario, so there is nothing to delete");
        }
      }
      for (const PodShape& p : s.pods) {
        if (queues.contains(p.queue)) continue;
        const std::string detail =
            "no Queue named \"" + p.queue + "\" in this scenario (queues: " + queue_list + ")";
        if (p.line > 0) throw InputError(SourceLocation{s.pods_file, p.line, 0}, "queue", detail);
        throw InputError(s.where, s.path, detail);
      }
    }
    for (const Expectation& e : sc.expectations) {
      for (const QueueExpectation& q : e.queues) {
        if (!queues.contains(q.queue))
          throw InputError(
              q.where, q.path,
              "no Queue named \"" + q.queue + "\" in this scenario (queues: " + queue_list + ")");
      }
      for (const auto& [pod, where] : e.pod_refs) {
        if (!pods.contains(replaced_pod(pod)))
          throw InputError(where.first, where.second,
                           "no pod " + pod + " in this scenario (pods are named namespace/name)");
      }
    }
  }

  // The work of the replay, estimated before it starts: at most one cycle per schedulePeriod
  // over the whole duration, each over every object (nodes, pods, queues). Past the budget the
  // run would take hours and gigabytes (one kai-timeline row per leaf queue per cycle).
  static void check_work(const Scenario& sc, const Field& duration) {
    double objects = static_cast<double>(sc.manifests.size());
    for (const Step& s : sc.steps) objects += static_cast<double>(s.apply.size() + s.pods.size());
    const double cycles =
        std::floor(static_cast<double>(sc.duration_ms) / static_cast<double>(sc.period_ms)) + 1;
    const double work = cycles * std::max(1.0, objects);
    const double budget = io::input_limits().max_replay_work;
    const double max_cycles = io::input_limits().max_replay_cycles;
    char text[320];
    if (cycles > max_cycles) {
      std::snprintf(text, sizeof text,
                    "the replay would run up to %.0f cycles, above the limit of %.0f: shorten "
                    "duration or lengthen "
                    "schedulePeriod",
                    cycles, max_cycles);
      duration.fail(text);
    }
    if (work <= budget) return;
    std::snprintf(text, sizeof text,
                  "the replay would run up to %.0f cycles over %.0f objects (%.3g, above the work "
                  "budget of %.3g "
                  "cycles x objects): shorten duration, lengthen schedulePeriod, or raise the "
                  "budget with --max-replay-work",
                  cycles, objects, work, budget);
    duration.fail(text);
  }

  // The pod a controller's replacement stands for: "name-r2" is the second pod the controller
  // brought back for "name" (World: a controller-owned pod removed comes back under that name).
  static std::string replaced_pod(std::string pod) {
    for (std::size_t r = pod.rfind("-r");
         r != std::string::npos && r + 2 < pod.size() &&
         pod.find_first_not_of("0123456789", r + 2) == std::string::npos;
         r = pod.rfind("-r")) {
      pod.resize(r);
    }
    return pod;
  }

  // Every Queue the scenario applies, at the start or in a step.
  static std::set<std::string> queue_names(const Scenario& sc) {
    std::set<std::string> out;
    auto add = [&](const Manifest& m) {
      const Field f(m.doc, "", &m.file);
      if (f.member("kind").optional_string() == "Queue")
        out.insert(f.member("metadata").member("name").optional_string().value_or(""));
    };
    for (const Manifest& m : sc.manifests) add(m);
    for (const Step& s : sc.steps) {
      for (const Manifest& m : s.apply) add(m);
    }
    return out;
  }

  static std::string names(const std::set<std::string>& set) {
    std::string out;
    for (const std::string& n : set) {
      if (out.size() > 200) return out + ", ...";
      out += (out.empty() ? "" : ", ") + n;
    }
    return out.empty() ? "none" : out;
  }

  static std::string seconds(std::int64_t ms) {
    return ms % 1000 == 0 ? std::to_string(ms / 1000) + "s" : std::to_string(ms) + "ms";
  }

  // A list of manifest file names (relative to the scenario) or inline manifests.
  std::vector<Manifest> manifests(const Field& list) {
    std::vector<Manifest> out;
    if (list.is_null()) return out;
    list.expect_sequence();
    for (std::size_t i = 0; i < list.size(); ++i) {
      const Field entry = list.item(i);
      if (entry.is_map()) {
        require_kind(entry);
        out.push_back({entry.node(), *files_.front()});
        continue;
      }
      const fs::path path = base_ / entry.string();
      files_.push_back(std::make_unique<std::string>(path.lexically_normal().string()));
      const std::string& name = *files_.back();
      for (const YAML::Node& doc : io::parse_documents(read_file(path, entry), name)) {
        const Field f(doc, "", &name);
        f.expect_map();
        require_kind(f);
        if (f.member("kind").optional_string() != "List") {
          out.push_back({doc, name});
          continue;
        }
        // A `kind: List` (what `kaisim snapshot` and `kubectl get -o yaml` write): its items.
        for (const Field& item : f.member("items").items()) {
          item.expect_map();
          require_kind(item);
          out.push_back({item.node(), name});
        }
      }
    }
    return out;
  }

  // scheduler: {placementStrategy: {gpu: binpack|spread, cpu: binpack|spread}}, as the
  // SchedulingShard sets it; numa and podAffinity plugins on or off.
  void scheduler(const Field& f, Scenario& sc) {
    if (f.is_null()) return;
    f.expect_map();
    for (const Field& key : f.unknown_members({"placementStrategy", "numa", "podAffinity"})) {
      diagnostics_.unknown_field(key.where(), key.path());
    }
    numa(f.member("numa"), sc.scheduler);
    if (const Field pod_affinity = f.member("podAffinity"); !pod_affinity.is_null()) {
      sc.scheduler.plugins.pod_affinity = boolean(pod_affinity);
    }
    const Field strategy = f.member("placementStrategy");
    if (strategy.is_null()) return;
    strategy.expect_map();
    for (const Field& key : strategy.unknown_members({"gpu", "cpu"}))
      diagnostics_.unknown_field(key.where(), key.path());
    auto binpack = [](const Field& value) {
      const std::string v = value.optional_string().value_or("binpack");
      if (v != "binpack" && v != "spread")
        value.fail("expected binpack or spread, got \"" + v + "\"");
      return v == "binpack";
    };
    model::apply_placement_strategy(sc.scheduler, binpack(strategy.member("gpu")),
                                    binpack(strategy.member("cpu")));
  }

  // A YAML boolean written true or false.
  static bool boolean(const Field& f) {
    const std::string v = f.node().IsScalar() ? f.node().Scalar() : "";
    if (v != "true" && v != "false") f.fail("expected true or false");
    return v == "true";
  }

  // numa: true, or {ignoreList: [resource...], reconstructAvailable: bool}: the numa plugin, which
  // KAI's default configuration leaves out.
  void numa(const Field& f, model::SchedulerConfig& config) {
    if (f.is_null()) return;
    if (f.node().IsScalar()) {
      const std::string v = f.node().Scalar();
      if (v != "true" && v != "false")
        f.fail("expected true, false or {ignoreList, reconstructAvailable}, got \"" + v + "\"");
      config.plugins.numa = v == "true";
      return;
    }
    f.expect_map();
    for (const Field& key : f.unknown_members({"ignoreList", "reconstructAvailable"})) {
      diagnostics_.unknown_field(key.where(), key.path());
    }
    config.plugins.numa = true;
    const Field ignore = f.member("ignoreList");
    if (!ignore.is_null()) {
      ignore.expect_sequence();
      for (std::size_t i = 0; i < ignore.size(); ++i)
        config.plugins.numa_ignore.insert(ignore.item(i).string());
    }
    const Field reconstruct = f.member("reconstructAvailable");
    if (!reconstruct.is_null()) config.plugins.numa_reconstruct_available = boolean(reconstruct);
  }

  // fairShare: {kValue, usage: {windowSize, halfLife, queryResolution, fetchInterval}}.
  void fair_share(const Field& f, Scenario& sc) {
    if (f.is_null()) return;
    f.expect_map();
    for (const Field& key : f.unknown_members({"kValue", "usage"})) {
      diagnostics_.unknown_field(key.where(), key.path());
    }
    if (std::optional<double> k = f.member("kValue").optional_number()) {
      // proportion.go New: values <= 0 become 0.
      sc.k_value = std::max(0.0, *k);
    }
    const Field usage = f.member("usage");
    if (usage.is_null()) return;
    usage.expect_map();
    for (const Field& key :
         usage.unknown_members({"windowSize", "halfLife", "queryResolution", "fetchInterval"})) {
      diagnostics_.unknown_field(key.where(), key.path());
    }
    UsageConfig& u = sc.usage;
    u.enabled = true;
    u.window_ms = duration_ms(usage.member("windowSize"), u.window_ms);
    u.half_life_ms = duration_ms(usage.member("halfLife"), u.half_life_ms);
    u.resolution_ms = duration_ms(usage.member("queryResolution"), u.resolution_ms);
    u.fetch_interval_ms = duration_ms(usage.member("fetchInterval"), u.fetch_interval_ms);
    if (u.window_ms <= 0) usage.member("windowSize").fail("must be positive");
    if (u.resolution_ms <= 0) usage.member("queryResolution").fail("must be positive");
    if (u.fetch_interval_ms <= 0) usage.member("fetchInterval").fail("must be positive");
  }

  std::vector<ObjectRef> refs(const Field& list) {
    std::vector<ObjectRef> out;
    if (list.is_null()) return out;
    list.expect_sequence();
    for (std::size_t i = 0; i < list.size(); ++i) {
      const Field entry = list.item(i);
      if (entry.is_map()) {
        ObjectRef r;
        r.where = entry.member("kind").is_null() ? entry.where() : entry.member("kind").where();
        r.path = entry.member("kind").is_null() ? entry.path() : entry.member("kind").path();
        r.kind = entry.member("kind").optional_string().value_or("Pod");
        r.ns = entry.member("namespace").optional_string().value_or("default");
        r.name = entry.member("name").string();
        out.push_back(r);
        continue;
      }
      // A manifest file: delete every object it defines.
      for (const Manifest& m : manifests_of(entry)) {
        const Field f(m.doc, "", &m.file);
        ObjectRef r;
        r.where = entry.where();
        r.path = entry.path();
        r.kind = f.member("kind").string();
        r.ns = f.member("metadata").member("namespace").optional_string().value_or("default");
        r.name = f.member("metadata").member("name").string();
        out.push_back(r);
      }
    }
    return out;
  }

  std::vector<Manifest> manifests_of(const Field& entry) {
    YAML::Node list(YAML::NodeType::Sequence);
    list.push_back(entry.node());
    return manifests(Field(list, entry.path(), files_.front().get()));
  }

  Step step(const Field& f) {
    f.expect_map();
    for (const Field& key : f.unknown_members({"at", "name", "apply", "delete"})) {
      diagnostics_.unknown_field(key.where(), key.path());
    }
    Step s;
    if (f.member("at").is_null()) f.fail("missing required field \"at\"");
    s.at_ms = duration_ms(f.member("at"), 0);
    s.where = f.member("at").where();
    s.path = f.member("at").path();
    s.name = f.member("name").optional_string().value_or("");
    s.apply = manifests(f.member("apply"));
    s.remove = refs(f.member("delete"));
    return s;
  }

  Expectation expectation(const Field& f) {
    f.expect_map();
    for (const Field& key : f.unknown_members({"at", "queues", "pods", "evicted", "nodes"})) {
      diagnostics_.unknown_field(key.where(), key.path());
    }
    Expectation e;
    e.where = f.where();
    if (f.member("at").is_null()) f.fail("missing required field \"at\"");
    e.at_ms = duration_ms(f.member("at"), 0);
    const Field queues = f.member("queues");
    if (!queues.is_null()) {
      queues.expect_map();
      for (const auto& [name, q] : queues.entries()) {
        q.expect_map();
        const Field gpu = q.member("allocatedGpu");
        if (gpu.is_null()) q.fail("missing required field \"allocatedGpu\"");
        e.queues.push_back({name, gpu.number(), q.where(), q.path()});
      }
    }
    const Field pods = f.member("pods");
    if (!pods.is_null()) {
      pods.expect_map();
      for (const auto& [pod, state] : pods.entries()) {
        const std::string want = state.string();
        static const char* kStates[] = {"Pending", "Running", "Releasing", "Deleted", "Succeeded"};
        if (std::find(std::begin(kStates), std::end(kStates), want) == std::end(kStates)) {
          state.fail("expected Pending, Running, Releasing, Deleted or Succeeded, got \"" + want +
                     "\"");
        }
        e.pods[pod] = want;
        e.pod_refs.try_emplace(pod, state.where(), state.path());
      }
    }
    const Field evicted = f.member("evicted");
    if (!evicted.is_null()) {
      evicted.expect_sequence();
      for (std::size_t i = 0; i < evicted.size(); ++i) {
        e.evicted.push_back(evicted.item(i).string());
        e.pod_refs.try_emplace(e.evicted.back(), evicted.item(i).where(), evicted.item(i).path());
      }
    }
    const Field nodes = f.member("nodes");
    if (!nodes.is_null()) {
      nodes.expect_map();
      for (const auto& [pod, node] : nodes.entries()) {
        e.nodes[pod] = node.string();
        e.pod_refs.try_emplace(pod, node.where(), node.path());
      }
    }
    return e;
  }

  fs::path base_;
  Diagnostics& diagnostics_;
  std::vector<std::unique_ptr<std::string>> files_;  // stable addresses for Field
};

}  // namespace

Scenario load_scenario(const std::string& path, Diagnostics& diagnostics) {
  const std::string text = io::read_input_file(path);
  Loader loader(path, fs::path(path).parent_path(), diagnostics);
  return loader.load(text);
}

Scenario load_scenario_text(std::string_view text, const std::string& name,
                            const std::string& base_dir, Diagnostics& diagnostics) {
  Loader loader(name, fs::path(base_dir), diagnostics);
  return loader.load(text);
}

}  // namespace sim::replay
