"""The runbook's manifests (scenarios/seed/), renamed per test so tests can share one cluster."""
import gzip
import json
import re

from conftest import SEED, SHARED

TEAMS = ("nlp", "vision", "recommender")
RECORDING = SHARED / "kai-live" / "runbook-burst-and-reclaim" / "recording.jsonl.gz"


def queue_names(suffix):
    """Runbook queue name -> this test's name."""
    names = {"ml-org": f"ml-org-{suffix}"}
    names.update({f"team-{t}": f"team-{t}-{suffix}" for t in TEAMS})
    return names


def rename_queues(text, suffix):
    for old, new in sorted(queue_names(suffix).items(), key=lambda kv: -len(kv[0])):
        text = re.sub(rf"\b{re.escape(old)}\b", new, text)
    return text


def write_plan(folder, suffix):
    """The runbook's Queues as a plan folder; returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "queues.yaml").write_text(rename_queues((SEED / "create-queues.yaml").read_text(), suffix))
    return folder


def pod_manifest(team, suffix, *, name=None, node=None, fraction=None, grace=0):
    """A runbook pod of `team` (its queue renamed), optionally already bound to `node` as KAI's
    binder leaves it (spec.nodeName, received-resource-type: Fraction for a GPU share)."""
    text = (SEED / f"{team}-pod.yaml").read_text() if name is None else (SEED / f"{name}.yaml").read_text()
    text = rename_queues(text, suffix)
    if fraction is not None:
        text = re.sub(r'gpu-fraction: "[0-9.]+"', f'gpu-fraction: "{fraction}"', text)
    if node is not None:
        text = text.replace('    gpu-fraction:', '    received-resource-type: Fraction\n    gpu-fraction:')
        text = text.replace("spec:\n", f"spec:\n  nodeName: {node}\n", 1)
    return text.replace("spec:\n", f"spec:\n  terminationGracePeriodSeconds: {grace}\n", 1)


def recorded_queue_status(at_s):
    """Each runbook queue's Queue.status in the recording of the real KAI, at the sample nearest `at_s`."""
    best = None
    with gzip.open(RECORDING, "rt") as f:
        for line in f:
            record = json.loads(line)
            if record["kind"] == "sample" and (best is None or abs(record["t"] - at_s) < abs(best["t"] - at_s)):
                best = record
    return {name: (q.get("status") or {}) for name, q in best["queues"].items()}
