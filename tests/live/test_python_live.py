"""kaisim.live from Python against the test cluster: the same adapter, with DataFrames."""
import json

import pytest

import runbook
from conftest import kubectl, kubectl_json

live = pytest.importorskip("kaisim.live", reason="skipped: the kaisim Python package is not installed in this venv")


def test_snapshot_apply_diff_watch_from_python(suffix, cleanup, namespace, tmp_path):
    plan = runbook.write_plan(tmp_path / "plan", suffix)
    names = runbook.queue_names(suffix)
    cleanup.extend(f"queue/{q}" for q in names.values())

    dry = live.apply(plan)
    assert list(dry["outcome"]) == ["created"] * 4
    assert kubectl("get", "queue", names["ml-org"], check=False).returncode != 0
    done = live.apply(plan, dry_run=False)
    assert list(done["name"])[0] == names["ml-org"] and set(done["outcome"]) == {"created"}

    kubectl("apply", "-n", namespace, "-f", "-", stdin=runbook.pod_manifest("vision", suffix, node="l40s-0"))
    # As the CLI's test does: the prediction is read once kwok reports the pod Running (until then
    # it is a Pending pod with a node, which the prediction does not count as allocated yet).
    kubectl("wait", "--for=jsonpath={.status.phase}=Running", "-n", namespace, "pod/vision-batch-test",
            "--timeout=30s")
    snap = live.snapshot(path=tmp_path / "snap.json")
    assert {i["metadata"]["name"] for i in snap["items"] if i["kind"] == "Queue"} >= set(names.values())
    assert json.loads((tmp_path / "snap.json").read_text()) == snap

    rows = live.diff(plan, settle=0)
    spec = rows[(rows["kind"] == "spec") & (rows["queue"] == names["team-vision"])]
    assert not spec["drift"].any() and "spec.resources.gpu.quota" in set(spec["field"])
    mine = rows[(rows["kind"] == "status") & (rows["queue"] == names["team-vision"]) & (rows["resource"] == "nvidia.com/gpu")]
    assert dict(zip(mine["field"], mine["predicted"])) == {"allocated": "330m", "allocatedNonPreemptible": "0",
                                                           "requested": "330m"}
    # No KAI writes Queue.status here: the vision pod's share is predicted, not observed.
    assert dict(zip(mine["field"], mine["drift"])) == {"allocated": True, "allocatedNonPreemptible": False, "requested": True}

    session = live.watch(plan, duration=4, settle=1)
    first = session[session["at_s"] == session["at_s"].min()]
    assert len(first) >= len(rows[rows["queue"].isin(names.values())])
    # 0.33 has differed since the start: after the settle period it is reported drifting.
    later = session[(session["queue"] == names["team-vision"]) & (session["field"] == "allocated") &
                    (session["resource"] == "nvidia.com/gpu")]
    assert list(later["drift"]) == [False, True]
    fig = live.plot_status(session, queue=names["team-vision"], path=tmp_path / "watch.png")
    assert (tmp_path / "watch.png").stat().st_size > 0 and fig.axes[0].get_title().startswith(names["team-vision"])


def test_cluster_errors_reach_python_as_cluster_error(tmp_path):
    import kaisim

    bad = tmp_path / "kubeconfig"
    bad.write_text(open(__import__("os").environ["KUBECONFIG"]).read().replace("current-context: admin", "current-context: limited"))
    with pytest.raises(kaisim.ClusterError) as caught:
        live.apply(runbook.write_plan(tmp_path / "plan", "zz"), kubeconfig=bad)
    assert caught.value.http_status is None  # the apply stopped at a 403: its report's error
    assert "403 Forbidden" in str(caught.value) and 'cannot get resource "queues"' in str(caught.value)
