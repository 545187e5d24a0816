"""`kaisim replay`: the runbook's burst-and-reclaim scenario and every scenario under scenarios/."""
import json
import pathlib

import pytest

from conftest import SOURCE_DIR

SCENARIOS = sorted(p for p in (SOURCE_DIR / "scenarios").rglob("*.yaml")
                   if "schema_version" in p.read_text() and "\nkind: Plan\n" not in p.read_text())  # plans: test_plan_cli
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
    assert sorted(p.name for p in out.iterdir()) == [".kaisim-output", "cluster.csv", "events.jsonl", "kai-timeline.csv", "queue-status.csv",
                                                     "summary.json", "timeline.csv"]
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


def test_burst_and_reclaim_queue_status_as_kai_controllers_write_it(kaisim, tmp_path):
    # KAI's podgroup-controller counts a pod while it runs, whatever its deletionTimestamp: the
    # two deleted pods keep their 0.33 from 60 s until they are gone at 90 s, and the evicted
    # burst keeps team-nlp at 0.99 from 180 s until it is gone at 210 s (the scheduler's own
    # timeline drops them at once). The real KAI's Queue.status shows the same plateaus
    # (../shared/kai-live/runbook-burst-and-reclaim, compared by test_live_recording.py).
    out = tmp_path / "out"
    assert kaisim("replay", MAIN, "--out", out).returncode == 0
    assert (out / "queue-status.csv").read_text() == """time_s,queue,resource,allocated,allocated_non_preemptible,requested
0,ml-org,nvidia.com/gpu,990m,0,990m
0,team-nlp,nvidia.com/gpu,330m,0,330m
0,team-recommender,nvidia.com/gpu,330m,0,330m
0,team-vision,nvidia.com/gpu,330m,0,330m
60,ml-org,nvidia.com/gpu,990m,0,1650m
60,team-nlp,nvidia.com/gpu,330m,0,990m
90,ml-org,nvidia.com/gpu,990m,0,990m
90,team-nlp,nvidia.com/gpu,990m,0,990m
90,team-recommender,nvidia.com/gpu,0,0,0
90,team-vision,nvidia.com/gpu,0,0,0
180,ml-org,nvidia.com/gpu,990m,0,1320m
180,team-vision,nvidia.com/gpu,0,0,330m
210,ml-org,nvidia.com/gpu,660m,0,660m
210,team-nlp,nvidia.com/gpu,330m,0,330m
210,team-vision,nvidia.com/gpu,330m,0,330m
300,ml-org,nvidia.com/gpu,990m,0,990m
300,team-recommender,nvidia.com/gpu,330m,0,330m
"""
    # The scheduler's view drops the evicted burst at 180 s.
    timeline = (out / "timeline.csv").read_text().splitlines()
    assert any(row.startswith("180,team-nlp,gpu,0.33,0,0.33,") for row in timeline)


def test_same_scenario_same_bytes(kaisim, tmp_path):
    for name in ("a", "b"):
        assert kaisim("replay", MAIN, "--out", tmp_path / name).returncode == 0
    for f in ("timeline.csv", "kai-timeline.csv", "queue-status.csv", "cluster.csv", "events.jsonl", "summary.json"):
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
     's.yaml:4:23: expect[0].pods.default/p: expected Pending, Running, Releasing, Deleted or Succeeded, got "Sleeping"'),
    ("schema_version: 1\ngenerators:\n  - {name: g, queue: q, arrivalsPerHour: -3}\n",
     "s.yaml:3:42: generators[0].arrivalsPerHour: must be positive"),
    ("schema_version: 1\nduration: 1000h\ngenerators:\n  - {name: g, queue: q, arrivalsPerHour: 1000}\n",
     "s.yaml:4:42: generators[0].arrivalsPerHour: the generators would create more than 200000 pods; "
     "lower the rates or set maxJobs"),
    ("schema_version: 1\ngenerators:\n  - {name: g, queue: q, arrivalsPerHour: 3, runtime: {gamma: 1m}}\n",
     "s.yaml:3:54: generators[0].runtime: expected one of fixed, exponential, uniform, lognormal"),
    ("schema_version: 1\ncluster:\n  nodePools: [{name: n, gpusPerNode: 1, gpuModel: V100}]\n",
     's.yaml:3:51: cluster.nodePools[0].gpuModel: unknown GPU model "V100" (known: A100-40GB, A100-80GB, '
     'H100-80GB, H200-141GB, L40S, RTX-PRO-6000; or give gpuMemoryMib)'),
    ("schema_version: 1\ncluster:\n  nodePools: [{name: n, gpusPerNode: 1, gpuModel: L40S, mig: {1g.5gb: 7}}]\n",
     "s.yaml:3:62: cluster.nodePools[0].mig: L40S has no MIG (MIG-capable: A100-40GB, A100-80GB, H100-80GB, "
     "H200-141GB, RTX-PRO-6000)"),
    ("schema_version: 1\ncluster:\n  nodePools: [{name: n, gpusPerNode: 1, gpuModel: A100-40GB, mig: {3g.20gb: 2, 1g.5gb: 2}}]\n",
     "s.yaml:3:67: cluster.nodePools[0].mig: the instances need 8 compute and 10 memory slices; one A100-40GB has 7 and 8"),
    ("schema_version: 1\ncluster:\n  nodePools: [{name: n, gpusPerNode: 1, gpuModel: H100-80GB, mig: {1g.5gb: 1}}]\n",
     "s.yaml:3:76: cluster.nodePools[0].mig.1g.5gb: not a MIG profile of H100-80GB (1g.10gb, 1g.20gb, 2g.20gb, "
     "3g.40gb, 4g.40gb, 7g.80gb)"),
    ("schema_version: 1\nscheduler: {placementStrategy: {gpu: diagonal}}\n",
     's.yaml:2:38: scheduler.placementStrategy.gpu: expected binpack or spread, got "diagonal"'),
    ("schema_version: 1\nscheduler: {numa: maybe}\n",
     's.yaml:2:19: scheduler.numa: expected true, false or {ignoreList, reconstructAvailable}, got "maybe"'),
    ("schema_version: 1\nscheduler: {numa: {reconstructAvailable: sometimes}}\n",
     "s.yaml:2:42: scheduler.numa.reconstructAvailable: expected true or false"),
    ("schema_version: 1\nmanifests:\n  - {apiVersion: kai.scheduler/v1alpha1, kind: Topology, metadata: {name: dc}, spec: {levels: []}}\n",
     "s.yaml:3:95: spec.levels: a Topology needs at least one level"),
    ("schema_version: 1\nmanifests:\n  - &n {apiVersion: v1, kind: Node, metadata: {name: a}}\n"
     "steps:\n  - at: 5s\n    apply: [{<<: *n, status: {allocatable: {cpu: '2'}}}]\n",
     's.yaml:6:13: steps[0].apply[0]: missing required field "kind" (YAML merge keys `<<` are not supported)'),
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
    assert "is not a kaisim output folder" in run.stderr
    assert (precious / "notes.txt").read_text() == "keep me"


LIFECYCLE = """schema_version: 1
duration: 3m
podTerminationGracePeriod: 10s
cluster:
  nodePools: [{name: gpu, count: 2, gpusPerNode: 1, gpuModel: L40S}]
manifests:
  - {apiVersion: scheduling.run.ai/v2, kind: Queue, metadata: {name: q},
     spec: {resources: {gpu: {quota: -1, limit: -1}, cpu: {quota: -1, limit: -1}, memory: {quota: -1, limit: -1}}}}
  - apiVersion: v1
    kind: Pod
    metadata: {name: short, labels: {kai.scheduler/queue: q}, annotations: {kaisim/runtime: 45s}}
    spec: {schedulerName: kai-scheduler, nodeName: gpu-0, containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}
  - apiVersion: v1
    kind: Pod
    metadata: {name: bare, labels: {kai.scheduler/queue: q}}
    spec: {schedulerName: kai-scheduler, containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}
steps:
  - at: 60s
    delete: [{kind: Node, name: gpu-1}]
expect:
  - at: 46s
    pods: {default/short: Succeeded}
  - at: 61s
    pods: {default/bare: Deleted}
"""


def test_runtimes_complete_and_a_removed_node_loses_its_pods(kaisim, tmp_path):
    scenario = tmp_path / "life.yaml"
    scenario.write_text(LIFECYCLE)
    run = kaisim("replay", scenario, "--check", "--out", tmp_path / "out")
    assert run.returncode == 0, run.stdout + run.stderr
    events = [json.loads(line) for line in (tmp_path / "out" / "events.jsonl").read_text().splitlines()]
    done = [e for e in events if e["type"] == "complete"]
    assert [(e["pod"], e["time_s"]) for e in done] == [("default/short", 45)]
    lost = [e for e in events if e["type"] == "lost"]
    assert [(e["pod"], e["node"], e["reason"]) for e in lost] == [("default/bare", "gpu-1", "node-removed")]
    cluster = (tmp_path / "out" / "cluster.csv").read_text().splitlines()
    assert cluster[-1].split(",")[1] == "1"  # one GPU left after the node is gone


def test_generated_workload_is_the_same_for_the_same_seed(kaisim, tmp_path):
    text = """schema_version: 1
seed: SEED
duration: 30m
cluster:
  nodePools: [{name: gpu, count: 2, gpusPerNode: 2, gpuModel: A100-80GB}]
manifests:
  - {apiVersion: scheduling.run.ai/v2, kind: Queue, metadata: {name: q},
     spec: {resources: {gpu: {quota: -1, limit: -1}, cpu: {quota: -1, limit: -1}, memory: {quota: -1, limit: -1}}}}
generators:
  - name: g
    queue: q
    arrivalsPerHour: 60
    sizes: [{weight: 2, gpuFraction: 0.5}, {weight: 1, gpuMemoryMib: 30000}, {weight: 1, gpus: 1}]
    runtime: {lognormal: {median: 5m, sigma: 0.8}}
"""
    outs = []
    for name, seed in (("a", 1), ("b", 1), ("c", 2)):
        path = tmp_path / f"{name}.yaml"
        path.write_text(text.replace("SEED", str(seed)))
        run = kaisim("replay", path, "--out", tmp_path / name)
        assert run.returncode == 0, run.stderr
        outs.append((tmp_path / name / "events.jsonl").read_text())
    assert outs[0] == outs[1]
    assert outs[0] != outs[2]
    submits = [json.loads(line) for line in outs[0].splitlines() if '"submit"' in line]
    assert 15 <= len(submits) <= 50  # Poisson with mean 30 in 30 minutes


def test_time_based_fair_share_is_what_makes_the_queues_take_turns(kaisim, tmp_path):
    source = SOURCE_DIR / "scenarios" / "kai-examples" / "two-queue-oscillation.yaml"
    text = source.read_text()
    plain = "\n".join(line for line in text.splitlines()
                      if not line.startswith(("fairShare:", "  kValue:", "  usage:")) and "at: " not in line)
    plain = plain.replace("expect:", "")
    for name, body in (("with", text), ("without", plain)):
        (tmp_path / f"{name}.yaml").write_text(body)
        assert kaisim("replay", tmp_path / f"{name}.yaml", "--out", tmp_path / name).returncode == 0
    evictions = {name: sum('"evict"' in line for line in (tmp_path / name / "events.jsonl").read_text().splitlines())
                 for name in ("with", "without")}
    # Without usage history equal weights give each queue 8 GPUs: a 16-GPU job cannot reclaim.
    assert evictions == {"with": 4, "without": 0}


def test_out_with_a_trailing_slash_as_in_the_readme(kaisim, tmp_path):
    run = kaisim("replay", MAIN, "--out", f"{tmp_path}/out/")
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "out" / "summary.json").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    # Again into the same folder: an earlier replay is replaced.
    assert kaisim("replay", MAIN, "--out", f"{tmp_path}/out/").returncode == 0


def test_out_must_name_a_folder(kaisim, tmp_path):
    run = kaisim("replay", MAIN, "--out", ".")
    assert run.returncode == 2
    assert "give the output folder a name of its own" in run.stderr


def test_gen_trace_then_replay_it_to_completion(kaisim, tmp_path):
    trace = tmp_path / "trace"
    run = kaisim("gen", "trace", "--out", trace, "--pods", "300", "--arrival-hours", "0.5", "--node-scale", "0.02")
    assert run.returncode == 0, run.stderr
    assert "300 pods" in run.stdout
    assert sorted(p.name for p in trace.iterdir()) == [".kaisim-output", "pods.csv", "scenario.yaml"]
    rows = (trace / "pods.csv").read_text().splitlines()
    assert rows[0] == "submit_s,name,queue,namespace,priority_class,gpus,gpu_fraction,gpu_memory_mib,cpu,memory,runtime_s"
    assert len(rows) == 301
    # The same options again replace the earlier trace with the same bytes.
    before = (trace / "pods.csv").read_bytes()
    assert kaisim("gen", "trace", "--out", trace, "--pods", "300", "--arrival-hours", "0.5", "--node-scale", "0.02").returncode == 0
    assert (trace / "pods.csv").read_bytes() == before

    out = tmp_path / "out"
    run = kaisim("replay", trace / "scenario.yaml", "--out", out, timeout=600)
    assert run.returncode == 0, run.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["duration_s"] < 75 * 3600       # endWhenDrained: stopped once every pod was done
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    # Every pod ends exactly once: it completes its run time, or an eviction deletes it (bare pods).
    ends = [e["pod"] for e in events if e["type"] in ("complete", "gone")]
    assert len(ends) == len(set(ends)) == 300
    assert summary["cluster"]["evictions"] == sum(1 for e in events if e["type"] == "evict")


def test_a_bad_trace_row_names_file_line_and_column(kaisim, tmp_path):
    (tmp_path / "pods.csv").write_text("submit_s,name,queue,gpus\n0,a,q,1\n5,b,q,lots\n")
    scenario = tmp_path / "s.yaml"
    scenario.write_text("schema_version: 1\ntrace: pods.csv\n")
    run = kaisim("replay", scenario, "--out", tmp_path / "out")
    assert run.returncode == 2
    assert run.stderr == f'kaisim: error: {tmp_path}/pods.csv:3:4: gpus: not a number: "lots"\n'
    assert not (tmp_path / "out").exists()


def test_gen_trace_refuses_a_folder_it_did_not_write(kaisim, tmp_path):
    (tmp_path / "notes.txt").write_text("keep me")
    run = kaisim("gen", "trace", "--out", tmp_path)
    assert run.returncode == 2
    assert "is not a kaisim output folder" in run.stderr
    assert (tmp_path / "notes.txt").read_text() == "keep me"
    run = kaisim("gen", "trace", "--out", tmp_path / "t", "--pods", "0")
    assert run.returncode == 2 and "pods: must be between 1 and 200000" in run.stderr


PLACEMENT = """schema_version: 1
duration: 10s
{strategy}
cluster: {{nodePools: [{{name: n, count: 2, gpusPerNode: 4, gpuModel: L40S}}]}}
manifests:
  - {{apiVersion: scheduling.run.ai/v2, kind: Queue, metadata: {{name: q}}, spec: {{resources: {{gpu: {{quota: 8, limit: -1, overQuotaWeight: 1}}}}}}}}
steps:
  - at: 0s
    apply:
      - {{apiVersion: v1, kind: Pod, metadata: {{name: a, labels: {{kai.scheduler/queue: q}}}}, spec: {{schedulerName: kai-scheduler, containers: [{{name: c, resources: {{limits: {{nvidia.com/gpu: "2"}}}}}}]}}}}
  - at: 5s
    apply:
      - {{apiVersion: v1, kind: Pod, metadata: {{name: b, labels: {{kai.scheduler/queue: q}}}}, spec: {{schedulerName: kai-scheduler, containers: [{{name: c, resources: {{limits: {{nvidia.com/gpu: "1"}}}}}}]}}}}
"""


def bind_nodes(kaisim, tmp_path, strategy):
    scenario = tmp_path / "s.yaml"
    scenario.write_text(PLACEMENT.format(strategy=strategy))
    run = kaisim("replay", scenario, "--out", tmp_path / "out")
    assert run.returncode == 0, run.stderr
    events = [json.loads(line) for line in (tmp_path / "out" / "events.jsonl").read_text().splitlines()]
    return {e["pod"]: e["node"] for e in events if e["type"] == "bind"}


def test_placement_strategy_binpacks_by_default_and_spreads_on_request(kaisim, tmp_path):
    packed = bind_nodes(kaisim, tmp_path, "")
    assert packed["default/a"] == packed["default/b"]
    spread = bind_nodes(kaisim, tmp_path, "scheduler: {placementStrategy: {gpu: spread, cpu: spread}}")
    assert spread["default/a"] != spread["default/b"]


def test_events_count_the_gpus_of_dra_claims(kaisim, tmp_path):
    out = tmp_path / "out"
    run = kaisim("replay", SOURCE_DIR / "scenarios" / "examples" / "dra-gpus.yaml", "--out", out, "--check")
    assert run.returncode == 0, run.stdout + run.stderr
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    train_a = {e["type"]: e["gpus"] for e in events if e["pod"] == "default/train-a"}
    # A 2-GPU claim: submitted, bound, deleted and gone with 2 GPUs, as the scheduler counts it.
    assert train_a == {"submit": 2, "bind": 2, "delete": 2, "gone": 2}
