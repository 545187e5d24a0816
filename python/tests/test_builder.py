"""Scenarios built in code replay like YAML ones, and the builder rejects nonsense early."""
import json

import pytest

import kaisim


def three_teams(nlp_burst_gpus: float = 0.66):
    b = kaisim.ScenarioBuilder("three-teams", duration="5m")
    b.node_pool("l40s", count=1, model="L40S")
    b.queue("org", gpu_quota=1, gpu_limit=1)
    for team in ("nlp", "vision", "rec"):
        b.queue(team, parent="org", gpu_quota=0.33, gpu_limit=1)
    b.pod("nlp-1", queue="nlp", gpu_fraction=0.33)
    b.pod("nlp-burst", queue="nlp", gpu_fraction=nlp_burst_gpus, at="10s")
    b.pod("vision-1", queue="vision", gpu_fraction=0.33, at="60s")
    return b


def test_a_burst_is_reclaimed_when_the_owner_comes_back():
    b = three_teams().expect("30s", queues={"nlp": 0.99}).expect("120s", queues={"vision": 0.33, "nlp": 0.33},
                                                                   evicted=["default/nlp-burst"])
    result = kaisim.replay(b.build(), check=True)
    assert result.expectations_checked == 4  # one queue, two queues, one eviction
    evicts = result.events[result.events["type"] == "evict"]
    assert list(evicts["reason"]) == ["reclaim"]


def test_builder_output_is_a_file_the_cli_reads(cli, tmp_path):
    path = tmp_path / "built.yaml"
    path.write_text(three_teams().to_yaml())
    proc = cli("replay", path, "--out", tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "out" / "events.jsonl").read_text() == kaisim.replay(three_teams().build()).outputs["events.jsonl"]


def test_node_pool_writes_the_gpu_memory_label_kai_reads():
    d = kaisim.ScenarioBuilder("x").node_pool("h100", count=2, gpus_per_node=8, model="H100-80GB").to_dict()
    nodes = d["manifests"]
    assert [n["metadata"]["name"] for n in nodes] == ["h100-0", "h100-1"]
    assert nodes[0]["metadata"]["labels"]["nvidia.com/gpu.memory"] == "81559"
    assert nodes[0]["status"]["allocatable"]["nvidia.com/gpu"] == "8"


@pytest.mark.parametrize("call", [
    lambda b: b.node_pool("x", model="Voodoo3"),
    lambda b: b.node_pool("x", count=0),
    lambda b: b.pod("p", queue="q", gpus=1, gpu_fraction=0.5),
    lambda b: b.pod("p", queue="q", at="10s", delete_at="5s"),
    lambda b: b.pod("p", queue="q", at="ten seconds"),
])
def test_nonsense_is_rejected_by_the_builder(call):
    with pytest.raises(ValueError):
        call(kaisim.ScenarioBuilder("x"))


def test_to_yaml_is_deterministic():
    assert three_teams().to_yaml() == three_teams().to_yaml()
    assert json.loads(three_teams().to_yaml())["steps"][0]["at"] == "10s"
