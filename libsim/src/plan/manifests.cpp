#include "sim/plan/manifests.hpp"

#include <set>
#include <sstream>

#include "sim/core/error.hpp"
#include "sim/core/go_json.hpp"

namespace sim::plan {
namespace {

using sim::go_json_number;

// RFC 1123 label (Kubernetes' IsDNS1123Label): what a namespace must be, and what a queue name
// must be to serve as the value of the kai.scheduler/queue label as well.
bool dns_label(const std::string& s, std::size_t max = 63) {
  if (s.empty() || s.size() > max) return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!alnum(s.front()) || !alnum(s.back())) return false;
  for (char c : s) {
    if (!alnum(c) && c != '-') return false;
  }
  return true;
}

void require_name(const std::string& name, const std::string& what, std::size_t max = 63) {
  if (!dns_label(name, max)) {
    throw InputError(
        {}, what,
        "\"" + name + "\" is not a valid name (lower-case letters, digits and '-', at most " +
            std::to_string(max) + " characters, starting and ending with a letter or digit)");
  }
}

std::string block(const QueueResource& r) {
  return "{ quota: " + go_json_number(r.quota) + ", limit: " + go_json_number(r.limit) +
         ", overQuotaWeight: " + go_json_number(r.over_quota_weight) + " }";
}

// Parents first (a Queue's parent must exist when KAI's webhook checks the child's quota);
// otherwise the order given.
std::vector<const PlannedQueue*> parents_first(const std::vector<PlannedQueue>& queues) {
  std::vector<const PlannedQueue*> out;
  std::set<std::string> placed;
  std::set<std::string> names;
  for (const PlannedQueue& q : queues) names.insert(q.name);
  while (out.size() < queues.size()) {
    const std::size_t before = out.size();
    for (const PlannedQueue& q : queues) {
      if (placed.contains(q.name)) continue;
      if (q.parent.empty() || !names.contains(q.parent) || placed.contains(q.parent)) {
        out.push_back(&q);
        placed.insert(q.name);
      }
    }
    if (out.size() == before) throw InputError({}, "queues", "the queues' parents form a cycle");
  }
  return out;
}

// The runbook's CEL, one clause per tenant: the host namespace and the value that must sit in
// the given label.
std::string tenant_clauses(const std::vector<Tenant>& tenants, const std::string& label,
                           bool queue) {
  std::string out;
  for (std::size_t i = 0; i < tenants.size(); ++i) {
    const Tenant& t = tenants[i];
    out += std::string(i == 0 ? "        ((" : "         (") + "object.metadata.namespace == '" +
           t.namespace_name() + "' &&\n          object.metadata.labels['" + label + "'] == '" +
           (queue ? t.queue : t.team) + "')" + (i + 1 == tenants.size() ? ")\n" : " ||\n");
  }
  return out;
}

// A ResourceQuota entry as the runbook writes it: quantities that are plain numbers in quotes
// ("4" CPUs), counts as they are.
std::string quota_value(const std::string& key, const std::string& value) {
  const bool digits = !value.empty() && value.find_first_not_of("0123456789.") == std::string::npos;
  const bool count = key.starts_with("count/") || key.starts_with("services.");
  return digits && !count ? "\"" + value + "\"" : value;
}

}  // namespace

std::map<std::string, std::string> runbook_resource_quota() {
  return {{"requests.cpu", "4"},
          {"requests.memory", "8Gi"},
          {"requests.storage", "20Gi"},
          {"requests.ephemeral-storage", "20Gi"},
          {"limits.cpu", "8"},
          {"limits.memory", "16Gi"},
          {"limits.ephemeral-storage", "40Gi"},
          {"services.nodeports", "0"},
          {"services.loadbalancers", "0"},
          {"count/pods", "40"},
          {"count/services", "30"},
          {"count/secrets", "100"},
          {"count/configmaps", "100"},
          {"count/persistentvolumeclaims", "10"}};
}

std::string queues_yaml(const std::vector<PlannedQueue>& queues, const std::string& header) {
  std::ostringstream s;
  s << header;
  bool first = true;
  for (const PlannedQueue* q : parents_first(queues)) {
    if (!first) s << "---\n";
    first = false;
    s << "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata:\n  name: " << q->name
      << "\nspec:\n";
    if (!q->display_name.empty()) s << "  displayName: " << json_string(q->display_name) << "\n";
    if (!q->parent.empty()) s << "  parentQueue: " << q->parent << "\n";
    if (q->priority) s << "  priority: " << *q->priority << "\n";
    if (!q->preempt_min_runtime.empty())
      s << "  preemptMinRuntime: " << q->preempt_min_runtime << "\n";
    if (!q->reclaim_min_runtime.empty())
      s << "  reclaimMinRuntime: " << q->reclaim_min_runtime << "\n";
    s << "  resources:\n    gpu: " << block(q->gpu) << "\n    cpu: " << block(q->cpu)
      << "\n    memory: " << block(q->memory) << "\n";
  }
  return s.str();
}

std::string priority_classes_yaml() {
  // KAI: deployments/kai-scheduler/templates/priorityclasses/*.yaml
  // (defaultPriorityClasses.enabled). Values of 100 and above are non-preemptible and may not
  // borrow over quota.
  std::string out =
      "# The PriorityClasses KAI Scheduler v0.16.4's Helm chart installs "
      "(defaultPriorityClasses.enabled=true).\n"
      "# A value of 100 or more makes a workload non-preemptible: it runs only within its queue's "
      "quota.\n";
  const std::pair<const char*, int> classes[] = {
      {"train", 50}, {"build-preemptible", 75}, {"build", 100}, {"inference", 125}};
  bool first = true;
  for (const auto& [name, value] : classes) {
    if (!first) out += "---\n";
    first = false;
    out += "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: " +
           std::string(name) + "\nvalue: " + std::to_string(value) + "\n";
  }
  return out;
}

std::string runtime_class_yaml() {
  return "# The RuntimeClass KAI's admission puts on GPU-fraction pods "
         "(admission.gpuFractionRuntimeClassName=nvidia).\n"
         "# The GPU Operator creates it with CDI on and NRI off; it must exist before fractional "
         "pods start.\n"
         "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata:\n  name: nvidia\nhandler: "
         "nvidia\n";
}

std::string vcluster_values_yaml(const Tenant& t) {
  std::ostringstream s;
  s << "# vCluster 0.35.1 values for " << t.team << " (shared nodes). Create it with:\n"
    << "#   vcluster create " << t.team << " --namespace " << t.namespace_name()
    << " --values vcluster-" << t.team << ".yaml --connect=false\n"
    << "# Its pods go to KAI queue " << t.queue << " (kai.scheduler/queue: " << t.queue
    << "); queue-guard.yaml enforces that on the host.\n"
    << "experimental:\n  syncSettings:\n    setOwner: false\n"
    << "policies:\n  podSecurityStandard: baseline\n  networkPolicy:\n    enabled: true\n    "
       "workload:\n"
    << "      publicEgress:\n        enabled: false\n  resourceQuota:\n    enabled: true\n    "
       "quota:\n";
  // The runbook's order of entries, then any others the plan adds, by name.
  const std::map<std::string, std::string> runbook = runbook_resource_quota();
  const char* order[] = {"requests.cpu",
                         "requests.memory",
                         "requests.storage",
                         "requests.ephemeral-storage",
                         "limits.cpu",
                         "limits.memory",
                         "limits.ephemeral-storage",
                         "services.nodeports",
                         "services.loadbalancers",
                         "count/pods",
                         "count/services",
                         "count/secrets",
                         "count/configmaps",
                         "count/persistentvolumeclaims"};
  const std::map<std::string, std::string>& quota =
      t.resource_quota.empty() ? runbook : t.resource_quota;
  std::set<std::string> written;
  for (const char* key : order) {
    if (auto it = quota.find(key); it != quota.end()) {
      s << "      " << key << ": " << quota_value(key, it->second) << "\n";
      written.insert(key);
    }
  }
  for (const auto& [key, value] : quota) {
    if (!written.contains(key)) s << "      " << key << ": " << quota_value(key, value) << "\n";
  }
  s << "  limitRange:\n    enabled: true\n    default:\n      cpu: \"2\"\n      memory: 2Gi\n      "
       "ephemeral-storage: 4Gi\n"
    << "    defaultRequest:\n      cpu: 100m\n      memory: 256Mi\n      ephemeral-storage: 1Gi\n"
    << "sync:\n  toHost:\n    networkPolicies:\n      enabled: false\n    resourceClaims:\n      "
       "enabled: false\n"
    << "  fromHost:\n    runtimeClasses:\n      enabled: false\n    nodes:\n      enabled: true\n"
    << "      clearImageStatus: true\n      selector:\n        labels:\n          "
       "nvidia.com/gpu.present: \"true\"\n"
    << "    priorityClasses:\n      enabled: true\n";
  return s.str();
}

std::string queue_guard_yaml(const std::vector<Tenant>& tenants) {
  std::ostringstream s;
  s << "# Host-cluster admission that binds each tenant namespace to its KAI queue (Kubernetes >= "
       "1.30).\n"
    << "# GPU access: a gpu-fraction or gpu-memory annotation, an nvidia.com/gpu or "
       "nvidia.com/mig-* resource,\n"
    << "# any runtimeClassName (unknown NVIDIA handler aliases fail closed), or "
       "NVIDIA_VISIBLE_DEVICES.\n"
    << "# Such a pod must carry its vCluster's managed-by label and queue label, use "
       "kai-scheduler, and\n"
    << "# get no ephemeral containers. Apply, then `kubectl get validatingadmissionpolicy\n"
    << "# kai-vcluster-queue-guard -o yaml` must show status.typeChecking without "
       "expressionWarnings.\n";
  s << "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata:\n"
       "  name: kai-vcluster-queue-guard\nspec:\n  failurePolicy: Fail\n  matchConstraints:\n    "
       "resourceRules:\n"
       "      - apiGroups: [\"\"]\n        apiVersions: [\"v1\"]\n        operations: [\"CREATE\", "
       "\"UPDATE\"]\n"
       "        resources: [\"pods\", \"pods/ephemeralcontainers\"]\n";
  const char* gpu_resource =
      "          (has(c.resources.limits) && c.resources.limits.exists(r,\n"
      "            r == 'nvidia.com/gpu' || r.startsWith('nvidia.com/mig-'))) ||\n"
      "          (has(c.resources.requests) && c.resources.requests.exists(r,\n"
      "            r == 'nvidia.com/gpu' || r.startsWith('nvidia.com/mig-'))) ||\n";
  s << "  matchConditions:\n    - name: gpu-access\n      expression: >-\n"
       "        (has(object.metadata.annotations) &&\n"
       "         ('gpu-fraction' in object.metadata.annotations ||\n"
       "          'gpu-memory' in object.metadata.annotations)) ||\n"
       "        object.spec.?runtimeClassName.orValue('') != '' ||\n"
       "        object.spec.containers.exists(c,\n"
    << gpu_resource
    << "          c.env.exists(e, e.name == 'NVIDIA_VISIBLE_DEVICES')) ||\n"
       "        (has(object.spec.initContainers) && object.spec.initContainers.exists(c,\n"
    << gpu_resource
    << "          c.env.exists(e, e.name == 'NVIDIA_VISIBLE_DEVICES'))) ||\n"
       "        (has(object.spec.ephemeralContainers) &&\n"
       "          object.spec.ephemeralContainers.exists(c,\n"
       "            c.env.exists(e, e.name == 'NVIDIA_VISIBLE_DEVICES')))\n";
  s << "  validations:\n    - expression: >-\n        has(object.metadata.labels) &&\n"
       "        'vcluster.loft.sh/managed-by' in object.metadata.labels &&\n"
    << tenant_clauses(tenants, "vcluster.loft.sh/managed-by", false)
    << "      message: \"a GPU pod must carry the vcluster.loft.sh/managed-by label of its host "
       "namespace's vCluster\"\n"
       "      reason: Forbidden\n"
       "    - expression: >-\n        has(object.metadata.labels) &&\n"
       "        'kai.scheduler/queue' in object.metadata.labels &&\n"
    << tenant_clauses(tenants, "kai.scheduler/queue", true)
    << "      message: \"a GPU pod's kai.scheduler/queue label must name its vCluster's queue\"\n"
       "      reason: Forbidden\n"
       "    - expression: \"object.spec.?schedulerName.orValue('') == 'kai-scheduler'\"\n"
       "      message: \"a GPU pod must set schedulerName: kai-scheduler\"\n"
       "      reason: Forbidden\n"
       "    - expression: >-\n        !has(object.spec.ephemeralContainers) ||\n"
       "        size(object.spec.ephemeralContainers) == 0\n"
       "      message: \"no ephemeral containers in a GPU pod; debug from a separate pod\"\n"
       "      reason: Forbidden\n";
  s << "---\napiVersion: admissionregistration.k8s.io/v1\nkind: "
       "ValidatingAdmissionPolicyBinding\nmetadata:\n"
       "  name: kai-vcluster-queue-guard\nspec:\n  policyName: kai-vcluster-queue-guard\n  "
       "validationActions: [Deny]\n"
       "  matchResources:\n    namespaceSelector:\n      matchExpressions:\n"
       "        - key: kubernetes.io/metadata.name\n          operator: In\n          values:\n";
  for (const Tenant& t : tenants) s << "            - " << t.namespace_name() << "\n";
  return s.str();
}

std::map<std::string, std::string> plan_manifests(const std::vector<PlannedQueue>& queues,
                                                  const std::vector<Tenant>& tenants,
                                                  const std::string& header) {
  std::set<std::string> names;
  for (const PlannedQueue& q : queues) {
    require_name(q.name, "queues." + q.name);
    if (!names.insert(q.name).second) throw InputError({}, "queues." + q.name, "queue named twice");
    if (!q.parent.empty()) require_name(q.parent, "queues." + q.name + ".parentQueue");
  }
  std::map<std::string, std::string> files{{"queues.yaml", queues_yaml(queues, header)},
                                           {"priorityclasses.yaml", priority_classes_yaml()},
                                           {"runtimeclass.yaml", runtime_class_yaml()}};
  if (tenants.empty()) return files;
  std::set<std::string> teams;
  for (const Tenant& t : tenants) {
    require_name(t.team, "tenants." + t.team, 63 - std::string("vcluster-").size());
    if (!teams.insert(t.team).second) throw InputError({}, "tenants." + t.team, "team named twice");
    if (!names.contains(t.queue)) {
      throw InputError({}, "tenants." + t.team + ".queue",
                       "no queue \"" + t.queue + "\" in the plan");
    }
    files["vcluster-" + t.team + ".yaml"] = vcluster_values_yaml(t);
  }
  files["queue-guard.yaml"] = queue_guard_yaml(tenants);
  return files;
}

}  // namespace sim::plan
