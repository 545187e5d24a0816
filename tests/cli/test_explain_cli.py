"""Why pods waited: typed `wait` events in events.jsonl, time waited by cause in summary.json,
and `kaisim explain` telling it in plain words, on the runbook's scenarios."""
import json

from conftest import SOURCE_DIR

SEED = SOURCE_DIR / "scenarios" / "seed"


def replay(kaisim, scenario, out):
    run = kaisim("replay", scenario, "--out", out, "--check")
    assert run.returncode == 0, run.stdout + run.stderr
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    return events, json.loads((out / "summary.json").read_text())


def test_the_limitrange_trap_reads_as_overlimit_cpu_because_the_queue_has_no_cpu_block(kaisim, tmp_path):
    events, summary = replay(kaisim, SEED / "limitrange-defaults.yaml", tmp_path / "out")
    [wait] = [e for e in events if e["type"] == "wait"]
    assert wait == {
        "time_s": 0, "type": "wait", "pod": "default/nlp-batch-test", "queue": "team-nlp", "cause": "OverLimit",
        "at_queue": "team-nlp", "resource": "cpu", "limit": 0, "allocated": 0, "requested": 100, "stated": False,
        "message": "OverLimit: queue team-nlp would exceed its cpu limit (limit 0, allocated 0, requested 100)"}
    assert summary["queues"]["team-nlp"]["wait_s_by_cause"] == {"OverLimit": 30}
    assert summary["queues"]["team-nlp"]["pods_waiting_at_end"] == 0
    story = kaisim("explain", tmp_path / "out", "default/nlp-batch-test")
    assert story.returncode == 0, story.stderr
    first = story.stdout.splitlines()[0]
    assert first.startswith("default/nlp-batch-test waited 30 s: OverLimit cpu, limit 0, because the Queue has no cpu block")
    assert "bound at 30 s on l40s-0" in story.stdout
    # A unique name is enough, and the queue has its own story.
    assert kaisim("explain", tmp_path / "out", "nlp-batch-test").stdout == story.stdout
    queue = kaisim("explain", tmp_path / "out", "team-nlp").stdout
    assert "time waited by cause (summed over pods): 30 s OverLimit" in queue


def test_burst_and_reclaim_waits_are_pipelined_for_the_grace_period(kaisim, tmp_path):
    events, summary = replay(kaisim, SEED / "burst-and-reclaim.yaml", tmp_path / "out")
    # Nothing waits for a reason of its own: the burst and vision wait only for releasing GPUs.
    assert [e for e in events if e["type"] == "wait"] == []
    assert summary["queues"]["team-vision"]["wait_s_by_cause"] == {"Pipelined": 30}
    assert summary["queues"]["team-nlp"]["wait_s_by_cause"] == {"Pipelined": 30}
    story = kaisim("explain", tmp_path / "out", "default/vision-batch-test").stdout
    assert "waited 30 s: pipelined on l40s-0 by reclaim" in story
    overview = kaisim("explain", tmp_path / "out")
    assert overview.returncode == 0
    assert "queue team-vision: 2 pods, 1 waited longer than for the next cycle\n" in overview.stdout


def test_explain_names_a_missing_pod_or_folder_in_one_line(kaisim, tmp_path):
    replay(kaisim, SEED / "limitrange-defaults.yaml", tmp_path / "out")
    run = kaisim("explain", tmp_path / "out", "no-such-pod")
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr == f'kaisim: error: no pod or queue "no-such-pod" in the replay {tmp_path / "out"}\n'
    run = kaisim("explain", tmp_path / "nowhere")
    assert run.returncode == 2 and run.stderr.startswith("kaisim: error: ") and "events.jsonl" in run.stderr


FRAGMENTED = """schema_version: 1
name: fragmented
duration: 5s
manifests:
  - {apiVersion: scheduling.run.ai/v2, kind: Queue, metadata: {name: q},
     spec: {resources: {gpu: {quota: -1, limit: -1}, cpu: {quota: -1, limit: -1}, memory: {quota: -1, limit: -1}}}}
  - {apiVersion: v1, kind: Node, metadata: {name: n0},
     status: {allocatable: {cpu: "64", memory: 256Gi, pods: "110", nvidia.com/gpu: "4"}}}
  - {apiVersion: v1, kind: Node, metadata: {name: n1},
     status: {allocatable: {cpu: "64", memory: 256Gi, pods: "110", nvidia.com/gpu: "4"}}}
  - {apiVersion: v1, kind: Pod, metadata: {name: a, labels: {kai.scheduler/queue: q}}, status: {phase: Running},
     spec: {schedulerName: kai-scheduler, priorityClassName: build, nodeName: n0, containers: [{name: c, resources: {limits: {nvidia.com/gpu: "2"}}}]}}
  - {apiVersion: v1, kind: Pod, metadata: {name: b, labels: {kai.scheduler/queue: q}}, status: {phase: Running},
     spec: {schedulerName: kai-scheduler, priorityClassName: build, nodeName: n1, containers: [{name: c, resources: {limits: {nvidia.com/gpu: "2"}}}]}}
steps:
  - at: 1s
    apply:
      - {apiVersion: v1, kind: Pod, metadata: {name: big, labels: {kai.scheduler/queue: q}},
         spec: {schedulerName: kai-scheduler, containers: [{name: c, resources: {limits: {nvidia.com/gpu: "3"}}}]}}
      - {apiVersion: v1, kind: Pod, metadata: {name: huge, labels: {kai.scheduler/queue: q}},
         spec: {schedulerName: kai-scheduler, containers: [{name: c, resources: {limits: {nvidia.com/gpu: "5"}}}]}}
"""


def test_gpus_split_over_nodes_read_as_fragmentation_and_too_few_as_not_enough(kaisim, tmp_path):
    scenario = tmp_path / "fragmented.yaml"
    scenario.write_text(FRAGMENTED)
    events, summary = replay(kaisim, scenario, tmp_path / "out")
    waits = {e["pod"]: e for e in events if e["type"] == "wait"}
    # Two GPUs free on each node (held by non-preemptible pods, which consolidation leaves): 3 fit
    # in total but on no node; 5 do not fit at all.
    fields = ("cause", "requested", "largest_free", "total_free", "nodes")
    assert tuple(waits["default/big"][f] for f in fields) == ("Fragmentation", 3, 2, 4, 2)
    assert tuple(waits["default/huge"][f] for f in fields) == ("NotEnoughGpus", 5, 2, 4, 2)
    assert summary["queues"]["q"]["wait_s_by_cause"] == {"Fragmentation": 4, "NotEnoughGpus": 4}
    assert summary["queues"]["q"]["pods_waiting_at_end"] == 2
    story = kaisim("explain", tmp_path / "out", "default/huge").stdout
    assert story.startswith("default/huge still waiting after 4 s: not enough GPUs: the pod asks 5 GPUs, "
                            "the most free on one node is 2 (4 free over 2 nodes)")
    assert "still pending when the replay ended at 5 s (a censored wait)" in story
