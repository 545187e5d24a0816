"""Admission for real: the runbook's queue guard as `kaisim plan` generates it for the plan's three
tenants, applied by `kaisim apply` to the test cluster's apiserver; the runbook's six negative
pods are denied in a server-side dry run and its positive pod is admitted."""
import json
import re
import time

import pytest
import yaml

from conftest import SEED, SHARED, SOURCE_DIR, kubectl, kubectl_json

RUNBOOK = SHARED / "seed" / "000_5b198dbdf4547b34.txt"
TENANTS = ("nlp", "vision", "recommender")
pytestmark = pytest.mark.skipif(not RUNBOOK.is_file(), reason="skipped: ../shared/seed not present")


def runbook_negative_pods():
    """The six pods of the runbook's invalid-gpu-pods.yaml, read from the runbook itself."""
    text = RUNBOOK.read_text()
    start = text.index("invalid-gpu-pods.yaml", text.index("六个负向用例"))
    block = text[text.index("apiVersion:", start):text.index("kubectl apply -f queue-guard.yaml", start)]
    block = block[:block.rindex("value: all") + len("value: all")]
    pods = [d for d in yaml.safe_load_all(block) if d]
    assert [p["kind"] for p in pods] == ["Pod"] * 6
    return pods


def positive_pod():
    """The runbook's nlp-pod.yaml as the host cluster gets it from team-nlp's vCluster: in the
    vCluster's host namespace, with the managed-by label its syncer adds."""
    pod = yaml.safe_load((SEED / "nlp-pod.yaml").read_text())
    pod["metadata"]["namespace"] = "vcluster-team-nlp"
    pod["metadata"]["labels"]["vcluster.loft.sh/managed-by"] = "team-nlp"
    return pod


@pytest.fixture
def plan_applied(kaisim, tmp_path):
    plan = tmp_path / "plan"
    run = kaisim("plan", SOURCE_DIR / "scenarios" / "plans" / "runbook-manifests.yaml", "--out", plan, timeout=300)
    assert run.returncode == 0, run.stderr
    for t in TENANTS:
        kubectl("create", "namespace", f"vcluster-team-{t}")
    yield plan
    kubectl("delete", "-f", plan / "queue-guard.yaml", "--ignore-not-found", check=False)
    kubectl("delete", "-f", plan / "queues.yaml", "--ignore-not-found", check=False)
    kubectl("delete", "-f", plan / "runtimeclass.yaml", "--ignore-not-found", check=False)
    for t in TENANTS:
        kubectl("delete", "namespace", f"vcluster-team-{t}", "--wait=false", check=False)


def dry_run_kubectl(manifests):
    """kubectl's own server-side dry run, one object at a time: (name, admitted, message)."""
    out = []
    for m in manifests:
        run = kubectl("apply", "--dry-run=server", "-f", "-", stdin=yaml.safe_dump(m), check=False)
        out.append((m["metadata"]["name"], run.returncode == 0, run.stderr.strip()))
    return out


def test_queue_guard_from_the_plan_denies_the_runbooks_negative_pods_and_admits_its_pod(kaisim, plan_applied, tmp_path):
    plan = plan_applied
    run = kaisim("apply", plan, "--yes", "-o", "json")
    assert run.returncode == 0, run.stdout + run.stderr
    report = json.loads(run.stdout)
    order = [(o["kind"], o["name"]) for o in report["objects"]]
    kinds = [k for k, _ in order]
    # PriorityClasses, the nvidia RuntimeClass, Queues (parent first), the policy, its binding.
    assert kinds == ["PriorityClass"] * 4 + ["RuntimeClass", "Queue", "Queue", "Queue", "Queue",
                                             "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"]
    assert order[5] == ("Queue", "ml-org")
    outcome = {name: o["outcome"] for (_, name), o in zip(order, report["objects"])}
    assert outcome["nvidia"] == "created" and outcome["kai-vcluster-queue-guard"] == "created"
    # The tenants' vCluster values files and plan.json are not Kubernetes objects: skipped, said so.
    assert "plan.json" in run.stderr and "vcluster-team-nlp.yaml" in run.stderr

    # The API server type-checks the policy's CEL; no warnings.
    for _ in range(100):
        status = kubectl_json("get", "validatingadmissionpolicy", "kai-vcluster-queue-guard").get("status", {})
        if "typeChecking" in status:
            break
        time.sleep(0.1)
    assert status.get("typeChecking", {}).get("expressionWarnings", []) == []

    negatives = tmp_path / "invalid-gpu-pods.yaml"
    negatives.write_text(yaml.safe_dump_all(runbook_negative_pods()))
    # The policy takes effect once the API server's policy informer has it: within a moment.
    for _ in range(50):
        run = kaisim("apply", negatives, "-o", "json")
        if run.returncode == 1 and all(o["outcome"] == "rejected" for o in json.loads(run.stdout)["objects"]):
            break
        time.sleep(0.2)
    report = json.loads(run.stdout)
    assert report["dryRun"] is True
    assert [o["name"] for o in report["objects"]] == ["invalid-wrong-queue", "invalid-missing-queue",
                                                      "invalid-default-scheduler", "invalid-missing-managed-by",
                                                      "invalid-runtime-bypass", "invalid-visible-devices-bypass"]
    for o in report["objects"]:
        assert o["outcome"] == "rejected", o
        assert "ValidatingAdmissionPolicy 'kai-vcluster-queue-guard' with binding 'kai-vcluster-queue-guard' denied request" \
            in o["message"], o
    messages = {o["name"]: o["message"] for o in report["objects"]}
    assert "must name its vCluster's queue" in messages["invalid-wrong-queue"]
    assert "must set schedulerName: kai-scheduler" in messages["invalid-default-scheduler"]
    assert "managed-by label" in messages["invalid-missing-managed-by"]
    # kubectl, the independent client, sees the same denials.
    for name, admitted, message in dry_run_kubectl(runbook_negative_pods()):
        assert not admitted and "denied request" in message, (name, message)
    assert kubectl("get", "pods", "-n", "vcluster-team-nlp", "-o", "name").stdout == ""  # a dry run leaves nothing

    positive = tmp_path / "nlp-pod.yaml"
    positive.write_text(yaml.safe_dump(positive_pod()))
    run = kaisim("apply", positive, "-o", "json")
    assert run.returncode == 0, run.stdout + run.stderr
    assert [(o["name"], o["outcome"]) for o in json.loads(run.stdout)["objects"]] == [("nlp-batch-test", "created")]
    assert dry_run_kubectl([positive_pod()])[0][1]
    assert kubectl("get", "pods", "-n", "vcluster-team-nlp", "-o", "name").stdout == ""
