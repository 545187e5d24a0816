"""`kaisim diff --recording`: the replay's Queue.status against recordings of the real KAI v0.16.4.

Every recording in ../shared/kai-live/ is the run of one of our scenarios (its folder name ends
with the scenario's `name`). kaisim replays the same steps and must predict the recorded
Queue.status at every settled sample (no predicted change within the settle period either side)
with zero drift.
"""
import json
import re

import pytest

from conftest import SOURCE_DIR

LIVE = SOURCE_DIR.resolve().parent / "shared" / "kai-live"
RECORDINGS = sorted(p for p in LIVE.iterdir() if (p / "recording.jsonl.gz").is_file()) if LIVE.is_dir() else []
SCENARIOS = {re.search(r"^name: (\S+)", p.read_text(), re.M).group(1): p
             for p in (SOURCE_DIR / "scenarios").rglob("*.yaml")
             if "schema_version" in p.read_text() and re.search(r"^name: (\S+)", p.read_text(), re.M)}
needs_recordings = pytest.mark.skipif(not RECORDINGS, reason="skipped: ../shared/kai-live not present")


def scenario_of(recording):
    names = [n for n in SCENARIOS if recording.name.endswith(n)]
    assert names, f"no scenario under scenarios/ for the recording {recording.name}"
    return SCENARIOS[max(names, key=len)]


@needs_recordings
@pytest.mark.parametrize("recording", RECORDINGS, ids=lambda p: p.name)
def test_replay_predicts_every_settled_sample_of_the_recording(kaisim, recording):
    run = kaisim("diff", "--recording", recording, "--scenario", scenario_of(recording), "-o", "json")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr
    report = json.loads(run.stdout)
    assert report["drifting"] == 0
    settled = {row["at_s"] for row in report["rows"]}
    assert len(settled) > 300  # most of the 421 one-second samples
    # Every queue is compared at every settled sample, allocated and requested alike.
    queues = {row["queue"] for row in report["rows"]}
    assert queues == {"ml-org", "team-nlp", "team-vision", "team-recommender"}
    assert len(report["rows"]) == len(settled) * len(queues) * 3


@needs_recordings
def test_the_comparison_sees_the_binders_delay_without_a_settle_period(kaisim):
    # At 1.5 s the real KAI has not bound the three pods yet (its binder lands them ~1.9 s after
    # the first cycle): with no settle period that sample drifts, so the test above can fail.
    recording = LIVE / "runbook-burst-and-reclaim"
    run = kaisim("diff", "--recording", recording, "--scenario", scenario_of(recording), "--settle", "1s")
    assert run.returncode == 1
    drifting = [line.split() for line in run.stdout.splitlines()[2:] if line.endswith(" DRIFT")]
    assert {(row[0], row[1], row[5], row[6]) for row in drifting} == {
        ("1.504", "ml-org", "990m", "0"), ("1.504", "team-nlp", "330m", "0"),
        ("1.504", "team-vision", "330m", "0"), ("1.504", "team-recommender", "330m", "0")}


@needs_recordings
def test_a_scenario_that_counts_terminating_pods_out_drifts(kaisim, tmp_path):
    # Had kaisim dropped the deleted pods at once (the scheduler's view), the recording's 60-89 s
    # plateau (vision and recommender still counted while they terminate) would drift: replay a
    # scenario whose pods terminate at once and compare with the same recording.
    main = SOURCE_DIR / "scenarios" / "seed" / "burst-and-reclaim.yaml"
    for f in main.parent.glob("*.yaml"):
        (tmp_path / f.name).write_text(f.read_text())
    scenario = tmp_path / "burst-and-reclaim.yaml"
    scenario.write_text(main.read_text().replace("podTerminationGracePeriod: 30s", "podTerminationGracePeriod: 0s"))
    run = kaisim("diff", "--recording", LIVE / "runbook-burst-and-reclaim", "--scenario", scenario, "-o", "json")
    assert run.returncode == 1
    drift = [r for r in json.loads(run.stdout)["rows"] if r["drift"]]
    assert any(r["queue"] == "team-vision" and r["field"] == "allocated" and r["observed"] == "330m" and 65 < r["at_s"] < 85
               for r in drift)


def test_a_recording_of_other_steps_is_refused(kaisim, tmp_path):
    folder = tmp_path / "rec"
    folder.mkdir()
    import gzip
    with gzip.open(folder / "recording.jsonl.gz", "wt") as f:
        f.write(json.dumps({"kind": "start", "T0": "2026-01-01T00:00:00Z"}) + "\n")
        f.write(json.dumps({"kind": "step", "t": 5, "name": "x", "results": []}) + "\n")
    run = kaisim("diff", "--recording", folder, "--scenario", SOURCE_DIR / "scenarios" / "seed" / "burst-and-reclaim.yaml")
    assert run.returncode == 2
    assert run.stderr.startswith("kaisim: error: ") and "step 1 is at 5" in run.stderr
