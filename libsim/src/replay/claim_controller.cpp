// Kubernetes' resourceclaim controller as the replay needs it (pkg/controller/resourceclaim):
// - for each spec.resourceClaims entry of a pod that names a ResourceClaimTemplate, a claim made
//   from the template's spec, named <pod>-<entry>-<5 characters>, owned by the pod and listed in
//   the pod's status.resourceClaimStatuses; the garbage collector deletes it with the pod;
// - a claim stops being reserved for pods that are gone, and one reserved for nobody is
//   deallocated.

#include <cstdint>
#include <set>

#include "world.hpp"
#include "yaml_text.hpp"

namespace sim::replay {
namespace {

// generateName's 5 characters, from the alphabet Kubernetes uses, taken from a hash of the pod's
// uid and the entry so the same replay names its claims the same way every time.
std::string claim_suffix(const std::string& uid, const std::string& entry) {
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  std::uint64_t h = 14695981039346656037ULL;  // FNV-1a
  for (const char c : uid + "/" + entry) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  std::string out;
  for (int i = 0; i < 5; ++i, h /= sizeof kAlphabet - 1)
    out += kAlphabet[h % (sizeof kAlphabet - 1)];
  return out;
}

}  // namespace

void World::claims_from_templates(const std::string& pod_key, std::int64_t now_ms) {
  auto found = objects_.find(pod_key);
  if (found == objects_.end()) return;
  const YAML::Node pod = found->second.doc;
  const YAML::Node spec = pod["spec"];
  if (!spec.IsDefined() || !spec.IsMap() || !spec["resourceClaims"].IsDefined() ||
      !spec["resourceClaims"].IsSequence())
    return;
  const std::string ns = str(pod, "metadata", "namespace");
  const std::string name = str(pod, "metadata", "name");
  std::set<std::string> made;  // entries the pod's status already lists
  // Test IsDefined before anything else: a missing key of a const node throws on any other use.
  const YAML::Node status = pod["status"];
  const YAML::Node statuses =
      status.IsDefined() && status.IsMap() ? status["resourceClaimStatuses"] : YAML::Node();
  if (statuses.IsDefined() && statuses.IsSequence()) {
    for (const YAML::Node& st : statuses) {
      if (st.IsMap()) made.insert(str(st, "name"));  // a scalar's subscript throws
    }
  }
  for (const YAML::Node& ref : spec["resourceClaims"]) {
    if (!ref.IsMap()) continue;
    const std::string entry = str(ref, "name");
    const std::string template_name = str(ref, "resourceClaimTemplateName");
    if (template_name.empty() || made.contains(entry)) continue;
    auto tmpl = objects_.find("ResourceClaimTemplate/" + ns + "/" + template_name);
    if (tmpl == objects_.end()) continue;  // made once the template exists
    const YAML::Node template_doc = tmpl->second.doc;
    const YAML::Node claim_spec = template_doc["spec"];
    const std::string claim_name =
        name + "-" + entry + "-" + claim_suffix(str(pod, "metadata", "uid"), entry);
    YAML::Node claim;
    claim["apiVersion"] = "resource.k8s.io/v1";
    claim["kind"] = "ResourceClaim";
    claim["metadata"]["name"] = claim_name;
    claim["metadata"]["namespace"] = ns;
    claim["metadata"]["creationTimestamp"] = format_time(now_ms);
    const YAML::Node meta =
        claim_spec.IsDefined() && claim_spec.IsMap() ? claim_spec["metadata"] : YAML::Node();
    if (meta.IsDefined() && meta.IsMap()) {
      for (const char* part : {"labels", "annotations"}) {
        const YAML::Node values = meta[part];
        if (values.IsDefined() && values.IsMap()) claim["metadata"][part] = YAML::Clone(values);
      }
    }
    claim["metadata"]["annotations"]["resource.kubernetes.io/pod-claim-name"] = entry;
    YAML::Node owner;
    owner["apiVersion"] = "v1";
    owner["kind"] = "Pod";
    owner["name"] = name;
    owner["uid"] = str(pod, "metadata", "uid");
    owner["controller"] = true;
    claim["metadata"]["ownerReferences"].push_back(owner);
    const YAML::Node inner =
        claim_spec.IsDefined() && claim_spec.IsMap() ? claim_spec["spec"] : YAML::Node();
    claim["spec"] =
        inner.IsDefined() && inner.IsMap() ? YAML::Clone(inner) : YAML::Node(YAML::NodeType::Map);
    const std::string claim_key = "ResourceClaim/" + ns + "/" + claim_name;
    put(claim_key, Object{claim, tmpl->second.file});
    generated_claims_[pod_key].push_back(claim_key);
    YAML::Node made_status;
    made_status["name"] = entry;
    made_status["resourceClaimName"] = claim_name;
    edit(found->second)["status"]["resourceClaimStatuses"].push_back(made_status);
  }
}

void World::template_applied(const std::string& ns, std::int64_t now_ms) {
  const std::string prefix = "Pod/" + (ns.empty() ? std::string("default") : ns) + "/";
  std::vector<std::string> pods;
  for (auto it = objects_.lower_bound(prefix);
       it != objects_.end() && it->first.rfind(prefix, 0) == 0; ++it)
    pods.push_back(it->first);
  for (const std::string& key : pods) claims_from_templates(key, now_ms);
}

void World::drop_generated_claims(const std::string& pod_key) {
  auto it = generated_claims_.find(pod_key);
  if (it == generated_claims_.end()) return;
  const std::vector<std::string> claims = std::move(it->second);
  generated_claims_.erase(it);
  for (const std::string& claim : claims) drop(claim);
}

// Kubernetes' resourceclaim controller: a claim stops being reserved for pods that are gone, and
// one reserved for nobody is deallocated.
void World::release_claims() {
  auto claims = objects_.lower_bound("ResourceClaim/");
  if (claims == objects_.end() || claims->first.rfind("ResourceClaim/", 0) != 0) return;
  std::set<std::string>
      live;  // uids of pods that hold resources, as the snapshot reader names them
  for (auto it = objects_.lower_bound("Pod/");
       it != objects_.end() && it->first.rfind("Pod/", 0) == 0; ++it) {
    const YAML::Node& pod = it->second.doc;
    if (str(pod, "status", "phase") == "Succeeded" || str(pod, "status", "phase") == "Failed")
      continue;
    const std::string uid = str(pod, "metadata", "uid");
    live.insert(uid.empty() ? str(pod, "metadata", "namespace") + "-" + str(pod, "metadata", "name")
                            : uid);
  }
  auto consumer_uid = [](const YAML::Node& r) {
    return r.IsMap() && r["uid"].IsDefined() && r["uid"].IsScalar() ? r["uid"].Scalar()
                                                                    : std::string();
  };
  for (auto it = claims; it != objects_.end() && it->first.rfind("ResourceClaim/", 0) == 0; ++it) {
    const YAML::Node status = it->second.doc["status"];
    if (!status.IsDefined() || !status.IsMap() || !status["reservedFor"].IsDefined()) continue;
    const YAML::Node reserved = status["reservedFor"];
    if (!reserved.IsSequence()) continue;
    std::size_t kept = 0;
    for (const YAML::Node& r : reserved) kept += live.contains(consumer_uid(r)) ? 1U : 0U;
    if (kept == reserved.size()) continue;  // every consumer is there (or none was ever listed)
    YAML::Node doc = edit(it->second);
    YAML::Node fresh(YAML::NodeType::Sequence);
    for (const YAML::Node& r : reserved) {
      if (live.contains(consumer_uid(r))) fresh.push_back(YAML::Clone(r));
    }
    doc["status"]["reservedFor"] = fresh;
    if (kept == 0) doc["status"].remove("allocation");  // the last consumer went away
  }
}

}  // namespace sim::replay
