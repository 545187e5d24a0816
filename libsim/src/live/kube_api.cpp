#include "kube_api.hpp"

#include <cctype>

namespace sim::live {
namespace {

constexpr int kPageSize = 500;

ordered_json parse_body(const HttpClient& http, const std::string& method, const std::string& path,
                        const HttpResponse& r) {
  ordered_json body = ordered_json::parse(r.body, nullptr, false);
  if (body.is_discarded() || !body.is_object()) {
    throw ClusterError(static_cast<int>(r.status), "",
                       http.access().server + ": " + method + " " + path.substr(0, path.find('?')) +
                           ": the answer is not a JSON object");
  }
  return body;
}

}  // namespace

std::string url_escape(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  return out;
}

KubeApi::KubeApi(const ConnectionOptions& options) : http_(load_kubeconfig(options), options) {}

const std::map<std::string, ResourceInfo>* KubeApi::discover(const std::string& api_version) {
  auto cached = discovery_.find(api_version);
  if (cached != discovery_.end()) return cached->second ? &*cached->second : nullptr;
  const std::string path =
      api_version.find('/') == std::string::npos ? "/api/" + api_version : "/apis/" + api_version;
  HttpResponse r = http_.request("GET", path);
  if (r.status == 404 || r.status == 503) {  // 503: an aggregated API that is down
    discovery_[api_version] = std::nullopt;
    return nullptr;
  }
  if (r.status != 200) http_.fail("GET", path, r);
  const ordered_json body = parse_body(http_, "GET", path, r);
  std::map<std::string, ResourceInfo> kinds;
  std::map<std::string, bool> with_status;
  if (body.contains("resources") && body["resources"].is_array()) {
    for (const ordered_json& res : body["resources"]) {
      const std::string name = res.value("name", "");
      const std::size_t slash = name.find('/');
      if (slash != std::string::npos) {
        if (name.substr(slash + 1) == "status") with_status[name.substr(0, slash)] = true;
        continue;
      }
      ResourceInfo info{api_version, res.value("kind", ""), name, res.value("namespaced", false),
                        false};
      if (!info.kind.empty()) kinds.emplace(info.kind, info);
    }
  }
  for (auto& [kind, info] : kinds) info.has_status = with_status[info.plural];
  return &*(discovery_[api_version] = std::move(kinds));
}

std::optional<ResourceInfo> KubeApi::resource(const std::string& api_version,
                                              const std::string& kind) {
  const std::map<std::string, ResourceInfo>* kinds = discover(api_version);
  if (kinds == nullptr) return std::nullopt;
  auto it = kinds->find(kind);
  if (it == kinds->end()) return std::nullopt;
  return it->second;
}

std::optional<ResourceInfo> KubeApi::resource_any(const std::vector<std::string>& api_versions,
                                                  const std::string& kind) {
  for (const std::string& v : api_versions) {
    if (std::optional<ResourceInfo> r = resource(v, kind)) return r;
  }
  return std::nullopt;
}

std::string KubeApi::path(const ResourceInfo& r, const std::string& ns, const std::string& name) {
  std::string p = r.api_version.find('/') == std::string::npos ? "/api/" + r.api_version
                                                               : "/apis/" + r.api_version;
  if (r.namespaced && !ns.empty()) p += "/namespaces/" + url_escape(ns);
  p += "/" + r.plural;
  if (!name.empty()) p += "/" + url_escape(name);
  return p;
}

ListResult KubeApi::list(const ResourceInfo& r) {
  ListResult out;
  std::string token;
  do {
    std::string p = path(r, "") + "?limit=" + std::to_string(kPageSize);
    if (!token.empty()) p += "&continue=" + url_escape(token);
    HttpResponse resp = http_.request("GET", p);
    if (resp.status == 410 && !token.empty()) {
      // The continue token expired (the list took longer than etcd keeps it): start over.
      out = {};
      token.clear();
      continue;
    }
    if (resp.status != 200) http_.fail("GET", p, resp);
    ordered_json body = parse_body(http_, "GET", p, resp);
    if (body.contains("items") && body["items"].is_array()) {
      for (ordered_json& item : body["items"]) {
        if (!item.is_object()) continue;
        // A LIST's items carry no kind; the snapshot reader needs it.
        ordered_json typed = ordered_json::object();
        typed["apiVersion"] = r.api_version;
        typed["kind"] = r.kind;
        for (auto it = item.begin(); it != item.end(); ++it) {
          if (it.key() != "apiVersion" && it.key() != "kind")
            typed[it.key()] = std::move(it.value());
        }
        out.items.push_back(std::move(typed));
      }
    }
    const ordered_json& meta =
        body.contains("metadata") ? body["metadata"] : ordered_json::object();
    token = meta.is_object() ? meta.value("continue", "") : "";
    if (meta.is_object())
      out.resource_version = meta.value("resourceVersion", out.resource_version);
  } while (!token.empty());
  return out;
}

std::optional<ordered_json> KubeApi::get(const ResourceInfo& r, const std::string& ns,
                                         const std::string& name) {
  const std::string p = path(r, ns, name);
  HttpResponse resp = http_.request("GET", p);
  if (resp.status == 404) return std::nullopt;
  if (resp.status != 200) http_.fail("GET", p, resp);
  return parse_body(http_, "GET", p, resp);
}

HttpResponse KubeApi::apply(const ResourceInfo& r, const ordered_json& object,
                            const std::string& field_manager, bool dry_run, bool force) {
  const ordered_json& meta = object["metadata"];
  std::string p =
      path(r, meta.value("namespace", r.namespaced ? "default" : ""), meta.value("name", "")) +
      "?fieldManager=" + url_escape(field_manager);
  if (dry_run) p += "&dryRun=All";
  if (force) p += "&force=true";
  return http_.request("PATCH", p, object.dump(), "application/apply-patch+yaml");
}

bool KubeApi::remove(const ResourceInfo& r, const std::string& ns, const std::string& name,
                     bool dry_run) {
  std::string p = path(r, ns, name);
  if (dry_run) p += "?dryRun=All";
  HttpResponse resp = http_.request("DELETE", p);
  if (resp.status == 404) return false;
  if (resp.status != 200 && resp.status != 202) http_.fail("DELETE", p, resp);
  return true;
}

std::string KubeApi::watch(const ResourceInfo& r, const std::string& resource_version,
                           double timeout_s, const std::function<bool(const WatchEvent&)>& on_event,
                           const std::function<bool()>& keep_going) {
  const long server_timeout = std::max(1L, static_cast<long>(timeout_s));
  const std::string p = path(r, "") + "?watch=1&allowWatchBookmarks=true&timeoutSeconds=" +
                        std::to_string(server_timeout) +
                        "&resourceVersion=" + url_escape(resource_version);
  std::string last = resource_version;
  bool gone = false;
  std::string error_message;
  const long status = http_.stream(
      p,
      [&](std::string_view line) {
        if (line.empty()) return true;
        ordered_json ev = ordered_json::parse(line, nullptr, false);
        if (!ev.is_object()) return true;
        WatchEvent event{ev.value("type", ""),
                         ev.contains("object") ? std::move(ev["object"]) : ordered_json::object()};
        if (event.type == "ERROR") {
          // A Status object: 410 Gone when the resourceVersion is too old.
          if (event.object.value("code", 0) == 410) gone = true;
          error_message = event.object.value("message", "");
          return false;
        }
        if (event.object.is_object() && event.object.contains("metadata") &&
            event.object["metadata"].is_object()) {
          last = event.object["metadata"].value("resourceVersion", last);
          event.object["apiVersion"] = r.api_version;
          event.object["kind"] = r.kind;
        }
        return on_event(event);
      },
      static_cast<double>(server_timeout) + 15.0, keep_going);
  if (status == 0 && !keep_going()) return last;
  if (status == 0)
    throw ClusterError(0, "", http_.access().server + ": watch of " + r.plural + ": no connection");
  if (gone)
    throw ClusterError(410, "Expired",
                       http_.access().server + ": watch of " + r.plural + ": " + error_message);
  if (!error_message.empty()) {
    throw ClusterError(static_cast<int>(status), "",
                       http_.access().server + ": watch of " + r.plural + ": " + error_message);
  }
  return last;
}

}  // namespace sim::live
