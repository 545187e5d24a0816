"""kaisim.replay: the same run as the CLI, from a path, a YAML string or a dict."""
import json
import threading
import warnings

import pandas as pd
import pytest

import kaisim
from conftest import ROOT, RUNBOOK, SCENARIOS


def test_runbook_replay_gives_the_cli_numbers_byte_for_byte(cli, tmp_path):
    out = tmp_path / "out"
    proc = cli("replay", RUNBOOK, "--out", out, "--check")
    assert proc.returncode == 0, proc.stderr
    result = kaisim.replay(RUNBOOK, check=True)
    assert result.expectations_checked == 29
    assert sorted(result.outputs) == sorted(p.name for p in out.iterdir() if p.name != ".kaisim-output")
    for name, text in result.outputs.items():
        assert (out / name).read_text() == text, name
    assert proc.stdout.startswith(result.summary_table)


def test_frames_have_the_documented_columns_and_the_runbook_reclaim():
    result = kaisim.replay(RUNBOOK)
    assert list(result.timeline.columns) == ["time_s", "queue", "resource", "allocated", "allocated_non_preemptible",
                                             "requested", "fair_share", "quota", "limit"]
    assert list(result.kai_timeline.columns) == ["Time", "QueueID", "Allocation", "FairShare"]
    evicts = result.events[result.events["type"] == "evict"]
    assert list(evicts["pod"]) == ["default/nlp-burst"]
    assert list(evicts["reason"]) == ["reclaim"]
    assert list(evicts["for_queue"]) == ["team-vision"]
    summary = result.summary
    assert summary.index.name == "queue"
    assert summary.loc["team-vision", "reclaim_latency_s_max"] == 30
    assert summary.loc["team-nlp", "evictions_suffered"] == 1
    assert result.cluster["gpus"] == 1
    gpu = result.timeline.query("queue == 'team-nlp' and resource == 'gpu'")
    assert gpu["allocated"].max() == pytest.approx(0.99)


def test_yaml_string_and_dict_give_the_same_outputs_as_the_file():
    from_file = kaisim.replay(RUNBOOK)
    text = RUNBOOK.read_text()
    from_text = kaisim.replay(kaisim.Scenario.from_yaml(text, base_dir=RUNBOOK.parent, name="runbook"))
    assert from_text.outputs == from_file.outputs
    # The dict form: the scenario's own structure, written as JSON for the C++ loader.
    data = {"schema_version": 1, "name": "burst-and-reclaim", "duration": "7m",
            "manifests": ["l40s-node.yaml", "create-queues.yaml", "nlp-pod.yaml"]}
    from_dict = kaisim.replay(kaisim.Scenario.from_dict(data, base_dir=RUNBOOK.parent))
    assert from_dict.timeline.query("queue == 'team-nlp' and resource == 'gpu'")["allocated"].iloc[-1] == 0.33


def test_save_writes_what_the_cli_writes(cli, tmp_path):
    kaisim.replay(RUNBOOK).save(tmp_path / "py")
    assert cli("replay", RUNBOOK, "--out", tmp_path / "cli").returncode == 0
    for f in (tmp_path / "cli").iterdir():
        assert (tmp_path / "py" / f.name).read_bytes() == f.read_bytes()


def test_bad_scenario_raises_scenario_error_with_file_line_and_field(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("schema_version: 1\nschedulePeriod: soon\n")
    with pytest.raises(kaisim.ScenarioError) as err:
        kaisim.replay(bad)
    assert err.value.file == str(bad)
    assert err.value.line == 2
    assert err.value.field == "schedulePeriod"
    assert isinstance(err.value, ValueError)


def test_bad_manifest_names_the_manifest_file(tmp_path):
    (tmp_path / "q.yaml").write_text(
        "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: a}\nspec:\n"
        "  resources:\n    gpu: {quota: lots}\n")
    (tmp_path / "s.yaml").write_text("schema_version: 1\nmanifests: [q.yaml]\n")
    with pytest.raises(kaisim.ScenarioError) as err:
        kaisim.replay(tmp_path / "s.yaml")
    assert err.value.file.endswith("q.yaml")
    assert err.value.line == 6
    assert "quota" in err.value.field


def test_missing_file_is_an_io_error(tmp_path):
    with pytest.raises(kaisim.KaisimIOError):
        kaisim.replay(tmp_path / "nowhere.yaml")


def test_failed_expectation_raises_with_the_readable_diff():
    b = kaisim.ScenarioBuilder("one-pod", duration="5s").node_pool("l40s").queue("t", gpu_quota=1, gpu_limit=1)
    b.pod("p", queue="t", gpu_fraction=0.5).expect("2s", queues={"t": 0.25})
    with pytest.raises(kaisim.ExpectationFailed) as err:
        kaisim.replay(b.build(), check=True)
    assert err.value.failures[0][0] == 2.0
    assert "0.25" in str(err.value)
    # Without check the same run succeeds and reports the real value.
    result = kaisim.replay(b.build())
    assert result.timeline.query("queue == 't' and resource == 'gpu'")["allocated"].iloc[-1] == 0.5


def test_unknown_fields_become_python_warnings():
    with pytest.warns(kaisim.KaisimWarning, match="unknown field"):
        kaisim.replay({"schema_version": 1, "duration": "2s", "colour": "blue"})


def test_every_scenario_under_scenarios_replays_with_check():
    files = [p for p in SCENARIOS.rglob("*.yaml") if p.read_text().startswith("schema_version") or
             "\nschema_version:" in p.read_text()]
    assert files
    for path in files:
        kaisim.replay(path, check=True)


def test_the_gil_is_released_during_a_replay():
    # A long replay in a thread; the main thread keeps running Python meanwhile.
    b = kaisim.ScenarioBuilder("long", duration="6h").node_pool("l40s", count=4).queue("t")
    for i in range(8):
        b.pod(f"p{i}", queue="t", gpu_fraction=0.5, at=f"{i * 60}s")
    scenario = b.build()
    done = threading.Event()
    ticks = 0
    worker = threading.Thread(target=lambda: (kaisim.replay(scenario), done.set()))
    worker.start()
    while not done.is_set():
        ticks += 1
    worker.join()
    assert ticks > 1000


def test_gen_trace_writes_a_replayable_alibaba_shaped_workload(tmp_path):
    counts = kaisim.gen_trace(tmp_path / "t", pods=200, arrival_hours=0.25, node_scale=0.02)
    assert counts == {"nodes": 30, "gpus": 124, "pods": 200, "gpu_pods": counts["gpu_pods"],
                      "fractional_gpu_pods": counts["fractional_gpu_pods"]}
    assert 0 < counts["fractional_gpu_pods"] < counts["gpu_pods"] <= 200
    result = kaisim.replay(tmp_path / "t" / "scenario.yaml")
    ends = result.events[result.events["type"].isin(["complete", "gone"])]
    assert len(ends) == ends["pod"].nunique() == 200
    assert 0 < result.cycles_reused < result.cycles
    assert 0 < result.cycles_fair_share_only < result.cycles - result.cycles_reused
    assert 0 < result.cycles_updated < result.cycles - result.cycles_reused - result.cycles_fair_share_only
    with pytest.raises(kaisim.KaisimError, match="pods: must be between 1 and 200000"):
        kaisim.gen_trace(tmp_path / "u", pods=0)


def test_shipped_scenarios_are_found_from_any_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = kaisim.example("seed/burst-and-reclaim.yaml")
    assert path.is_file() and kaisim.example("examples/snapshot.json").is_file()
    assert kaisim.replay(path, check=True).expectations_checked == 29


def test_progress_reports_virtual_time_until_the_end():
    seen = []
    import kaisim._core as core

    raw = core.replay(str(RUNBOOK), "", "", "", False, False, lambda *a: seen.append(a))
    assert raw["cycles"] == 421
    now_ms, end_ms, cycles, submitted, done, finished = seen[-1]
    assert finished and now_ms == end_ms == 420_000 and cycles == 421 and submitted == 6


def test_explain_tells_the_limitrange_trap():
    trap = kaisim.replay(kaisim.example("seed/limitrange-defaults.yaml"))
    assert trap.explain("nlp-batch-test").startswith(
        "default/nlp-batch-test waited 30 s: OverLimit cpu, limit 0, because the Queue has no cpu block")
    assert trap.wait_by_cause.loc["team-nlp", "OverLimit"] == 30
