"""Faults against the real kube-apiserver: refused credentials, RBAC, an apiserver stopped in the
middle of an apply, conflicts, the apiserver's own flow control answering 429, a dropped watch."""
import json
import os
import pathlib
import queue
import re
import socket
import subprocess
import threading
import time

import runbook
from conftest import CLUSTER_DIR, ctl, kubectl, kubectl_json

RBAC_READER = """apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: kaisim-test-reader-%(s)s}
rules: [{apiGroups: ["*"], resources: ["*"], verbs: [get, list, watch]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: kaisim-test-reader-%(s)s}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: kaisim-test-reader-%(s)s}
subjects: [{kind: User, name: kaisim-limited, apiGroup: rbac.authorization.k8s.io}]
"""


def kubeconfig_with_token(tmp_path, token):
    """The test cluster's kubeconfig with the admin-token user's token replaced."""
    text = pathlib.Path(os.environ["KUBECONFIG"]).read_text()
    text = re.sub(r"(- name: admin-token\n  user:\n    token: )\S+", lambda m: m.group(1) + token, text)
    text = text.replace("current-context: admin", "current-context: admin-token")
    path = tmp_path / "kubeconfig"
    path.write_text(text)
    return path


def test_a_bad_token_is_a_clear_401_that_never_shows_the_token(kaisim, tmp_path):
    token = "kaisim-wrong-" + "x" * 24
    run = kaisim("snapshot", "--kubeconfig", kubeconfig_with_token(tmp_path, token), "-v")
    assert run.returncode == 2
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("kaisim: error: https://127.0.0.1:")
    assert ": 401 Unauthorized: the API server refused the credentials of user \"admin-token\"" in last
    assert "(kubeconfig context \"admin-token\")" in last
    assert token not in run.stdout + run.stderr
    assert run.stdout == ""


def test_rbac_forbidden_is_a_403_naming_verb_and_resource(kaisim, suffix, cleanup, tmp_path):
    plan = runbook.write_plan(tmp_path / "plan", suffix)
    run = kaisim("apply", plan, "--context", "limited")
    assert run.returncode == 2
    assert re.search(r'403 Forbidden: .*User "kaisim-limited" cannot get resource "queues" in API group "scheduling.run.ai"',
                     run.stderr), run.stderr
    # Allowed to read but not to write: the apply itself is refused, naming the verb.
    kubectl("apply", "-f", "-", stdin=RBAC_READER % {"s": suffix})
    cleanup.extend([f"clusterrole/kaisim-test-reader-{suffix}", f"clusterrolebinding/kaisim-test-reader-{suffix}"])
    deadline = time.monotonic() + 10
    while True:
        run = kaisim("apply", plan, "--context", "limited")
        if "cannot get" not in run.stderr or time.monotonic() > deadline:
            break
        time.sleep(0.2)  # RBAC takes effect within a moment
    assert run.returncode == 2
    assert re.search(r'403 Forbidden: .*User "kaisim-limited" cannot patch resource "queues" in API group "scheduling.run.ai"',
                     run.stderr), run.stderr
    assert kubectl("get", "queue", runbook.queue_names(suffix)["ml-org"], check=False).returncode != 0


def test_an_apiserver_stopped_mid_apply_gives_a_clear_error_in_time_and_a_rerun_converges(kaisim_bin, suffix, cleanup, tmp_path):
    # 300 Queues; the apiserver is stopped once some exist. kaisim must stop with a clear error
    # within its deadline; after the apiserver is back, the same apply converges: every Queue
    # whole, none half-applied.
    plan = tmp_path / "plan"
    plan.mkdir()
    names = [f"bulk-{suffix}-{i:03d}" for i in range(300)]
    cleanup.extend(f"queue/{n}" for n in names)
    (plan / "queues.yaml").write_text("".join(
        f"---\napiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {{name: {n}}}\n"
        f"spec:\n  resources:\n    gpu: {{quota: {i % 7}, limit: -1, overQuotaWeight: {1 + i % 3}}}\n"
        for i, n in enumerate(names)))
    apply = subprocess.Popen([kaisim_bin, "apply", plan, "--yes", "--timeout", "6s", "--request-timeout", "3s", "-o", "json"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            listed = kubectl("get", "queues", "-o", "name").stdout
            if sum(f"bulk-{suffix}-" in line for line in listed.splitlines()) >= 20:
                break
            time.sleep(0.05)
        ctl("stop-apiserver")
        stopped = time.monotonic()
        out, err = apply.communicate(timeout=60)
        took = time.monotonic() - stopped
    finally:
        if apply.poll() is None:
            apply.kill()
        ctl("start-apiserver")
    assert apply.returncode == 2, err
    assert took < 6 + 3 + 5  # its deadline, one request's timeout, and slack for this shared machine
    assert re.search(r"kaisim: error: https://127\.0\.0\.1:\d+: (GET|PATCH) /apis/scheduling\.run\.ai/v2/queues/bulk-.*"
                     r"no answer \(.*\); gave up after \d+ attempt\(s\) in [\d.]+ s, the deadline is 6\.0 s", err), err
    report = json.loads(out)
    assert report["error"] and report["objects"]
    done = {o["name"] for o in report["objects"] if o["outcome"] == "created"}
    assert 20 <= len(done) < 300

    for _ in range(50):  # the apiserver serves its CRDs a moment after it is ready
        rerun = subprocess.run([kaisim_bin, "apply", plan, "--yes", "-o", "json"], capture_output=True, text=True, timeout=300)
        if rerun.returncode == 0 or "404" not in rerun.stderr + rerun.stdout:
            break
        time.sleep(0.5)
    assert rerun.returncode == 0, rerun.stderr
    second = {o["name"]: o["outcome"] for o in json.loads(rerun.stdout)["objects"]}
    assert all(second[n] == "unchanged" for n in done)
    assert set(second.values()) <= {"created", "unchanged"}
    live = {q["metadata"]["name"]: q["spec"] for q in kubectl_json("get", "queues")["items"] if q["metadata"]["name"] in names}
    assert sorted(live) == names
    for i, n in enumerate(names):
        assert live[n]["resources"]["gpu"] == {"quota": i % 7, "limit": -1, "overQuotaWeight": 1 + i % 3}, n


def test_a_conflict_with_another_field_manager_is_reported_not_forced(kaisim, suffix, cleanup, tmp_path):
    plan = runbook.write_plan(tmp_path / "plan", suffix)
    names = runbook.queue_names(suffix)
    cleanup.extend(f"queue/{q}" for q in names.values())
    # Another tool owns team-vision's quota (server-side apply as field manager "platform-tool").
    other = runbook.rename_queues((runbook.SEED / "create-queues.yaml").read_text(), suffix).replace("0.33", "0.5")
    kubectl("apply", "--server-side", "--field-manager=platform-tool", "-f", "-", stdin=other)
    run = kaisim("apply", plan, "--yes", "-o", "json")
    assert run.returncode == 1
    report = json.loads(run.stdout)
    conflicts = {o["name"]: o for o in report["objects"] if o["outcome"] == "conflict"}
    assert sorted(conflicts) == sorted(names[f"team-{t}"] for t in runbook.TEAMS)
    one = conflicts[names["team-vision"]]
    assert one["details"] == ['.spec.resources.gpu.quota (conflict with "platform-tool")']
    assert "--force-conflicts" in one["message"]
    assert kubectl_json("get", "queue", names["team-vision"])["spec"]["resources"]["gpu"]["quota"] == 0.5
    text = kaisim("apply", plan).stdout
    assert re.search(rf"Queue/{names['team-vision']} +conflict: Apply failed with 1 conflict", text)


class BlackHole:
    """A TCP listener that accepts connections and never answers: an admission webhook that
    hangs, so the API server's own request for it stays in flight."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.held = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.held.append(conn)

    def close(self):
        for c in self.held:
            c.close()
        self.sock.close()


def test_flow_control_429_is_retried_honouring_retry_after(kaisim, suffix, cleanup, namespace):
    # The API server's own flow control (API Priority and Fairness) with no concurrency of its
    # own for user kaisim-limited: while one of that user's requests is in flight (a ConfigMap
    # create held by a webhook that never answers), every other one is rejected with 429 and a
    # Retry-After. kaisim retries, waiting at least what the server asked, until its deadline.
    ca = (pathlib.Path(CLUSTER_DIR) / "ca.crt").read_bytes()
    import base64
    hole = BlackHole()
    kubectl("apply", "-f", "-", stdin=RBAC_READER % {"s": suffix} + f"""---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {{name: cm-writer, namespace: {namespace}}}
rules: [{{apiGroups: [""], resources: [configmaps], verbs: [create]}}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {{name: cm-writer, namespace: {namespace}}}
roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: Role, name: cm-writer}}
subjects: [{{kind: User, name: kaisim-limited, apiGroup: rbac.authorization.k8s.io}}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {{name: kaisim-test-hang-{suffix}}}
webhooks:
- name: hang.kaisim.test
  clientConfig: {{url: "https://127.0.0.1:{hole.port}/hang", caBundle: {base64.b64encode(ca).decode()}}}
  rules: [{{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}}]
  namespaceSelector: {{matchLabels: {{kubernetes.io/metadata.name: {namespace}}}}}
  failurePolicy: Ignore
  sideEffects: None
  admissionReviewVersions: [v1]
  timeoutSeconds: 20
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {{name: kaisim-test-starved-{suffix}}}
spec:
  type: Limited
  limited:
    nominalConcurrencyShares: 0
    lendablePercent: 0
    borrowingLimitPercent: 0
    limitResponse: {{type: Reject}}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {{name: kaisim-test-starved-{suffix}}}
spec:
  priorityLevelConfiguration: {{name: kaisim-test-starved-{suffix}}}
  matchingPrecedence: 100
  rules:
  - subjects: [{{kind: User, user: {{name: kaisim-limited}}}}]
    resourceRules: [{{verbs: ["*"], apiGroups: ["*"], resources: ["*"], clusterScope: true, namespaces: ["*"]}}]
    nonResourceRules: [{{verbs: ["*"], nonResourceURLs: ["*"]}}]
""")
    cleanup.extend([f"clusterrole/kaisim-test-reader-{suffix}", f"clusterrolebinding/kaisim-test-reader-{suffix}",
                    f"validatingwebhookconfiguration/kaisim-test-hang-{suffix}",
                    f"flowschema/kaisim-test-starved-{suffix}", f"prioritylevelconfiguration/kaisim-test-starved-{suffix}"])
    holders = []

    def hold_a_seat():
        # kubectl as kaisim-limited: a create that waits on the hanging webhook (up to 20 s).
        holders.append(subprocess.Popen(["kubectl", "--context", "limited", "-n", namespace, "create", "configmap",
                                         f"held-{len(holders)}", "--request-timeout=30s"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))

    try:
        time.sleep(1.5)  # flow-control objects and the webhook take effect within a moment
        hold_a_seat()
        time.sleep(1.0)
        start = time.monotonic()
        run = kaisim("snapshot", "--context", "limited", "--timeout", "5s", "-v")
        took = time.monotonic() - start
        assert run.returncode == 2, run.stderr
        retries = re.findall(r"retrying GET (\S+) in ([\d.]+) s after 429 Too Many Requests \(Retry-After: (\d+)\)", run.stderr)
        assert retries, run.stderr
        for _, wait, asked in retries:
            assert float(wait) >= float(asked)  # the server's Retry-After is honoured
        assert re.search(r"kaisim: error: https://127\.0\.0\.1:\d+: GET \S+: 429 Too Many Requests.*gave up after \d+ "
                         r"attempt\(s\) in [\d.]+ s \(the server asked to retry after [\d.]+ s\), the deadline is 5\.0 s",
                         run.stderr), run.stderr
        assert took < 5 + 3

        # Once the seat is free again the same snapshot goes through, after waiting as asked.
        for h in holders:
            h.kill()
        hole.close()
        kubectl("delete", "flowschema", f"kaisim-test-starved-{suffix}")
        run = kaisim("snapshot", "--context", "limited", "--timeout", "30s", "-o", pathlib.Path(CLUSTER_DIR) / f"snap-{suffix}.json")
        assert run.returncode == 0, run.stderr
    finally:
        for h in holders:
            h.kill()
        hole.close()


def read_lines(stream):
    lines = queue.Queue()

    def pump():
        for line in stream:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    return lines


def next_line(lines, timeout):
    line = lines.get(timeout=timeout)
    assert line is not None, "the watch ended"
    return json.loads(line)


def test_watch_resumes_after_the_apiserver_restarts(kaisim_bin, suffix, cleanup, tmp_path):
    plan = runbook.write_plan(tmp_path / "plan", suffix)
    names = runbook.queue_names(suffix)
    cleanup.extend(f"queue/{q}" for q in names.values())
    subprocess.run([kaisim_bin, "apply", plan, "--yes"], check=True, capture_output=True)
    watch = subprocess.Popen([kaisim_bin, "diff", plan, "--watch", "--for", "90s", "--settle", "1s", "-o", "json",
                              "--timeout", "60s"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = read_lines(watch.stdout)
        next_line(lines, 30)
        ctl("stop-apiserver")
        time.sleep(1)
        ctl("start-apiserver")
        for _ in range(100):  # the CRD's paths come a moment after /readyz
            if kubectl("patch", "queue", names["team-vision"], "--type=merge", "-p",
                       '{"spec":{"resources":{"gpu":{"quota":0.5}}}}', check=False).returncode == 0:
                break
            time.sleep(0.2)
        change = next_line(lines, 45)
        assert [(r["queue"], r["field"], r["observed"], r["drift"]) for r in change["rows"]] == [
            (names["team-vision"], "spec.resources.gpu.quota", "0.5", True)]
    finally:
        watch.kill()
        watch.wait()
