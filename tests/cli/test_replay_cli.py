"""`kaisim replay`: the runbook's burst-and-reclaim scenario and every scenario under scenarios/."""
import json
import pathlib

import pytest

from conftest import SOURCE_DIR

SCENARIOS = sorted(p for p in (SOURCE_DIR / "scenarios").rglob("*.yaml") if "schema_version" in p.read_text())
MAIN = SOURCE_DIR / "scenarios" / "seed" / "burst-and-reclaim.yaml"


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda p: str(p.relative_to(SOURCE_DIR)))
def test_every_scenario_meets_its_expectations(kaisim, scenario):
    run = kaisim("replay", scenario, "--check", timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert ", 0 failed" in run.stdout.splitlines()[-1]


def test_burst_and_reclaim_outputs(kaisim, tmp_path):
    out = tmp_path / "out"
    run = kaisim("replay", MAIN, "--out", out)
    assert run.returncode == 0, run.stderr
    assert sorted(p.name for p in out.iterdir()) == ["cluster.csv", "events.jsonl", "kai-timeline.csv", "summary.json", "timeline.csv"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["cluster"]["evictions"] == 1
    vision = summary["queues"]["team-vision"]
    assert vision["reclaim_latency_s_max"] == 30      # one 30 s termination grace period
    assert vision["evictions_caused"] == 1
    assert summary["queues"]["team-nlp"]["evictions_suffered"] == 1
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    evictions = [e for e in events if e["type"] == "evict"]
    assert [(e["time_s"], e["pod"], e["reason"]) for e in evictions] == [(180, "default/nlp-burst", "reclaim")]
    header = (out / "timeline.csv").read_text().splitlines()[0]
    assert header == "time_s,queue,resource,allocated,allocated_non_preemptible,requested,fair_share,quota,limit"
    assert (out / "kai-timeline.csv").read_text().startswith("Time,QueueID,Allocation,FairShare\n")


def test_same_scenario_same_bytes(kaisim, tmp_path):
    for name in ("a", "b"):
        assert kaisim("replay", MAIN, "--out", tmp_path / name).returncode == 0
    for f in ("timeline.csv", "kai-timeline.csv", "cluster.csv", "events.jsonl", "summary.json"):
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f


def test_a_failed_expectation_is_a_readable_diff_and_exit_1(kaisim, tmp_path):
    scenario = tmp_path / "s.yaml"
    scenario.write_text(MAIN.read_text().replace("team-vision: {allocatedGpu: 0.33}}\n  - at: 300s",
                                                 "team-vision: {allocatedGpu: 0.5}}\n  - at: 300s"))
    for name in ("l40s-node.yaml", "create-queues.yaml", "nlp-pod.yaml", "vision-pod.yaml",
                 "recommender-pod.yaml", "nlp-burst.yaml"):
        (tmp_path / name).write_text((MAIN.parent / name).read_text())
    run = kaisim("replay", scenario, "--check")
    assert run.returncode == 1
    assert "FAILED at 210s: queue team-vision allocated GPU is 0.33, want 0.5" in run.stdout
    assert run.stdout.splitlines()[-1] == "expectations: 28 passed, 1 failed"


BAD = [
    ("schema_version: 2\n", "s.yaml:1:17: schema_version: unsupported schema_version; this kaisim reads version 1"),
    ("schema_version: 1\nschedulePeriod: soon\n",
     's.yaml:2:17: schedulePeriod: not a duration such as "30s", "10m" or "1h": "soon"'),
    ("schema_version: 1\nsteps:\n  - name: no time\n", 's.yaml:3:5: steps[0]: missing required field "at"'),
    ("schema_version: 1\nexpect:\n  - at: 1s\n    pods: {default/p: Sleeping}\n",
     's.yaml:4:23: expect[0].pods.default/p: expected Pending, Running, Releasing or Deleted, got "Sleeping"'),
]


@pytest.mark.parametrize("text,message", BAD)
def test_bad_scenarios_one_message_exit_2_no_output(kaisim, tmp_path, text, message):
    scenario = tmp_path / "s.yaml"
    scenario.write_text(text)
    out = tmp_path / "out"
    run = kaisim("replay", scenario, "--out", out)
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr == f"kaisim: error: {tmp_path}/{message}\n"
    assert not out.exists()
    assert list(tmp_path.iterdir()) == [scenario]


def test_a_bad_manifest_names_its_own_file(kaisim, tmp_path):
    (tmp_path / "node.yaml").write_text("apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus: {allocatable: {cpu: many}}\n")
    scenario = tmp_path / "s.yaml"
    scenario.write_text("schema_version: 1\nmanifests: [node.yaml]\n")
    run = kaisim("replay", scenario, "--out", tmp_path / "out")
    assert run.returncode == 2
    assert "node.yaml:4:29: status.allocatable.cpu: not a valid quantity" in run.stderr
    assert not (tmp_path / "out").exists()


def test_refuses_to_overwrite_a_folder_that_is_not_a_replay(kaisim, tmp_path):
    precious = tmp_path / "mine"
    precious.mkdir()
    (precious / "notes.txt").write_text("keep me")
    run = kaisim("replay", MAIN, "--out", precious)
    assert run.returncode == 2
    assert "not a kaisim replay output folder" in run.stderr
    assert (precious / "notes.txt").read_text() == "keep me"
