#include "sim/api/live_verify.hpp"

#include <chrono>
#include <cstdio>
#include <set>
#include <thread>

#include "live/kube_api.hpp"
#include "live/manifests.hpp"
#include "live/status_prediction.hpp"
#include "replay/generators.hpp"
#include "replay/scenario.hpp"
#include "sim/api/replay.hpp"

namespace sim::api {

using live::ClusterError;
using live::ConnectionOptions;
using live::DriftRow;
using live::HttpResponse;
using live::KubeApi;
using live::ordered_json;
using live::ResourceInfo;
namespace {

using Clock = std::chrono::steady_clock;

// Where a kind named by a scenario's delete lives when no manifest of the scenario says.
std::string default_api_version(const std::string& kind) {
  if (kind == "Queue") return "scheduling.run.ai/v2";
  if (kind == "PodGroup") return "scheduling.run.ai/v2alpha2";
  if (kind == "PriorityClass") return "scheduling.k8s.io/v1";
  if (kind == "ResourceClaim" || kind == "ResourceClaimTemplate" || kind == "DeviceClass" ||
      kind == "ResourceSlice") {
    return "resource.k8s.io/v1";
  }
  return "v1";
}

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", s);
  return buf;
}

std::string tenths(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", s);
  return buf;
}

class Verifier {
 public:
  explicit Verifier(const ConnectionOptions& connection) : api_(connection) {}

  // Server-side apply of one scenario object; throws when the cluster refuses it.
  std::string apply(const YAML::Node& doc) {
    ordered_json object = live::yaml_to_json(doc);
    const std::string kind = object.value("kind", ""), version = object.value("apiVersion", "");
    versions_[kind] = version;
    const std::optional<ResourceInfo> r = api_.resource(version, kind);
    const std::string name = object["metadata"].value("name", "");
    if (!r)
      throw ClusterError(
          404, "NotFound",
          api_.http().access().server + ": the server does not serve " + kind + " in " + version);
    std::string ns;
    if (r->namespaced) {
      ns = object["metadata"].value("namespace", "default");
      object["metadata"]["namespace"] = ns;
    }
    const HttpResponse resp = api_.apply(*r, object, "kaisim", false, false);
    if (resp.status != 200 && resp.status != 201)
      api_.http().fail("PATCH", KubeApi::path(*r, ns, name), resp);
    return "apply " + kind + " " + (ns.empty() ? "" : ns + "/") + name + ": " +
           (resp.status == 201 ? "created" : "applied");
  }

  std::string remove(const replay::ObjectRef& ref) {
    const std::string version =
        versions_.contains(ref.kind) ? versions_[ref.kind] : default_api_version(ref.kind);
    const std::optional<ResourceInfo> r = api_.resource(version, ref.kind);
    const std::string what = ref.kind + " " + (ref.ns.empty() ? "" : ref.ns + "/") + ref.name;
    if (!r) return "delete " + what + ": not served";
    return "delete " + what + ": " +
           (api_.remove(*r, r->namespaced ? ref.ns : "", ref.name, false) ? "deleted"
                                                                          : "not found");
  }

  std::map<std::string, io::QueueStatus> observed_queues() {
    if (!queues_) {
      queues_ = api_.resource("scheduling.run.ai/v2", "Queue");
      if (!queues_)
        throw ClusterError(
            404, "NotFound",
            api_.http().access().server + ": Queues are not served (KAI's CRDs are not installed)");
    }
    return live::observed_queue_status(api_.list(*queues_).items);
  }

 private:
  KubeApi api_;
  std::map<std::string, std::string> versions_;  // kind -> apiVersion, from the scenario's objects
  std::optional<ResourceInfo> queues_;
};

}  // namespace

std::size_t VerifyReport::drifting() const {
  std::size_t n = 0;
  for (const VerifyStep& s : steps) n += s.drift ? 1 : 0;
  return n;
}

std::string VerifyReport::step_text(const VerifyStep& step) {
  std::string out = "step " + std::to_string(step.index) + " at " + seconds(step.at_s) + " (" +
                    step.name + "): " + (step.drift ? "DRIFT" : "ok") + ", compared until " +
                    tenths(step.compared_at_s) + "\n";
  for (const DriftRow& r : step.rows) {
    if (!r.drift) continue;
    out += "  " + r.queue + " status." + r.field + " " + r.resource + ": predicted " + r.predicted +
           ", observed " + r.observed + "\n";
  }
  return out;
}

std::string VerifyReport::json() const {
  ordered_json out = ordered_json::object();
  out["schema_version"] = 1;
  out["steps"] = ordered_json::array();
  for (const VerifyStep& s : steps) {
    ordered_json e = ordered_json::object();
    e["index"] = s.index;
    e["name"] = s.name;
    e["at_s"] = s.at_s;
    e["compared_at_s"] = s.compared_at_s;
    e["actions"] = s.actions;
    e["drift"] = s.drift;
    ordered_json rows = ordered_json::array();
    for (const DriftRow& r : s.rows) {
      rows.push_back({{"queue", r.queue},
                      {"field", r.field},
                      {"resource", r.resource},
                      {"predicted", r.predicted},
                      {"observed", r.observed},
                      {"drift", r.drift}});
    }
    e["rows"] = rows;
    out["steps"].push_back(e);
  }
  out["drifting"] = drifting();
  return out.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

VerifyReport verify_live(const ConnectionOptions& connection, const VerifyOptions& options,
                         const std::function<void(const VerifyStep&)>& on_step,
                         Diagnostics& diagnostics) {
  const replay::Scenario sc = replay::load_scenario(options.scenario, diagnostics);
  ReplayOptions replay_options;
  replay_options.scenario_path = options.scenario;
  const ReplayResult predicted = run_replay(replay_options, diagnostics);
  std::set<std::string> scenario_queues;
  for (const QueueStatusSample& s : predicted.queue_status) {
    for (const auto& [q, status] : s.queues) scenario_queues.insert(q);
  }

  Verifier cluster(connection);
  for (const replay::Manifest& m : sc.manifests) {
    if (m.doc["kind"].IsDefined() && m.doc["kind"].Scalar() == "Node") {
      diagnostics.warnings.push_back(m.file + ": Node " + m.doc["metadata"]["name"].Scalar() +
                                     " not applied: verify-live uses the cluster's own nodes");
      continue;
    }
    cluster.apply(m.doc);
  }

  VerifyReport report;
  const Clock::time_point t0 = Clock::now();
  auto since = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  auto sleep_until = [&](double s) {
    const double wait = s - since();
    if (wait > 0) std::this_thread::sleep_for(std::chrono::duration<double>(wait));
  };
  for (std::size_t i = 0; i < sc.steps.size(); ++i) {
    const replay::Step& step = sc.steps[i];
    VerifyStep result;
    result.index = i + 1;
    result.name = step.name;
    result.at_s = static_cast<double>(step.at_ms) / 1000;
    sleep_until(result.at_s);
    for (const replay::ObjectRef& r : step.remove) result.actions.push_back(cluster.remove(r));
    for (const replay::Manifest& m : step.apply) result.actions.push_back(cluster.apply(m.doc));
    for (const replay::PodShape& pod : step.pods)
      result.actions.push_back(cluster.apply(replay::bare_pod_manifest(pod)));

    // The prediction for the end of this step: the replay's last status before the next step.
    const std::int64_t end_ms = i + 1 < sc.steps.size() ? sc.steps[i + 1].at_ms : sc.duration_ms;
    const QueueStatusSample* last = nullptr;
    for (const QueueStatusSample& s : predicted.queue_status) {
      if (s.at_ms < end_ms) last = &s;
    }
    std::map<std::string, io::QueueStatus> want;
    for (const std::string& q : scenario_queues)
      want[q] = last && last->queues.contains(q) ? last->queues.at(q) : io::QueueStatus{};
    const double from = std::max(result.at_s, last ? static_cast<double>(last->at_ms) / 1000 : 0.0);
    const double until = std::min(from + options.settle_s, static_cast<double>(end_ms) / 1000);
    sleep_until(from);
    std::map<std::string, io::QueueStatus> seen;
    for (;;) {
      const std::map<std::string, io::QueueStatus> all = cluster.observed_queues();
      seen.clear();
      for (const std::string& q : scenario_queues)
        seen[q] = all.contains(q) ? all.at(q) : io::QueueStatus{};
      if (seen == want || since() >= until) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    result.compared_at_s = since();
    result.rows = live::status_rows(want, seen, result.compared_at_s);
    result.drift = seen != want;
    if (on_step) on_step(result);
    report.steps.push_back(std::move(result));
  }
  return report;
}

}  // namespace sim::api
