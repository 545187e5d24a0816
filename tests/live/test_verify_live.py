"""kaisim verify-live against the test cluster. No KAI runs there, so nothing writes Queue.status:
a step whose predicted status is zero agrees, one that predicts a bound KAI pod's share drifts."""
import json
import re

from conftest import SEED, kubectl


def test_verify_live_applies_each_step_at_its_time_and_compares_it(kaisim, suffix, cleanup, tmp_path):
    org, team = f"vq-org-{suffix}", f"vq-team-{suffix}"
    cleanup.extend([f"queue/{team}", f"queue/{org}"])
    (tmp_path / "l40s-node.yaml").write_text((SEED / "l40s-node.yaml").read_text())
    (tmp_path / "queues.yaml").write_text(f"""apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {{name: {org}}}
spec: {{resources: {{gpu: {{quota: 1, limit: 1, overQuotaWeight: 1}}}}}}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {{name: {team}}}
spec: {{parentQueue: {org}, resources: {{gpu: {{quota: 1, limit: 1, overQuotaWeight: 1}}}}}}
""")
    # Another scheduler's pod: no PodGroup, so KAI's controllers count it nowhere.
    (tmp_path / "foreign.yaml").write_text(f"""apiVersion: v1
kind: Pod
metadata: {{name: foreign-{suffix}}}
spec:
  nodeName: l40s-0
  terminationGracePeriodSeconds: 0
  containers: [{{name: c, image: busybox, resources: {{requests: {{cpu: 100m}}}}}}]
""")
    # A KAI pod already bound to l40s-0 with half the GPU: 0.5 predicted for its queue.
    (tmp_path / "bound.yaml").write_text(f"""apiVersion: v1
kind: Pod
metadata:
  name: bound-{suffix}
  labels: {{kai.scheduler/queue: {team}}}
  annotations: {{gpu-fraction: "0.5", received-resource-type: Fraction}}
spec:
  schedulerName: kai-scheduler
  nodeName: l40s-0
  terminationGracePeriodSeconds: 0
  containers: [{{name: c, image: busybox}}]
""")
    scenario = tmp_path / "verify.yaml"
    scenario.write_text("""schema_version: 1
name: verify-short
duration: 8s
manifests: [l40s-node.yaml, queues.yaml]
steps:
  - {at: 0s, name: a pod of another scheduler, apply: [foreign.yaml]}
  - {at: 3s, name: a KAI pod bound by hand, apply: [bound.yaml]}
""")
    try:
        run = kaisim("verify-live", scenario, "--yes", "--settle", "2s", timeout=120)
    finally:
        kubectl("delete", "pod", f"foreign-{suffix}", f"bound-{suffix}", "--grace-period=0", "--force",
                "--ignore-not-found", check=False)
    assert run.returncode == 1, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert lines[-1] == "steps 2, drifting 1"
    assert re.match(r"step 1 at 0 s \(a pod of another scheduler\): ok, compared until [\d.]+ s$", lines[0])
    assert re.match(r"step 2 at 3 s \(a KAI pod bound by hand\): DRIFT, compared until [\d.]+ s$", lines[1])
    assert f"  {team} status.allocated nvidia.com/gpu: predicted 500m, observed 0" in lines
    assert f"  {org} status.allocated nvidia.com/gpu: predicted 500m, observed 0" in lines
    assert "Node l40s-0 not applied" in run.stderr
    # The objects are in the cluster, as the scenario applied them.
    assert kubectl("get", "queue", team).returncode == 0


def test_verify_live_changes_nothing_without_yes(kaisim, tmp_path):
    run = kaisim("verify-live", SEED / "burst-and-reclaim.yaml")
    assert run.returncode == 2
    assert run.stderr.strip() == ("kaisim: error: --yes: verify-live changes the cluster (it applies the scenario's "
                                  "objects and steps); pass --yes")
