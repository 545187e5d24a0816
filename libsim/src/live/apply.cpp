#include "sim/live/apply.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "kube_api.hpp"
#include "manifests.hpp"

namespace sim::live {
namespace {

// Order of application: what others need first (kubectl leaves the order to the user).
int kind_rank(const std::string& kind) {
  if (kind == "Namespace" || kind == "CustomResourceDefinition") return 0;
  if (kind == "PriorityClass") return 1;
  if (kind == "RuntimeClass") return 2;
  if (kind == "Queue") return 3;
  if (kind == "ValidatingAdmissionPolicy" || kind == "MutatingAdmissionPolicy") return 4;
  if (kind == "ValidatingAdmissionPolicyBinding" || kind == "MutatingAdmissionPolicyBinding")
    return 5;
  return 6;
}

// A queue's depth among the queues being applied: parents (depth 0 when its parent is not
// among them) come before their children.
std::map<std::string, int> queue_depths(const std::vector<ManifestObject>& objects) {
  std::map<std::string, std::string> parent;
  for (const ManifestObject& m : objects) {
    if (m.kind != "Queue") continue;
    const ordered_json& spec =
        m.object.contains("spec") ? m.object["spec"] : ordered_json::object();
    parent[m.name] =
        spec.is_object() && spec.contains("parentQueue") && spec["parentQueue"].is_string()
            ? spec["parentQueue"].get<std::string>()
            : "";
  }
  std::map<std::string, int> depth;
  for (const auto& [name, p] : parent) {
    int d = 0;
    std::set<std::string> seen{name};
    for (std::string cur = p; parent.contains(cur) && seen.insert(cur).second; cur = parent[cur])
      ++d;
    depth[name] = d;
  }
  return depth;
}

// What apply may change, for comparing before and after: not the server's bookkeeping, not status.
ordered_json comparable(ordered_json o) {
  o.erase("status");
  if (o.contains("metadata") && o["metadata"].is_object()) {
    for (const char* k :
         {"managedFields", "resourceVersion", "generation", "creationTimestamp", "uid"})
      o["metadata"].erase(k);
  }
  return o;
}

std::string status_message(const HttpResponse& r) {
  const ordered_json s = ordered_json::parse(r.body, nullptr, false);
  return s.is_object() && s.contains("message") && s["message"].is_string()
             ? s["message"].get<std::string>()
             : r.body.substr(0, 300);
}

// "conflict with "kubectl" using scheduling.run.ai/v2: .spec.resources.gpu.quota" per field.
std::vector<std::string> conflicts(const HttpResponse& r) {
  std::vector<std::string> out;
  const ordered_json s = ordered_json::parse(r.body, nullptr, false);
  if (!s.is_object() || !s.contains("details") || !s["details"].is_object()) return out;
  const ordered_json& details = s["details"];
  if (!details.contains("causes") || !details["causes"].is_array()) return out;
  for (const ordered_json& c : details["causes"]) {
    if (!c.is_object()) continue;
    out.push_back(c.value("field", "") + " (" + c.value("message", "") + ")");
  }
  return out;
}

std::string object_name(const AppliedObject& o) {
  return o.kind + "/" + (o.ns.empty() ? "" : o.ns + "/") + o.name;
}

}  // namespace

int ApplyReport::exit_code() const {
  if (!error.empty()) return 2;
  for (const AppliedObject& o : objects) {
    if (o.outcome == "conflict" || o.outcome == "rejected") return 1;
  }
  return 0;
}

std::string ApplyReport::text() const {
  std::string out;
  if (dry_run)
    out += "dry run (server-side, dryRun=All): the cluster is not changed; --yes applies\n";
  std::size_t width = 0;
  for (const AppliedObject& o : objects) width = std::max(width, object_name(o).size());
  std::map<std::string, int> counts;
  for (const AppliedObject& o : objects) {
    ++counts[o.outcome];
    std::string name = object_name(o);
    name.resize(width + 2, ' ');
    std::string line = name + o.outcome;
    if (!o.message.empty()) line += ": " + o.message;
    out += line + "\n";
    for (const std::string& d : o.details) out += std::string(width + 4, ' ') + d + "\n";
  }
  out += std::to_string(objects.size()) + " objects: " + std::to_string(counts["created"]) +
         " created, " + std::to_string(counts["changed"]) + " changed, " +
         std::to_string(counts["unchanged"]) + " unchanged, " + std::to_string(counts["conflict"]) +
         " conflicts, " + std::to_string(counts["rejected"]) + " rejected" +
         (dry_run ? " (dry run)" : "") + "\n";
  return out;
}

std::string ApplyReport::json() const {
  ordered_json out = ordered_json::object();
  out["schema_version"] = 1;
  out["dryRun"] = dry_run;
  out["objects"] = ordered_json::array();
  std::map<std::string, int> counts{
      {"created", 0}, {"changed", 0}, {"unchanged", 0}, {"conflict", 0}, {"rejected", 0}};
  for (const AppliedObject& o : objects) {
    ++counts[o.outcome];
    ordered_json e = ordered_json::object();
    e["kind"] = o.kind;
    e["apiVersion"] = o.api_version;
    e["namespace"] = o.ns.empty() ? ordered_json(nullptr) : ordered_json(o.ns);
    e["name"] = o.name;
    e["file"] = o.file;
    e["outcome"] = o.outcome;
    e["details"] = o.details;
    e["message"] = o.message.empty() ? ordered_json(nullptr) : ordered_json(o.message);
    out["objects"].push_back(e);
  }
  out["counts"] = counts;
  out["error"] = error.empty() ? ordered_json(nullptr) : ordered_json(error);
  return out.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

ApplyReport apply_manifests(const ConnectionOptions& connection, const ApplyOptions& options,
                            Diagnostics& diagnostics) {
  std::vector<ManifestObject> objects = read_manifests(options.paths, diagnostics);
  {
    std::map<std::string, std::string> seen;  // identity -> file
    for (const ManifestObject& m : objects) {
      const std::string id = m.api_version.substr(0, m.api_version.find('/')) + "/" + m.kind + "/" +
                             m.ns + "/" + m.name;
      auto [it, fresh] = seen.emplace(id, m.file);
      if (!fresh)
        throw InputError({m.file, 0, 0}, "",
                         m.kind + " " + m.name + " is also defined at " + it->second);
    }
  }
  const std::map<std::string, int> depth = queue_depths(objects);
  std::vector<std::size_t> order(objects.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const int ra = kind_rank(objects[a].kind), rb = kind_rank(objects[b].kind);
    if (ra != rb) return ra < rb;
    if (ra == 3) return depth.at(objects[a].name) < depth.at(objects[b].name);
    return false;
  });

  ApplyReport report;
  report.dry_run = options.dry_run;
  try {
    KubeApi api(connection);
    for (std::size_t i : order) {
      const ManifestObject& m = objects[i];
      AppliedObject result{m.kind, m.api_version, m.ns, m.name, m.file, "", {}, ""};
      std::optional<ResourceInfo> r = api.resource(m.api_version, m.kind);
      if (!r) {
        result.outcome = "rejected";
        result.message =
            "the server does not serve " + m.kind + " in " + m.api_version +
            (m.kind == "Queue" || m.kind == "PodGroup" ? " (are KAI's CRDs installed?)" : "");
        report.objects.push_back(std::move(result));
        continue;
      }
      ordered_json body = m.object;
      if (r->namespaced && m.ns.empty()) {
        result.ns = "default";
        body["metadata"]["namespace"] = "default";
      }
      if (!r->namespaced) {
        result.ns.clear();
        if (body["metadata"].contains("namespace")) body["metadata"].erase("namespace");
      }
      const std::optional<ordered_json> before = api.get(*r, result.ns, m.name);
      const HttpResponse resp =
          api.apply(*r, body, options.field_manager, options.dry_run, options.force_conflicts);
      if (resp.status == 200 || resp.status == 201) {
        const ordered_json after = ordered_json::parse(resp.body, nullptr, false);
        if (!before) {
          result.outcome = "created";
        } else {
          result.details = changed_fields(comparable(*before), comparable(after), "");
          result.outcome = result.details.empty() ? "unchanged" : "changed";
        }
      } else if (resp.status == 409) {
        result.outcome = "conflict";
        result.message =
            status_message(resp) +
            (options.force_conflicts ? "" : " (not applied; --force-conflicts takes them over)");
        result.details = conflicts(resp);
      } else if (resp.status == 401 ||
                 (resp.status == 403 &&
                  status_message(resp).find(" cannot ") != std::string::npos)) {
        api.http().fail("PATCH", KubeApi::path(*r, result.ns, m.name),
                        resp);  // credentials or RBAC: stop here
      } else if (resp.status >= 400 && resp.status < 500) {
        result.outcome = "rejected";
        result.message = status_message(resp);
      } else {
        api.http().fail("PATCH", KubeApi::path(*r, result.ns, m.name), resp);
      }
      report.objects.push_back(std::move(result));
    }
  } catch (const ClusterError& e) {
    report.error = e.what();
  }
  return report;
}

}  // namespace sim::live
