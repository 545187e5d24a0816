#include "cluster_read.hpp"

#include <algorithm>

#include "sim/live/snapshot.hpp"

namespace sim::live {
namespace {

std::string meta(const ordered_json& o, const char* key) {
  if (!o.contains("metadata") || !o["metadata"].is_object()) return {};
  const ordered_json& m = o["metadata"];
  return m.contains(key) && m[key].is_string() ? m[key].get<std::string>() : std::string();
}

std::size_t kind_rank(const std::string& kind) {
  const std::vector<SnapshotKind>& kinds = snapshot_kinds();
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    if (kinds[i].kind == kind) return i;
  }
  return kinds.size();
}

}  // namespace

const std::vector<SnapshotKind>& snapshot_kinds() {
  static const std::vector<SnapshotKind> kinds = {
      {"Node", {"v1"}},
      {"PriorityClass", {"scheduling.k8s.io/v1"}},
      {"Queue", {"scheduling.run.ai/v2"}},
      {"Topology", {"kai.scheduler/v1alpha1"}},
      {"NodeResourceTopology", {"topology.node.k8s.io/v1alpha2"}},
      {"DeviceClass", {"resource.k8s.io/v1", "resource.k8s.io/v1beta2", "resource.k8s.io/v1beta1"}},
      {"ResourceSlice",
       {"resource.k8s.io/v1", "resource.k8s.io/v1beta2", "resource.k8s.io/v1beta1"}},
      {"PodGroup", {"scheduling.run.ai/v2alpha2"}},
      {"Pod", {"v1"}},
      {"BindRequest", {"scheduling.run.ai/v1alpha2"}},
      {"ResourceClaim",
       {"resource.k8s.io/v1", "resource.k8s.io/v1beta2", "resource.k8s.io/v1beta1"}},
      {"ResourceClaimTemplate",
       {"resource.k8s.io/v1", "resource.k8s.io/v1beta2", "resource.k8s.io/v1beta1"}},
  };
  return kinds;
}

void trim_object(ordered_json& object) {
  if (object.contains("metadata") && object["metadata"].is_object())
    object["metadata"].erase("managedFields");
}

void sort_objects(std::vector<ordered_json>& items) {
  std::stable_sort(items.begin(), items.end(), [](const ordered_json& a, const ordered_json& b) {
    const std::size_t ka = kind_rank(a.value("kind", "")), kb = kind_rank(b.value("kind", ""));
    if (ka != kb) return ka < kb;
    if (a.value("kind", "") != b.value("kind", ""))
      return a.value("kind", "") < b.value("kind", "");
    const std::string na = meta(a, "namespace"), nb = meta(b, "namespace");
    if (na != nb) return na < nb;
    return meta(a, "name") < meta(b, "name");
  });
}

ClusterObjects read_cluster(KubeApi& api, Diagnostics& diagnostics) {
  ClusterObjects out;
  for (const SnapshotKind& k : snapshot_kinds()) {
    std::optional<ResourceInfo> r = api.resource_any(k.api_versions, k.kind);
    if (!r) {
      // Core kinds are always served; the others need a CRD or an API group turned on.
      if (k.kind == "Queue" || k.kind == "PodGroup" || k.kind == "BindRequest") {
        diagnostics.warnings.push_back(
            api.http().access().server + ": " + k.kind + " (" + k.api_versions.front() +
            ") is not served: KAI's CRDs are not installed; no " + k.kind + " objects");
      }
      continue;
    }
    ListResult list = api.list(*r);
    for (ordered_json& item : list.items) {
      trim_object(item);
      out.items.push_back(std::move(item));
    }
    out.resource_versions[k.kind] = list.resource_version;
    out.served.emplace(k.kind, *r);
  }
  sort_objects(out.items);
  return out;
}

std::string list_text(const std::vector<ordered_json>& items) {
  ordered_json list = ordered_json::object();
  list["apiVersion"] = "v1";
  list["kind"] = "List";
  list["items"] = ordered_json::array();
  for (const ordered_json& item : items) list["items"].push_back(item);
  return list.dump(2) + "\n";
}

std::string take_snapshot(const ConnectionOptions& options, Diagnostics& diagnostics) {
  KubeApi api(options);
  return list_text(read_cluster(api, diagnostics).items);
}

}  // namespace sim::live
