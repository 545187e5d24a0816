#include "api_versions.hpp"

#include <algorithm>
#include <array>
#include <string>

namespace sim::io {
namespace {

struct Served {
  std::string_view kind;
  std::string_view versions;  // ", " between them
};

// KAI's CRDs (deployments/crds: one served version each), the Kubernetes core and scheduling
// groups, DRA's resource.k8s.io as Kubernetes 1.32 to 1.34 serve it, and the NodeResourceTopology
// CRD of the topology-aware scheduling project.
constexpr std::array<Served, 13> kServed{{
    {"List", "v1"},
    {"Node", "v1"},
    {"Pod", "v1"},
    {"PriorityClass", "scheduling.k8s.io/v1"},
    {"Queue", "scheduling.run.ai/v2"},
    {"PodGroup", "scheduling.run.ai/v2alpha2"},
    {"BindRequest", "scheduling.run.ai/v1alpha2"},
    {"Topology", "kai.scheduler/v1alpha1"},
    {"NodeResourceTopology", "topology.node.k8s.io/v1alpha2, topology.node.k8s.io/v1alpha1"},
    {"DeviceClass", "resource.k8s.io/v1, resource.k8s.io/v1beta2, resource.k8s.io/v1beta1"},
    {"ResourceSlice", "resource.k8s.io/v1, resource.k8s.io/v1beta2, resource.k8s.io/v1beta1"},
    {"ResourceClaim", "resource.k8s.io/v1, resource.k8s.io/v1beta2, resource.k8s.io/v1beta1"},
    {"ResourceClaimTemplate",
     "resource.k8s.io/v1, resource.k8s.io/v1beta2, resource.k8s.io/v1beta1"},
}};

}  // namespace

void check_api_version(const Field& obj, std::string_view kind) {
  for (const Served& served : kServed) {
    if (served.kind != kind) continue;
    const std::string list(served.versions);
    const Field api = obj.member("apiVersion");
    if (api.is_null()) return;  // hand-written snippets often leave it out; the kind says enough
    const std::string given = api.string();
    for (std::size_t from = 0; from <= list.size();) {
      const std::size_t to = std::min(list.find(", ", from), list.size());
      if (list.compare(from, to - from, given) == 0) return;
      from = to + 2;
    }
    api.fail("no " + std::string(kind) + " in \"" + given + "\": the API server serves " +
             std::string(kind) + " as " + list);
  }
}

}  // namespace sim::io
