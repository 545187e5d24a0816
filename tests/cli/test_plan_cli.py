"""`kaisim plan`: the plan folder's manifests, bad plan files, and the planner's answers."""
import copy
import json
import pathlib

import jsonschema
import pytest
import yaml

from conftest import SOURCE_DIR

PLANS = SOURCE_DIR / "scenarios" / "plans"
SHARED = SOURCE_DIR.parent / "shared"
QUEUE_CRD = SHARED / "kai-crds" / "scheduling.run.ai_queues.yaml"


def queue_schema():
    """The Queue CRD's OpenAPI schema (v2). An API server prunes fields a structural schema does
    not name, so every object that lists its properties is closed here: a field the server would
    drop fails the test instead of vanishing."""
    crd = yaml.safe_load(QUEUE_CRD.read_text())
    version = next(v for v in crd["spec"]["versions"] if v["name"] == "v2")
    schema = copy.deepcopy(version["schema"]["openAPIV3Schema"])

    def close(node):
        if isinstance(node, dict):
            if node.get("type") == "object" and "properties" in node and "additionalProperties" not in node \
                    and not node.get("x-kubernetes-preserve-unknown-fields"):
                node["additionalProperties"] = False
            for value in node.values():
                close(value)
        elif isinstance(node, list):
            for value in node:
                close(value)

    close(schema)
    return schema


def plan_folder(kaisim, plan, out):
    run = kaisim("plan", plan, "--out", out, "--quiet", timeout=600)
    assert run.returncode in (0, 1), run.stdout + run.stderr
    return run


def test_runbook_manifests_folder(kaisim, tmp_path):
    out = tmp_path / "plan"
    run = plan_folder(kaisim, PLANS / "runbook-manifests.yaml", out)
    assert run.returncode == 0, run.stdout
    names = sorted(p.name for p in out.iterdir())
    for name in ("queues.yaml", "priorityclasses.yaml", "runtimeclass.yaml", "queue-guard.yaml", "plan.json",
                 "report.md", "report.html", "vcluster-team-nlp.yaml", "vcluster-team-vision.yaml",
                 "vcluster-team-recommender.yaml"):
        assert name in names
    queues = list(yaml.safe_load_all((out / "queues.yaml").read_text()))
    assert [q["metadata"]["name"] for q in queues] == ["ml-org", "team-nlp", "team-vision", "team-recommender"]
    for q in queues:
        # The runbook's LimitRange trap: a Queue without cpu or memory has limit 0 for them.
        assert set(q["spec"]["resources"]) == {"gpu", "cpu", "memory"}
    assert queues[1]["spec"] == {"parentQueue": "ml-org", "priority": 100, "resources": {
        "gpu": {"quota": 0.33, "limit": 1, "overQuotaWeight": 1},
        "cpu": {"quota": -1, "limit": -1, "overQuotaWeight": 1},
        "memory": {"quota": -1, "limit": -1, "overQuotaWeight": 1}}}

    classes = {c["metadata"]["name"]: c["value"] for c in yaml.safe_load_all((out / "priorityclasses.yaml").read_text())}
    assert classes == {"train": 50, "build-preemptible": 75, "build": 100, "inference": 125}
    runtime = yaml.safe_load((out / "runtimeclass.yaml").read_text())
    assert (runtime["kind"], runtime["metadata"]["name"], runtime["handler"]) == ("RuntimeClass", "nvidia", "nvidia")

    policy, binding = yaml.safe_load_all((out / "queue-guard.yaml").read_text())
    assert policy["kind"] == "ValidatingAdmissionPolicy" and binding["kind"] == "ValidatingAdmissionPolicyBinding"
    assert binding["spec"]["policyName"] == policy["metadata"]["name"] == "kai-vcluster-queue-guard"
    assert binding["spec"]["validationActions"] == ["Deny"]
    namespaces = binding["spec"]["matchResources"]["namespaceSelector"]["matchExpressions"][0]["values"]
    assert namespaces == ["vcluster-team-nlp", "vcluster-team-vision", "vcluster-team-recommender"]
    identity, queue, scheduler, ephemeral = (v["expression"] for v in policy["spec"]["validations"])
    for team in ("team-nlp", "team-vision", "team-recommender"):
        assert f"object.metadata.namespace == 'vcluster-{team}' && object.metadata.labels['kai.scheduler/queue'] == '{team}'" \
            in " ".join(queue.split())
        assert f"labels['vcluster.loft.sh/managed-by'] == '{team}'" in identity
    assert "kai-scheduler" in scheduler and "ephemeralContainers" in ephemeral
    match = policy["spec"]["matchConditions"][0]["expression"]
    for access in ("gpu-fraction", "gpu-memory", "runtimeClassName", "nvidia.com/gpu", "nvidia.com/mig-",
                   "NVIDIA_VISIBLE_DEVICES", "initContainers", "ephemeralContainers"):
        assert access in match
    assert policy["spec"]["matchConstraints"]["resourceRules"][0]["resources"] == ["pods", "pods/ephemeralcontainers"]

    values = yaml.safe_load((out / "vcluster-team-nlp.yaml").read_text())
    assert values["experimental"]["syncSettings"]["setOwner"] is False
    assert values["policies"]["limitRange"]["defaultRequest"] == {"cpu": "100m", "memory": "256Mi", "ephemeral-storage": "1Gi"}
    assert values["sync"]["fromHost"]["nodes"]["selector"]["labels"] == {"nvidia.com/gpu.present": "true"}
    assert values["sync"]["fromHost"]["runtimeClasses"]["enabled"] is False
    assert values["policies"]["resourceQuota"]["quota"]["count/pods"] == 40

    plan = json.loads((out / "plan.json").read_text())
    assert plan["kai_version"] == "v0.16.4" and plan["answer"]["targets_met"] is True
    phase = next(p for p in plan["queue_status"]["phases"] if p["at_s"] == 59)
    assert phase["queues"]["team-nlp"]["allocated"]["gpu"] == 0.33
    assert phase["queues"]["ml-org"]["requested"]["gpu"] == 0.99


@pytest.mark.skipif(not QUEUE_CRD.exists(), reason="skipped: ../shared/kai-crds/ not present")
def test_planned_queues_are_valid_for_the_queue_crd(kaisim, tmp_path):
    schema = queue_schema()
    for plan in ("runbook-manifests.yaml",):
        out = tmp_path / plan
        plan_folder(kaisim, PLANS / plan, out)
        for queue in yaml.safe_load_all((out / "queues.yaml").read_text()):
            jsonschema.validate(queue, schema)
    # The check can fail: a field the CRD does not know, or a quota that is not a number.
    bad = {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": "q"},
           "spec": {"resources": {"gpu": {"quota": "1", "limit": 1, "overQuotaWeight": 1}}}}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)
    bad["spec"]["resources"]["gpu"] = {"quota": 1, "limt": 1}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)


def test_same_plan_same_bytes_whatever_the_jobs(kaisim, tmp_path):
    for name, jobs in (("a", "1"), ("b", "2")):
        run = kaisim("plan", PLANS / "runbook-manifests.yaml", "--out", tmp_path / name, "--jobs", jobs, "--quiet")
        assert run.returncode == 0, run.stderr
    for f in sorted((tmp_path / "a").iterdir()):
        assert f.read_bytes() == (tmp_path / "b" / f.name).read_bytes(), f.name
