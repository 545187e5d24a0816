"""`kaisim gen cluster`: the same seed gives the same bytes, and `kaisim cycle` schedules the
snapshot it writes."""
import json
import re


def gen(kaisim, out, *args):
    return kaisim("gen", "cluster", "--out", out, "--nodes", "40", *args, timeout=120)


def test_same_seed_same_bytes_and_another_seed_another_cluster(kaisim, tmp_path):
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    assert gen(kaisim, a, "--seed", "5").returncode == 0
    assert gen(kaisim, b, "--seed", "5").returncode == 0
    assert gen(kaisim, c, "--seed", "6").returncode == 0
    names = ["arrivals.csv", "cluster.yaml", "scenario.yaml", "snapshot.json"]
    assert sorted(p.name for p in a.iterdir()) == [".kaisim-output", *names]
    for name in names:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    assert (a / "snapshot.json").read_bytes() != (c / "snapshot.json").read_bytes()


def test_cycle_reads_the_snapshot_it_writes(kaisim, tmp_path):
    out = tmp_path / "c"
    run = gen(kaisim, out, "--pods", "1400", "--pending-pods", "200", "--queues", "12", "--levels", "2")
    assert run.returncode == 0, run.stderr
    counts = re.search(r"(\d+) nodes, \d+ GPUs, (\d+) queues, (\d+) pods \((\d+) running, \d+ of them system pods; "
                       r"(\d+) pending in (\d+) jobs", run.stdout)
    assert counts, run.stdout
    nodes, queues, pods, running, pending, jobs = map(int, counts.groups())
    assert (nodes, pods, running + pending, pending) == (40, 1400, 1400, 200)

    snapshot = json.loads((out / "snapshot.json").read_text())
    raw = snapshot["rawObjects"]
    assert len(raw["nodes"]) == 40 and len(raw["pods"]) == 1400
    assert sum(1 for p in raw["pods"] if p["status"]["phase"] == "Pending") == 200
    leaves = [q for q in raw["queues"] if q["metadata"]["name"].startswith("queue-")]
    assert len(leaves) == 12 == queues - sum(1 for q in raw["queues"] if q["metadata"]["name"].startswith("dept-"))

    run = kaisim("cycle", "-o", "json", out / "snapshot.json", timeout=120)
    assert run.returncode == 0, run.stderr
    decisions = json.loads(run.stdout)
    pending_names = {p["metadata"]["name"] for p in raw["pods"] if p["status"]["phase"] == "Pending"}
    bound = {b["pod"].split("/")[-1] for b in decisions["binds"]}
    assert bound and bound <= pending_names  # only pending pods are bound, and some are
    assert set(decisions["queues"]) >= {q["metadata"]["name"] for q in leaves}


def test_the_snapshot_names_kais_default_configuration_and_it_decides_as_an_empty_one(kaisim, tmp_path):
    # KAI's snapshot tool runs only the actions and plugins a snapshot names (an empty config runs
    # no action, and an empty schedulerParams stops its cache), so the generator writes KAI's
    # defaults out; kaisim must decide on them exactly as on the defaults it assumes for "{}".
    out = tmp_path / "c"
    assert gen(kaisim, out, "--pods", "1400", "--pending-pods", "200").returncode == 0
    snapshot = json.loads((out / "snapshot.json").read_text())
    config = snapshot["config"]
    assert [a.strip() for a in config["actions"].split(",")] == [
        "allocate", "consolidation", "reclaim", "preempt", "stalegangeviction"]
    names = [p["name"] for p in config["tiers"][0]["plugins"]]
    assert {"predicates", "proportion", "nodeplacement", "sg-nodelocalgreedy", "sg-multinodegang"} <= set(names)
    params = snapshot["schedulerParams"]
    assert params["partitionParams"] == {"NodePoolLabelKey": "", "NodePoolLabelValue": ""}
    # KAI's snapshot tool reads a flag left out as false; these are KAI's defaults.
    assert params["allowConsolidatingReclaim"] is True and params["fullHierarchyFairness"] is True
    assert params["useSchedulingSignatures"] is True and params["maxNumberConsolidationPreemptees"] == 16
    # The objects as the API server stores them: KAI reads GPU requests, which a limit alone
    # gets only from the API server's defaulting, and a node's capacity beside its allocatable.
    limited = [c["resources"] for p in snapshot["rawObjects"]["pods"] for c in p["spec"]["containers"]
               if c["resources"].get("limits")]
    assert limited and all(r["requests"][k] == v for r in limited for k, v in r["limits"].items())
    assert all(n["status"]["capacity"] == n["status"]["allocatable"] for n in snapshot["rawObjects"]["nodes"])

    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({**snapshot, "config": {}, "schedulerParams": {}}))
    written = kaisim("cycle", "-o", "json", out / "snapshot.json", timeout=120)
    assumed = kaisim("cycle", "-o", "json", empty, timeout=120)
    assert written.returncode == 0 == assumed.returncode, written.stderr + assumed.stderr
    decisions = json.loads(written.stdout)
    assert decisions["binds"] and decisions == json.loads(assumed.stdout)


def test_refuses_a_folder_it_did_not_write_and_bad_sizes(kaisim, tmp_path):
    (tmp_path / "notes.txt").write_text("keep me")
    run = gen(kaisim, tmp_path)
    assert run.returncode == 2
    assert (tmp_path / "notes.txt").read_text() == "keep me"
    run = gen(kaisim, tmp_path / "x", "--pods", "100")
    assert run.returncode == 2 and "pods: must be between 160" in run.stderr
    assert not (tmp_path / "x").exists()
