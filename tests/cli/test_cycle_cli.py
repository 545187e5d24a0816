"""`kaisim cycle`: the runbook's states through one KAI scheduling cycle."""
import json
import re

from conftest import SOURCE_DIR

SEED = SOURCE_DIR / "scenarios" / "seed"
BASE = [SEED / "l40s-node.yaml", SEED / "create-queues.yaml"]


def cycle(kaisim, *paths, stdin=None):
    run = kaisim("cycle", "-o", "json", *paths, stdin=stdin)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_three_teams_get_their_0_33_on_one_l40s(kaisim):
    report = cycle(kaisim, *BASE, SEED / "nlp-pod.yaml", SEED / "vision-pod.yaml", SEED / "recommender-pod.yaml")
    assert [b["pod"] for b in report["binds"]] == [
        "default/nlp-batch-test", "default/vision-batch-test", "default/recommender-batch-test"]
    assert {b["node"] for b in report["binds"]} == {"l40s-0"}
    assert len({tuple(b["gpuGroups"]) for b in report["binds"]}) == 1  # one shared GPU
    for team in ("team-nlp", "team-vision", "team-recommender"):
        assert report["queues"][team]["allocated"]["gpu"] == 0.33
        assert report["queues"][team]["status"]["allocated"]["nvidia.com/gpu"] == "330m"
        assert report["fairShare"][team]["gpu"] == 0.33
    assert report["queues"]["ml-org"]["status"]["allocated"]["nvidia.com/gpu"] == "990m"
    assert report["evictions"] == [] and report["pending"] == []


BURST_STATE = """
apiVersion: v1
kind: Pod
metadata:
  name: nlp-batch-test
  uid: nlp-1
  creationTimestamp: "2026-08-03T10:00:00Z"
  labels: {kai.scheduler/queue: team-nlp, runai-gpu-group: gpu-a}
  annotations: {gpu-fraction: "0.33", received-resource-type: Fraction}
spec: {schedulerName: kai-scheduler, priorityClassName: train, nodeName: l40s-0, containers: [{name: c}]}
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata:
  name: nlp-burst
  uid: nlp-2
  creationTimestamp: "2026-08-03T10:05:00Z"
  labels: {kai.scheduler/queue: team-nlp, runai-gpu-group: gpu-a}
  annotations: {gpu-fraction: "0.66", received-resource-type: Fraction}
spec: {schedulerName: kai-scheduler, priorityClassName: train, nodeName: l40s-0, containers: [{name: c}]}
status: {phase: Running}
"""


def test_vision_returns_and_reclaims_from_the_nlp_burst(kaisim, tmp_path):
    state = tmp_path / "burst.yaml"
    state.write_text(BURST_STATE)
    report = cycle(kaisim, *BASE, state, SEED / "vision-pod.yaml")
    assert report["fairShare"]["team-vision"]["gpu"] == 0.33
    assert report["fairShare"]["team-nlp"]["gpu"] == 0.6699999999999999
    assert report["binds"] == []
    assert [(e["pod"], e["reason"], e["outcome"]) for e in report["evictions"]] == [
        ("default/nlp-burst", "reclaim", "deleted")]
    assert [(p["pod"], p["node"], p["gpuGroups"]) for p in report["pipelined"]] == [
        ("default/vision-batch-test", "l40s-0", ["gpu-a"])]


def test_same_snapshot_same_bytes(kaisim):
    paths = [*BASE, SEED / "nlp-pod.yaml", SEED / "nlp-burst.yaml"]
    assert kaisim("cycle", "-o", "json", *paths).stdout == kaisim("cycle", "-o", "json", *paths).stdout
    assert kaisim("cycle", *paths).stdout == kaisim("cycle", *paths).stdout


def test_a_folder_is_read_file_by_file(kaisim, tmp_path):
    for p in [*BASE, SEED / "nlp-pod.yaml"]:
        (tmp_path / p.name).write_text(p.read_text())
    report = cycle(kaisim, tmp_path)
    assert [b["pod"] for b in report["binds"]] == ["default/nlp-batch-test"]


def test_bad_snapshot_is_one_clear_error(kaisim, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
                   "    - name: c\n      resources: {requests: {memory: 12 parsecs}}\n")
    run = kaisim("cycle", "-o", "json", bad)
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr == (f"kaisim: error: {bad}:7:38: spec.containers[0].resources.requests.memory: "
                          "not a valid quantity such as \"500m\", \"2\" or \"1Gi\": \"12 parsecs\"\n")
    run = kaisim("cycle", "-o", "json", *BASE, "--now", "yesterday")
    assert run.returncode == 2
    assert "--now: not an RFC 3339 time" in run.stderr


def test_a_node_with_absurdly_many_gpus_is_refused(kaisim, tmp_path):
    # Found by the fuzzer: a typo such as "100000000" GPUs must fail, not exhaust memory.
    node = tmp_path / "node.yaml"
    node.write_text('apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus: {allocatable: {cpu: "1", nvidia.com/gpu: "100000000"}}\n')
    run = kaisim("cycle", "-o", "json", node)
    assert run.returncode == 2
    assert run.stderr == f"kaisim: error: {node}:4:50: status.allocatable.nvidia.com/gpu: more than 1024 GPUs on one node\n"


MIG_ON_L40S = """apiVersion: v1
kind: Node
metadata: {name: l40s-0, labels: {nvidia.com/gpu.memory: "46068"}}
status: {allocatable: {cpu: "64", memory: 512Gi, pods: "110", nvidia.com/gpu: "1"}, conditions: [{type: Ready, status: "True"}]}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: q}
spec: {resources: {gpu: {quota: -1, limit: -1}, cpu: {quota: -1, limit: -1}, memory: {quota: -1, limit: -1}}}
---
apiVersion: v1
kind: Pod
metadata: {name: mig, labels: {kai.scheduler/queue: q}}
spec: {schedulerName: kai-scheduler, containers: [{name: c, resources: {limits: {nvidia.com/mig-3g.20gb: 1}}}]}
"""


def test_a_mig_request_on_an_l40s_waits_and_says_which_resource_is_missing(kaisim, tmp_path):
    snapshot = tmp_path / "mig.yaml"
    snapshot.write_text(MIG_ON_L40S)
    run = kaisim("cycle", "-o", "json", snapshot)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["binds"] == []
    assert report["pending"][0]["reasons"] == [
        "Pod default/mig fits no node: node l40s-0: not enough free resources: nvidia.com/mig-3g.20gb"]


def gang_with_subgroups(gpus):
    """A leader and two workers in one PodGroup with subGroups, on one node of `gpus` GPUs."""
    node = (f"apiVersion: v1\nkind: Node\nmetadata: {{name: n0}}\nstatus:\n"
            f"  allocatable: {{cpu: '16', memory: 64Gi, pods: '110', nvidia.com/gpu: '{gpus}'}}\n")
    queue = ("apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: q}\n"
             "spec: {resources: {gpu: {quota: 4, limit: -1, overQuotaWeight: 1}}}\n")
    group = ("apiVersion: scheduling.run.ai/v2alpha2\nkind: PodGroup\nmetadata: {name: infer, namespace: a}\n"
             "spec: {queue: q, subGroups: [{name: leader, minMember: 1}, {name: workers, minMember: 2}]}\n")
    pods = [
        f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: a, uid: {name},"
        f" annotations: {{pod-group-name: infer}}, labels: {{kai.scheduler/subgroup-name: {sub}}}}}\n"
        f"spec: {{schedulerName: kai-scheduler, containers: [{{name: c, resources: {{limits: {{nvidia.com/gpu: '1'}}}}}}]}}\n"
        for name, sub in (("leader-0", "leader"), ("worker-0", "workers"), ("worker-1", "workers"))]
    return "---\n".join([node, queue, group, *pods])


def test_a_gang_of_subgroups_binds_whole_or_not_at_all(kaisim):
    report = cycle(kaisim, "-", stdin=gang_with_subgroups(3))
    assert sorted(b["pod"] for b in report["binds"]) == ["a/leader-0", "a/worker-0", "a/worker-1"]

    report = cycle(kaisim, "-", stdin=gang_with_subgroups(2))
    assert report["binds"] == []
    # The leader (first by name) and one worker fit; the workers' minimum of 2 does not.
    reasons = report["pending"][0]["reasons"]
    assert any(r.startswith("Resources were found for 1 pods from all sub-groups while sub-group workers "
                            "requires 2 pods for gang scheduling.") for r in reasons), reasons


def replicas_with_anti_affinity(replicas):
    """`replicas` one-GPU pods that may not share a node, on two nodes of two GPUs each."""
    docs = [("apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: q}\n"
             "spec: {resources: {gpu: {quota: 4, limit: -1, overQuotaWeight: 1}}}\n")]
    for n in ("n0", "n1"):
        docs.append(f"apiVersion: v1\nkind: Node\nmetadata: {{name: {n}, labels: {{kubernetes.io/hostname: {n}}}}}\n"
                    f"status: {{allocatable: {{cpu: '16', memory: 64Gi, pods: '110', nvidia.com/gpu: '2'}}}}\n")
    for i in range(replicas):
        docs.append(
            f"apiVersion: v1\nkind: Pod\nmetadata: {{name: r{i}, namespace: a, uid: r{i},"
            f" creationTimestamp: '2026-08-03T10:00:0{i}Z', labels: {{kai.scheduler/queue: q, app: llm}}}}\n"
            "spec:\n  schedulerName: kai-scheduler\n  containers: [{name: c, resources: {limits: {nvidia.com/gpu: '1'}}}]\n"
            "  affinity:\n    podAntiAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n"
            "        - {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: llm}}}\n")
    return "---\n".join(docs)


def test_required_pod_anti_affinity_spreads_replicas_one_per_node(kaisim):
    report = cycle(kaisim, "-", stdin=replicas_with_anti_affinity(3))
    assert sorted((b["pod"], b["node"]) for b in report["binds"]) == [("a/r0", "n0"), ("a/r1", "n1")]
    [waiting] = report["pending"]
    assert "didn't match pod anti-affinity rules" in " ".join(waiting["reasons"])


def test_pod_affinity_terms_are_checked(kaisim):
    bad = replicas_with_anti_affinity(1).replace("topologyKey: kubernetes.io/hostname, ", "")
    run = kaisim("cycle", "-o", "json", "-", stdin=bad)
    assert run.returncode == 2
    assert "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]: " \
           "missing required field \"topologyKey\"" in run.stderr


def test_a_pod_of_no_subgroup_is_never_a_victim_and_is_named(kaisim):
    report = cycle(kaisim, SOURCE_DIR / "tests" / "cli" / "data" / "subgroup-invalid-pod.yaml")
    assert report["binds"] == [] and report["evictions"] == []  # evicting v-0 alone frees too little
    [waiting] = report["pending"]
    assert waiting["job"] == "r"


def test_a_gang_with_a_pod_on_a_missing_node_is_no_victim(kaisim):
    # KAI cannot evict a pod whose node is not in the snapshot, so no scenario frees the gang's GPU.
    report = cycle(kaisim, SOURCE_DIR / "tests" / "cli" / "data" / "victim-on-unknown-node.yaml")
    assert report["binds"] == [] and report["pipelined"] == [] and report["evictions"] == []
    assert [p["job"] for p in report["pending"]] == ["pg-r-0-r0"]


def snapshot_with_config(config, params=None):
    """A KAI snapshot.json: two 4-GPU nodes, one already half used, and one pending 1-GPU pod."""
    node = lambda name: {"metadata": {"name": name}, "status": {"allocatable": {
        "cpu": "16", "memory": "64Gi", "pods": "110", "nvidia.com/gpu": "4"}}}
    pod = lambda name, node_name=None: {
        "metadata": {"name": name, "namespace": "a", "uid": name, "creationTimestamp": "2026-08-03T10:00:00Z",
                     "labels": {"kai.scheduler/queue": "q"}},
        "spec": {"schedulerName": "kai-scheduler", **({"nodeName": node_name} if node_name else {}),
                 "containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": "2" if node_name else "1"}}}]},
        "status": {"phase": "Running" if node_name else "Pending"}}
    return json.dumps({"config": config, "schedulerParams": params or {}, "rawObjects": {
        "nodes": [node("n0"), node("n1")],
        "queues": [{"metadata": {"name": "q"}, "spec": {"resources": {"gpu": {"quota": 8, "limit": -1}}}}],
        "pods": [pod("running", "n0"), pod("new")]}})


def test_a_snapshot_s_own_scheduler_config_picks_the_placement(kaisim):
    # KAI's in-code default binpacks: the new pod joins the half-used node.
    [bind] = cycle(kaisim, "-", stdin=snapshot_with_config({}))["binds"]
    assert bind["node"] == "n0"
    # The operator's config for placementStrategy spread: the emptier node.
    spread = {"actions": "allocate, reclaim, preempt, stalegangeviction", "tiers": [{"plugins": [
        {"name": "predicates"}, {"name": "proportion"}, {"name": "priority"}, {"name": "nodeavailability"},
        {"name": "resourcetype"}, {"name": "gpuspread"},
        {"name": "nodeplacement", "arguments": {"gpu": "spread", "cpu": "spread"}}]}]}
    [bind] = cycle(kaisim, "-", stdin=snapshot_with_config(spread))["binds"]
    assert bind["node"] == "n1"


def test_a_bad_scheduler_config_names_the_field(kaisim):
    run = kaisim("cycle", "-o", "json", "-", stdin=snapshot_with_config({"actions": "allocate, backfill"}))
    assert run.returncode == 2
    assert 'config.actions: unknown action "backfill"' in run.stderr
    run = kaisim("cycle", "-o", "json", "-", stdin=snapshot_with_config({}, {"allowConsolidatingReclaim": "yes"}))
    assert run.returncode == 2
    assert "schedulerParams.allowConsolidatingReclaim: expected true or false" in run.stderr


def snapshot_with_departments(params):
    """A KAI snapshot.json: one 4-GPU node; departments d1 (quota 3 GPUs) and d2 (quota 1), each
    with one project (p1, p2: no quota, weight 1) asking for four 1-GPU pods."""
    resources = lambda quota: {"gpu": {"quota": quota, "limit": -1, "overQuotaWeight": 1}}
    queue = lambda name, quota, parent=None: {"metadata": {"name": name, "creationTimestamp": "2026-08-03T09:00:00Z"},
                                              "spec": {"resources": resources(quota),
                                                       **({"parentQueue": parent} if parent else {})}}
    pod = lambda name, project: {
        "metadata": {"name": name, "namespace": "a", "uid": name, "creationTimestamp": "2026-08-03T10:00:00Z",
                     "labels": {"kai.scheduler/queue": project}},
        "spec": {"schedulerName": "kai-scheduler",
                 "containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]},
        "status": {"phase": "Pending"}}
    return json.dumps({"config": {}, "schedulerParams": params, "rawObjects": {
        "nodes": [{"metadata": {"name": "n0"}, "status": {"allocatable": {
            "cpu": "16", "memory": "64Gi", "pods": "110", "nvidia.com/gpu": "4"}}}],
        "queues": [queue("d1", 3), queue("d2", 1), queue("p1", 0, "d1"), queue("p2", 0, "d2")],
        "pods": [pod(f"{project}-{i}", project) for project in ("p1", "p2") for i in range(4)]}})


def test_without_full_hierarchy_fairness_projects_share_the_cluster_as_siblings(kaisim):
    def binds_by_project(report):
        projects = [bind["pod"].split("/")[1].split("-")[0] for bind in report["binds"]]  # "a/p1-0"
        return {p: projects.count(p) for p in set(projects)}

    # KAI's default: the departments divide the node 3 to 1, and each project gets its department's.
    full = cycle(kaisim, "-", stdin=snapshot_with_departments({"fullHierarchyFairness": True}))
    assert sorted(full["fairShare"]) == ["d1", "d2", "p1", "p2"]
    assert (full["fairShare"]["p1"]["gpu"], full["fairShare"]["p2"]["gpu"]) == (3, 1)
    assert binds_by_project(full) == {"p1": 3, "p2": 1}
    # false: KAI hangs both projects below one unlimited "default" queue and drops the departments
    # (cache/cluster_info/queue.go snapshotQueues), so the two projects' equal weights split it 2 to 2.
    run = kaisim("cycle", "-o", "json", "-", stdin=snapshot_with_departments({"fullHierarchyFairness": False}))
    assert run.returncode == 0 and run.stderr == "", run.stderr
    flat = json.loads(run.stdout)
    assert sorted(flat["fairShare"]) == ["default", "p1", "p2"]
    assert (flat["fairShare"]["p1"]["gpu"], flat["fairShare"]["p2"]["gpu"]) == (2, 2)
    assert binds_by_project(flat) == {"p1": 2, "p2": 2}


def test_without_full_hierarchy_fairness_a_top_level_queue_with_jobs_is_left_out_with_a_warning(kaisim):
    # A one-level setup (the runbook's kind): KAI lists no queue without a parent, so nothing runs.
    snapshot = json.loads(snapshot_with_departments({"fullHierarchyFairness": False}))
    snapshot["rawObjects"]["queues"].append({"metadata": {"name": "solo"}, "spec": {"resources": {
        "gpu": {"quota": 1, "limit": -1, "overQuotaWeight": 1}}}})
    snapshot["rawObjects"]["pods"][0]["metadata"]["labels"]["kai.scheduler/queue"] = "solo"
    run = kaisim("cycle", "-o", "json", "-", stdin=json.dumps(snapshot))
    assert run.returncode == 0, run.stderr
    assert re.fullmatch(r"kaisim: warning: <stdin>:1:\d+: rawObjects\.queues\[4\]: a top-level queue with no "
                        r"child: with fullHierarchyFairness: false KAI leaves every top-level queue out, so no "
                        r"job in this one is scheduled\n", run.stderr), run.stderr
    report = json.loads(run.stdout)
    assert "solo" not in report["fairShare"]
    [solo] = [p for p in report["pending"] if p["queue"] == "solo"]
    assert solo["reasons"] == ['queue "solo" does not exist']


def test_without_full_hierarchy_fairness_a_lone_top_level_default_queue_becomes_kai_s_own(kaisim):
    # KAI's synthetic "default" replaces it; with no queue below, its jobs run there.
    snapshot = json.loads(snapshot_with_departments({"fullHierarchyFairness": False}))
    snapshot["rawObjects"]["queues"] = [{"metadata": {"name": "default"}, "spec": {"resources": {
        "gpu": {"quota": 1, "limit": -1, "overQuotaWeight": 1}}}}]
    for pod in snapshot["rawObjects"]["pods"]:
        pod["metadata"]["labels"]["kai.scheduler/queue"] = "default"
    run = kaisim("cycle", "-o", "json", "-", stdin=json.dumps(snapshot))
    assert run.returncode == 0 and run.stderr == "", run.stderr
    report = json.loads(run.stdout)
    assert sorted(report["fairShare"]) == ["default"] and len(report["binds"]) == 4


def test_without_full_hierarchy_fairness_a_queue_named_default_with_a_parent_is_refused(kaisim):
    snapshot = json.loads(snapshot_with_departments({"fullHierarchyFairness": False}))
    snapshot["rawObjects"]["queues"][2]["metadata"]["name"] = "default"
    run = kaisim("cycle", "-", stdin=json.dumps(snapshot))
    assert run.returncode == 2
    assert re.fullmatch(r"kaisim: error: <stdin>:1:\d+: rawObjects\.queues\[2\]\.spec\.parentQueue: with "
                        r"fullHierarchyFairness: false KAI hangs every queue that has a parent below its own "
                        r"top-level queue \"default\", which this queue's name replaces\n", run.stderr), run.stderr
    assert run.stdout == ""


def snapshot_with_topology(constraint, levels=None, with_topology=True):
    """A KAI snapshot.json with a Topology (zone, rack): racks ra (a0, a1) and rb (b0), 2 GPUs each
    node, b0 half used; a pending 3-pod gang of one-GPU pods with `constraint`."""
    node = lambda name, rack: {"metadata": {"name": name, "labels": {"zone": "z", "rack": rack}},
                               "status": {"allocatable": {"cpu": "16", "memory": "64Gi", "pods": "110",
                                                          "nvidia.com/gpu": "2"}}}
    pod = lambda name, group, node_name=None: {
        "metadata": {"name": name, "namespace": "a", "uid": name, "creationTimestamp": "2026-08-03T10:00:00Z",
                     "annotations": {"pod-group-name": group}},
        "spec": {"schedulerName": "kai-scheduler", **({"nodeName": node_name} if node_name else {}),
                 "containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]},
        "status": {"phase": "Running" if node_name else "Pending"}}
    group = lambda name, spec: {"metadata": {"name": name, "namespace": "a"}, "spec": {"queue": "q", **spec}}
    return json.dumps({"config": {}, "schedulerParams": {}, "rawObjects": {
        "topologies": [{"metadata": {"name": "dc"},
                        "spec": {"levels": levels if levels is not None else [{"nodeLabel": "zone"}, {"nodeLabel": "rack"}]}}]
                      if with_topology else [],
        "nodes": [node("a0", "ra"), node("a1", "ra"), node("b0", "rb")],
        "queues": [{"metadata": {"name": "q"}, "spec": {"resources": {"gpu": {"quota": 8, "limit": -1}}}}],
        "podGroups": [group("busy", {}), group("gang", {"minMember": 3, "topologyConstraint": constraint})],
        "pods": [pod("busy-0", "busy", "b0")] + [pod(f"gang-{i}", "gang") for i in range(3)]}})


def test_a_required_rack_keeps_the_gang_in_one_rack(kaisim):
    # ra has 4 free GPUs, rb 1: the gang of 3 goes to ra as a block.
    report = cycle(kaisim, "-", stdin=snapshot_with_topology({"topology": "dc", "requiredTopologyLevel": "rack"}))
    assert sorted(b["node"] for b in report["binds"]) == ["a0", "a0", "a1"]
    # Without the constraint, binpacking fills the fullest node b0 first.
    report = cycle(kaisim, "-", stdin=snapshot_with_topology({}))
    assert sorted(b["node"] for b in report["binds"]) == ["a0", "a0", "b0"]


def test_a_constraint_kai_cannot_meet_keeps_the_gang_pending_and_says_why(kaisim):
    # A level the topology lacks (KAI logs this configuration error; kaisim reports it).
    report = cycle(kaisim, "-", stdin=snapshot_with_topology({"topology": "dc", "requiredTopologyLevel": "row"}))
    assert report["binds"] == []
    [waiting] = report["pending"]
    assert any("specified 'row' as the required topology constraint level" in r for r in waiting["reasons"])
    # A topology that does not exist, even in a cluster without any.
    for with_topology in (True, False):
        report = cycle(kaisim, "-", stdin=snapshot_with_topology({"topology": "nope", "requiredTopologyLevel": "rack"},
                                                                 with_topology=with_topology))
        assert report["binds"] == []
        assert any("Requested topology nope does not exist" in r for r in report["pending"][0]["reasons"])


def test_a_topology_without_levels_is_refused(kaisim):
    run = kaisim("cycle", "-o", "json", "-", stdin=snapshot_with_topology({}, levels=[]))
    assert run.returncode == 2
    assert "rawObjects.topologies[0].spec.levels: a Topology needs at least one level" in run.stderr


def snapshot_with_numa(pods, plugins=("predicates", "proportion", "numa")):
    """A KAI snapshot.json: one node with two NUMA zones of 4 CPUs (single-numa-node, pod scope)
    and `pods` pending pods given as (name, cpu, guaranteed)."""
    def pod(name, cpu, guaranteed):
        resources = {"requests": {"cpu": cpu, "memory": "1Gi"}}
        if guaranteed:
            resources["limits"] = dict(resources["requests"])
        return {"metadata": {"name": name, "namespace": "a", "uid": name, "creationTimestamp": "2026-08-03T10:00:00Z",
                             "labels": {"kai.scheduler/queue": "q"}},
                "spec": {"schedulerName": "kai-scheduler", "containers": [{"name": "c", "resources": resources}]},
                "status": {"phase": "Pending"}}
    zone = lambda name: {"name": name, "type": "Node", "resources": [
        {"name": "cpu", "capacity": "4", "allocatable": "4", "available": "4"}]}
    return json.dumps({"config": {"tiers": [{"plugins": [{"name": p} for p in plugins]}]}, "schedulerParams": {},
                       "rawObjects": {
        "nodes": [{"metadata": {"name": "n0"}, "status": {"allocatable": {"cpu": "16", "memory": "64Gi", "pods": "110"}}}],
        "nodeResourceTopologies": [{"metadata": {"name": "n0"},
                                    "attributes": [{"name": "topologyManagerPolicy", "value": "single-numa-node"},
                                                   {"name": "topologyManagerScope", "value": "pod"}],
                                    "zones": [zone("node-1"), zone("node-0")]}],
        "queues": [{"metadata": {"name": "q"}, "spec": {"resources": {"cpu": {"quota": -1, "limit": -1},
                                                                      "memory": {"quota": -1, "limit": -1}}}}],
        "pods": [pod(*p) for p in pods]}})


def test_the_numa_plugin_keeps_guaranteed_pods_within_one_zone(kaisim):
    # Two 3-CPU Guaranteed pods take a zone each (lowest first); a third has 1 CPU per zone left.
    report = cycle(kaisim, "-", stdin=snapshot_with_numa([("g0", "3", True), ("g1", "3", True), ("g2", "2", True)]))
    zones = {b["pod"]: b.get("numaZones") for b in report["binds"]}
    assert zones == {"a/g0": [{"zone": "node-0", "amount": {"cpu": "3"}}],
                     "a/g1": [{"zone": "node-1", "amount": {"cpu": "3"}}]}
    [waiting] = report["pending"]
    assert any("cannot NUMA-align" in r for r in waiting["reasons"]), waiting
    # A Burstable pod is not aligned; without the plugin nothing is.
    report = cycle(kaisim, "-", stdin=snapshot_with_numa([("b", "6", False)]))
    assert [b["pod"] for b in report["binds"]] == ["a/b"] and "numaZones" not in report["binds"][0]
    report = cycle(kaisim, "-", stdin=snapshot_with_numa([("g", "6", True)], plugins=("predicates", "proportion")))
    assert [b["pod"] for b in report["binds"]] == ["a/g"]


def snapshot_with_dra(claims, pods):
    """A KAI snapshot.json with DRA: node n0 publishes 2 devices of driver gpu.nvidia.com (so it has
    2 GPUs); device class gpu.nvidia.com selects that driver, class accel (no "gpu" in its name, so
    not counted as GPUs) selects every device. `claims` are (name, count, queue label or None,
    class) and `pods` (name, claim), created a second apart in that order."""
    claim = lambda name, count, queue, cls="gpu.nvidia.com": {
        "metadata": {"name": name, "namespace": "a", **({"labels": {"kai.scheduler/queue": queue}} if queue else {})},
        "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": cls,
                                                                       "allocationMode": "ExactCount", "count": count}}]}}}
    pod = lambda i, name, claim_name: {
        "metadata": {"name": name, "namespace": "a", "uid": name, "creationTimestamp": f"2026-08-03T10:00:0{i}Z",
                     "labels": {"kai.scheduler/queue": "q"}},
        "spec": {"schedulerName": "kai-scheduler", "containers": [{"name": "c"}],
                 "resourceClaims": [{"name": "gpus", "resourceClaimName": claim_name}]},
        "status": {"phase": "Pending"}}
    return json.dumps({"config": {}, "schedulerParams": {}, "rawObjects": {
        "nodes": [{"metadata": {"name": "n0"}, "status": {"allocatable": {"cpu": "16", "memory": "64Gi", "pods": "110"}}}],
        "deviceClasses": [{"metadata": {"name": "gpu.nvidia.com"},
                           "spec": {"selectors": [{"cel": {"expression": "device.driver == 'gpu.nvidia.com'"}}]}},
                          {"metadata": {"name": "accel"}}],
        "resourceSlices": [{"metadata": {"name": "n0-gpus"},
                            "spec": {"driver": "gpu.nvidia.com", "pool": {"name": "n0"}, "nodeName": "n0",
                                     "devices": [{"name": "gpu-0"}, {"name": "gpu-1"}]}}],
        "resourceClaims": [claim(*c) for c in claims],
        "queues": [{"metadata": {"name": "q"}, "spec": {"resources": {"gpu": {"quota": 2, "limit": -1}}}}],
        "pods": [pod(i, *p) for i, p in enumerate(pods)]}})


def test_dra_claims_get_devices_and_count_as_gpus(kaisim):
    report = cycle(kaisim, "-", stdin=snapshot_with_dra([("two", 2, "q"), ("one", 1, None, "accel")],
                                                        [("p2", "two"), ("p1", "one")]))
    # The 2-device GPU claim takes both devices (older pod first) and counts as 2 GPUs.
    [bind] = report["binds"]
    assert bind["pod"] == "a/p2" and bind["gpus"] == 2
    assert bind["resourceClaims"] == [{"name": "gpus", "claim": "two",
                                        "devices": ["gpu.nvidia.com/n0/gpu-0", "gpu.nvidia.com/n0/gpu-1"]}]
    assert report["queues"]["q"]["allocated"]["gpu"] == 2
    # The other claim asks for no GPUs, so only the devices stop it: none is free.
    [waiting] = report["pending"]
    assert waiting["job"].startswith("pg-p1-")
    assert any("cannot allocate DRA claims on node n0" in r for r in waiting["reasons"]), waiting


def test_a_shared_gpu_claim_needs_the_pod_s_queue_label(kaisim):
    report = cycle(kaisim, "-", stdin=snapshot_with_dra([("shared", 1, None)], [("p", "shared")]))
    assert report["binds"] == []
    assert any("is a shared GPU claim but does not have a queue label" in r for r in report["pending"][0]["reasons"])
    report = cycle(kaisim, "-", stdin=snapshot_with_dra([("missing", 1, "q")], [("p", "other")]))
    assert report["binds"] == []
    assert any("failed to get resource claim a/other" in r for r in report["pending"][0]["reasons"])


def test_the_default_output_is_a_table_of_the_same_decisions(kaisim):
    state = [*BASE, SEED / "vision-pod.yaml"]
    report = cycle(kaisim, *state)
    run = kaisim("cycle", *state)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].endswith(": 1 bind, 0 evictions, 0 pipelined pods, 0 jobs pending")
    [bind] = report["binds"]
    assert any(line.split()[:3] == [bind["pod"], bind["node"], "0.33"] for line in lines)
    # The queues table: fair share, allocated, requested, quota and limit (create-queues.yaml).
    row = next(line.split() for line in lines if line.split()[:1] == ["team-vision"])
    assert row[:6] == ["team-vision", "0.33", "0.33", "0.33", "0.33", "1"]
    assert "-o json" in lines[-1]


def test_the_table_says_why_each_pending_job_waits(kaisim):
    state = [*BASE, SEED / "nlp-pod-with-limitrange-defaults.yaml"]
    report = cycle(kaisim, *state)
    [pending] = report["pending"]
    text = kaisim("cycle", *state).stdout
    assert f"  - {pending['reasons'][0]}\n" in text
    assert "OverLimit: queue team-nlp would exceed its cpu limit (limit 0, allocated 0, requested 100)" in text


def test_the_sample_kai_snapshot_runs(kaisim):
    snapshot = SOURCE_DIR / "scenarios" / "examples" / "snapshot.json"
    report = cycle(kaisim, snapshot)
    assert {b["pod"] for b in report["binds"]} >= {"inference/serve-4", "inference/serve-5"}
    why = {p["job"]: p["reasons"] for p in report["pending"]}
    assert "llm-eval" in why and "node(s) didn't match" in " ".join(why["llm-eval"])
    table = kaisim("cycle", snapshot)
    assert table.returncode == 0 and "team-inference" in table.stdout
