#pragma once
// Private: the Kubernetes REST API on top of HttpClient: discovery of where each kind lives,
// GET, paginated LIST, server-side apply, DELETE, status writes and WATCH, with JSON bodies.

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "http_client.hpp"

namespace sim::live {

using nlohmann::ordered_json;

/// Where a kind is served.
struct ResourceInfo {
  std::string api_version;  ///< "v1", "scheduling.run.ai/v2"
  std::string kind;
  std::string plural;  ///< "pods", "queues"
  bool namespaced = false;
  bool has_status = false;  ///< a status subresource
};

/// One LIST: the items (with kind and apiVersion filled in) and the list's resourceVersion.
struct ListResult {
  std::vector<ordered_json> items;
  std::string resource_version;
};

/// One watch event: ADDED, MODIFIED, DELETED, BOOKMARK or ERROR, and the object.
struct WatchEvent {
  std::string type;
  ordered_json object;
};

class KubeApi {
 public:
  explicit KubeApi(const ConnectionOptions& options);

  HttpClient& http() { return http_; }
  /// Where `kind` of `api_version` is served; nullopt when the server does not serve it (no CRD,
  /// or an API version that is off). Discovery answers are cached.
  std::optional<ResourceInfo> resource(const std::string& api_version, const std::string& kind);
  /// The first of `api_versions` (preferred first) that serves `kind`.
  std::optional<ResourceInfo> resource_any(const std::vector<std::string>& api_versions,
                                           const std::string& kind);

  /// /api/v1/namespaces/NS/pods (NAME appended when given); `ns` empty: all namespaces.
  static std::string path(const ResourceInfo& r, const std::string& ns,
                          const std::string& name = {});

  /// Every object of the resource in all namespaces, page by page (500 a page).
  ListResult list(const ResourceInfo& r);
  /// The object, or nullopt for 404.
  std::optional<ordered_json> get(const ResourceInfo& r, const std::string& ns,
                                  const std::string& name);
  /// Server-side apply (PATCH application/apply-patch+yaml) as `field_manager`; the answer as it
  /// came (2xx with the object, 409 for a conflict, ...): the caller decides.
  HttpResponse apply(const ResourceInfo& r, const ordered_json& object,
                     const std::string& field_manager, bool dry_run, bool force);
  /// DELETE; true when the object existed. `grace_s` < 0: the object's own grace period.
  bool remove(const ResourceInfo& r, const std::string& ns, const std::string& name, bool dry_run);
  /// Watches from `resource_version` until `on_event` returns false, the server ends the watch
  /// (after about `timeout_s`), or `keep_going` turns false. Returns the last resourceVersion
  /// seen; throws ClusterError on 410 Gone (the caller lists again) and on refused requests.
  std::string watch(const ResourceInfo& r, const std::string& resource_version, double timeout_s,
                    const std::function<bool(const WatchEvent&)>& on_event,
                    const std::function<bool()>& keep_going);

 private:
  const std::map<std::string, ResourceInfo>* discover(const std::string& api_version);
  HttpClient http_;
  std::map<std::string, std::optional<std::map<std::string, ResourceInfo>>>
      discovery_;  // by apiVersion, by kind
};

/// `s` percent-encoded for a URL path segment or query value.
std::string url_escape(const std::string& s);

}  // namespace sim::live
