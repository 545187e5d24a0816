"""kaisim.fair_share and kaisim.cycle answer as the CLI does."""
import json

import pytest

import kaisim
from conftest import ROOT

KAI_EXAMPLE = ROOT / "tests" / "cli" / "data" / "kai-readme-example.json"


def test_fair_share_matches_the_cli(cli):
    proc = cli("fairshare", KAI_EXAMPLE)
    assert proc.returncode == 0, proc.stderr
    want = json.loads(proc.stdout)
    frame = kaisim.fair_share(KAI_EXAMPLE)
    assert sorted(frame.index) == sorted(want)
    for uid, share in want.items():
        for resource in ("gpu", "cpu", "memory"):
            assert frame.loc[uid, resource] == share[resource]
    assert kaisim.fair_share(json.loads(KAI_EXAMPLE.read_text())).equals(frame)


def test_fair_share_bad_request_names_the_field():
    with pytest.raises(kaisim.ScenarioError) as err:
        kaisim.fair_share({"totalResource": {"GPU": "many"}, "queues": []})
    assert err.value.field.startswith("totalResource")


def test_cycle_matches_the_cli_on_the_runbook_manifests(cli):
    seed = ROOT / "scenarios" / "seed"
    files = [seed / "l40s-node.yaml", seed / "create-queues.yaml", seed / "nlp-pod.yaml", seed / "nlp-burst.yaml"]
    proc = cli("cycle", "-o", "json", *files)
    assert proc.returncode == 0, proc.stderr
    report = kaisim.cycle(files)
    assert report == json.loads(proc.stdout)
    bound = {b["pod"] for b in report["binds"]} if isinstance(report.get("binds"), list) else set()
    assert bound, report.keys()
