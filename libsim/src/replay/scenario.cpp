#include "scenario.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "generators.hpp"
#include "trace_csv.hpp"
#include "io/yaml_field.hpp"

namespace sim::replay {
namespace {

namespace fs = std::filesystem;
using io::Field;

constexpr int kSchemaVersion = 1;

std::string read_file(const fs::path& path, const Field& referer) {
  std::ifstream in(path, std::ios::binary);
  if (!in) referer.fail("cannot open " + path.string());
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
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
    for (const Field& key : root.unknown_members({"schema_version", "name", "description", "seed", "schedulePeriod",
                                                  "duration", "podTerminationGracePeriod", "bindDelay", "fairShare", "scheduler", "cluster",
                                                  "manifests", "generators", "trace", "endWhenDrained", "steps", "expect"})) {
      diagnostics_.warn(key.where(), key.path(), "unknown field, ignored");
    }
    const Field version = root.member("schema_version");
    if (version.is_null()) root.fail("missing required field \"schema_version\" (this kaisim reads version 1)");
    if (version.optional_int() != kSchemaVersion) version.fail("unsupported schema_version; this kaisim reads version 1");

    Scenario sc;
    sc.name = root.member("name").optional_string().value_or(fs::path(file).stem().string());
    sc.description = root.member("description").optional_string().value_or("");
    if (std::optional<int> seed = root.member("seed").optional_int()) sc.seed = static_cast<std::uint64_t>(*seed);
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
        diagnostics_.warn(key.where(), key.path(), "unknown field, ignored");
      }
      sc.manifests = expand_node_pools(cluster.member("nodePools"), file, diagnostics_);
    }
    for (Manifest& m : manifests(root.member("manifests"))) sc.manifests.push_back(std::move(m));

    const Field steps = root.member("steps");
    if (!steps.is_null()) {
      steps.expect_sequence();
      for (std::size_t i = 0; i < steps.size(); ++i) sc.steps.push_back(step(steps.item(i)));
    }
    expand_generators(root.member("generators"), sc.seed, sc.duration_ms, file, sc.steps, diagnostics_);
    const Field trace = root.member("trace");
    if (!trace.is_null()) {
      const fs::path path = base_ / trace.string();
      files_.push_back(std::make_unique<std::string>(path.lexically_normal().string()));
      for (Step& s : read_trace_csv(read_file(path, trace), *files_.back(), diagnostics_)) sc.steps.push_back(std::move(s));
    }
    if (const Field drained = root.member("endWhenDrained"); !drained.is_null()) sc.end_when_drained = boolean(drained);
    std::stable_sort(sc.steps.begin(), sc.steps.end(), [](const Step& a, const Step& b) { return a.at_ms < b.at_ms; });

    const Field expect = root.member("expect");
    if (!expect.is_null()) {
      expect.expect_sequence();
      for (std::size_t i = 0; i < expect.size(); ++i) sc.expectations.push_back(expectation(expect.item(i)));
    }
    for (const auto& f : files_) sc.files.push_back(*f);
    return sc;
  }

 private:
  static void require_kind(const Field& manifest) {
    if (!manifest.member("kind").optional_string().value_or("").empty()) return;
    // yaml-cpp reads a merge key (`<<: *anchor`) as an ordinary key: say so when that is why.
    const bool merged = manifest.node().IsMap() && manifest.node()["<<"].IsDefined();
    manifest.fail(std::string("missing required field \"kind\"") + (merged ? " (YAML merge keys `<<` are not supported)" : ""));
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
      diagnostics_.warn(key.where(), key.path(), "unknown field, ignored");
    }
    numa(f.member("numa"), sc.scheduler);
    if (const Field pod_affinity = f.member("podAffinity"); !pod_affinity.is_null()) {
      sc.scheduler.plugins.pod_affinity = boolean(pod_affinity);
    }
    const Field strategy = f.member("placementStrategy");
    if (strategy.is_null()) return;
    strategy.expect_map();
    for (const Field& key : strategy.unknown_members({"gpu", "cpu"})) diagnostics_.warn(key.where(), key.path(), "unknown field, ignored");
    auto binpack = [](const Field& value) {
      const std::string v = value.optional_string().value_or("binpack");
      if (v != "binpack" && v != "spread") value.fail("expected binpack or spread, got \"" + v + "\"");
      return v == "binpack";
    };
    model::apply_placement_strategy(sc.scheduler, binpack(strategy.member("gpu")), binpack(strategy.member("cpu")));
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
      if (v != "true" && v != "false") f.fail("expected true, false or {ignoreList, reconstructAvailable}, got \"" + v + "\"");
      config.plugins.numa = v == "true";
      return;
    }
    f.expect_map();
    for (const Field& key : f.unknown_members({"ignoreList", "reconstructAvailable"})) {
      diagnostics_.warn(key.where(), key.path(), "unknown field, ignored");
    }
    config.plugins.numa = true;
    const Field ignore = f.member("ignoreList");
    if (!ignore.is_null()) {
      ignore.expect_sequence();
      for (std::size_t i = 0; i < ignore.size(); ++i) config.plugins.numa_ignore.insert(ignore.item(i).string());
    }
    const Field reconstruct = f.member("reconstructAvailable");
    if (!reconstruct.is_null()) config.plugins.numa_reconstruct_available = boolean(reconstruct);
  }

  // fairShare: {kValue, usage: {windowSize, halfLife, queryResolution, fetchInterval}}.
  void fair_share(const Field& f, Scenario& sc) {
    if (f.is_null()) return;
    f.expect_map();
    for (const Field& key : f.unknown_members({"kValue", "usage"})) {
      diagnostics_.warn(key.where(), key.path(), "unknown field, ignored");
    }
    if (std::optional<double> k = f.member("kValue").optional_number()) {
      // proportion.go New: values <= 0 become 0.
      sc.k_value = std::max(0.0, *k);
    }
    const Field usage = f.member("usage");
    if (usage.is_null()) return;
    usage.expect_map();
    for (const Field& key : usage.unknown_members({"windowSize", "halfLife", "queryResolution", "fetchInterval"})) {
      diagnostics_.warn(key.where(), key.path(), "unknown field, ignored");
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
      diagnostics_.warn(key.where(), key.path(), "unknown field, ignored");
    }
    Step s;
    if (f.member("at").is_null()) f.fail("missing required field \"at\"");
    s.at_ms = duration_ms(f.member("at"), 0);
    s.name = f.member("name").optional_string().value_or("");
    s.apply = manifests(f.member("apply"));
    s.remove = refs(f.member("delete"));
    return s;
  }

  Expectation expectation(const Field& f) {
    f.expect_map();
    for (const Field& key : f.unknown_members({"at", "queues", "pods", "evicted", "nodes"})) {
      diagnostics_.warn(key.where(), key.path(), "unknown field, ignored");
    }
    Expectation e;
    e.where = f.where();
    if (f.member("at").is_null()) f.fail("missing required field \"at\"");
    e.at_ms = duration_ms(f.member("at"), 0);
    const Field queues = f.member("queues");
    if (!queues.is_null()) {
      queues.expect_map();
      for (auto it = queues.node().begin(); it != queues.node().end(); ++it) {
        const Field q = queues.member(it->first.Scalar());
        q.expect_map();
        const Field gpu = q.member("allocatedGpu");
        if (gpu.is_null()) q.fail("missing required field \"allocatedGpu\"");
        e.queues.push_back({it->first.Scalar(), gpu.number()});
      }
    }
    const Field pods = f.member("pods");
    if (!pods.is_null()) {
      pods.expect_map();
      for (auto it = pods.node().begin(); it != pods.node().end(); ++it) {
        const Field state = pods.member(it->first.Scalar());
        const std::string want = state.string();
        static const char* kStates[] = {"Pending", "Running", "Releasing", "Deleted", "Succeeded"};
        if (std::find(std::begin(kStates), std::end(kStates), want) == std::end(kStates)) {
          state.fail("expected Pending, Running, Releasing, Deleted or Succeeded, got \"" + want + "\"");
        }
        e.pods[it->first.Scalar()] = want;
      }
    }
    const Field evicted = f.member("evicted");
    if (!evicted.is_null()) {
      evicted.expect_sequence();
      for (std::size_t i = 0; i < evicted.size(); ++i) e.evicted.push_back(evicted.item(i).string());
    }
    const Field nodes = f.member("nodes");
    if (!nodes.is_null()) {
      nodes.expect_map();
      for (auto it = nodes.node().begin(); it != nodes.node().end(); ++it) {
        e.nodes[it->first.Scalar()] = nodes.member(it->first.Scalar()).string();
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
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCode::IO, path + ": cannot open");
  std::stringstream text;
  text << in.rdbuf();
  Loader loader(path, fs::path(path).parent_path(), diagnostics);
  return loader.load(text.str());
}

Scenario load_scenario_text(std::string_view text, const std::string& name, const std::string& base_dir,
                            Diagnostics& diagnostics) {
  Loader loader(name, fs::path(base_dir), diagnostics);
  return loader.load(text);
}

}  // namespace sim::replay
