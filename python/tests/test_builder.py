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


def test_node_pools_and_generators_replay():
    b = kaisim.ScenarioBuilder("gen", duration="1h", seed=3).node_pool("h100", count=2, gpus_per_node=8,
                                                                       model="H100-80GB")
    b.queue("t", gpu_quota=16, gpu_limit=16)
    b.generator("job", queue="t", arrivals_per_hour=120, sizes=[{"weight": 1, "gpus": 2}, {"weight": 1, "gpuFraction": 0.5}],
                runtime={"exponential": "10m"})
    result = kaisim.replay(b.build())
    assert result.cluster["gpus"] == 16
    types = result.events["type"].value_counts()
    assert types["submit"] > 60 and types["complete"] > 30
    # The same seed gives the same pods; another seed other ones.
    assert kaisim.replay(b.build()).outputs == result.outputs
    other = kaisim.ScenarioBuilder("gen", duration="1h", seed=4).node_pool("h100", count=2, gpus_per_node=8,
                                                                           model="H100-80GB")
    other.queue("t", gpu_quota=16, gpu_limit=16)
    other.generator("job", queue="t", arrivals_per_hour=120, sizes=[{"gpus": 2}], runtime={"fixed": "10m"})
    assert kaisim.replay(other.build()).outputs["events.jsonl"] != result.outputs["events.jsonl"]


def test_unknown_gpu_model_is_a_scenario_error_with_the_field():
    b = kaisim.ScenarioBuilder("x").node_pool("p", model="Voodoo3")
    with pytest.raises(kaisim.ScenarioError) as err:
        kaisim.replay(b.build())
    assert err.value.field == "cluster.nodePools[0].gpuModel"


@pytest.mark.parametrize("call", [
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


def test_spread_placement_puts_two_pods_on_two_nodes():
    def nodes_of(builder):
        builder.node_pool("l40s", count=2, gpus_per_node=4, model="L40S").queue("t", gpu_quota=8)
        builder.pod("a", queue="t", gpus=2).pod("b", queue="t", gpus=1, at="5s")
        binds = kaisim.replay(builder.build()).events
        return set(binds[binds["type"] == "bind"]["node"])

    assert len(nodes_of(kaisim.ScenarioBuilder("packed", duration="10s"))) == 1
    assert len(nodes_of(kaisim.ScenarioBuilder("spread", duration="10s").placement(gpu="spread"))) == 2


def test_preferred_anti_affinity_spreads_replicas_only_with_the_podaffinity_plugin():
    def nodes_of(builder):
        builder.node_pool("l40s", count=3, gpus_per_node=2, model="L40S").queue("t", gpu_quota=6)
        term = {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}
        for i in range(3):
            builder.manifest({
                "apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": f"web-{i}", "labels": {"app": "web", "kai.scheduler/queue": "t"}},
                "spec": {"schedulerName": "kai-scheduler",
                         "affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                             {"weight": 100, "podAffinityTerm": term}]}},
                         "containers": [{"name": "c", "image": "x", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]},
            })
        binds = kaisim.replay(builder.build()).events
        return list(binds[binds["type"] == "bind"]["node"])

    assert len(set(nodes_of(kaisim.ScenarioBuilder("spread", duration="5s").pod_affinity()))) == 3
    assert len(set(nodes_of(kaisim.ScenarioBuilder("packed", duration="5s").pod_affinity().placement()))) == 3
    assert len(set(nodes_of(kaisim.ScenarioBuilder("packed", duration="5s")))) == 2


def test_a_gang_that_requires_a_rack_lands_in_one_rack():
    def racks_of(required_level):
        builder = kaisim.ScenarioBuilder("racks", duration="10s").topology("dc", ["rack"])
        for rack in ("ra", "rb"):
            builder.node_pool(rack, count=2, gpus_per_node=2, labels={"rack": rack})
        builder.queue("t", gpu_quota=8).pod("filler", queue="t", gpus=1)
        # ra has 3 GPUs left after the filler, rb 4: binpacking alone would start in ra.
        builder.gang("g", queue="t", pods=4, gpus=1, at="5s", topology="dc" if required_level else None,
                     required_level=required_level)
        events = kaisim.replay(builder.build()).events
        binds = events[(events["type"] == "bind") & events["pod"].str.startswith("default/g-")]
        assert len(binds) == 4
        return {node.rsplit("-", 1)[0] for node in binds["node"]}

    assert racks_of("rack") == {"rb"}
    assert racks_of(None) == {"ra", "rb"}


def test_a_gang_level_needs_a_topology_and_the_reverse():
    with pytest.raises(ValueError):
        kaisim.ScenarioBuilder("x").gang("g", queue="t", pods=2, required_level="rack")
    with pytest.raises(ValueError):
        kaisim.ScenarioBuilder("x").gang("g", queue="t", pods=2, topology="dc")


def test_any_manifest_goes_in_dra_gpus_from_a_claim_template():
    b = kaisim.ScenarioBuilder("dra", duration="3m").node_pool("dra", count=1, gpus_per_node=0)
    b.queue("team", gpu_quota=1)
    b.manifest({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu.nvidia.com"},
                "spec": {"selectors": [{"cel": {"expression": "device.attributes['gpu.nvidia.com'].type == 'gpu'"}}]}})
    b.manifest({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "dra-0-gpus"},
                "spec": {"driver": "gpu.nvidia.com", "pool": {"name": "dra-0"}, "nodeName": "dra-0",
                         "devices": [{"name": "gpu-0", "attributes": {"type": {"string": "gpu"}}},
                                     {"name": "mig-0", "attributes": {"type": {"string": "mig"}}}]}})
    b.manifest({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                "metadata": {"name": "one-gpu", "namespace": "default"},
                "spec": {"spec": {"devices": {"requests": [
                    {"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com", "count": 1}}]}}}})
    for i, (at, delete_at) in enumerate([(0, "60s"), ("10s", None)]):
        b.manifest({"apiVersion": "v1", "kind": "Pod",
                    "metadata": {"name": f"p{i}", "namespace": "default", "labels": {"kai.scheduler/queue": "team"}},
                    "spec": {"schedulerName": "kai-scheduler",
                             "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}],
                             "containers": [{"name": "main", "image": "x", "resources": {"claims": [{"name": "gpu"}]}}]}},
                   at=at, delete_at=delete_at)
    # One device is a MIG: the class leaves it out, so p1 waits for p0's GPU.
    b.expect("20s", pods={"default/p0": "Running", "default/p1": "Pending"}, queues={"team": 1})
    b.expect("120s", pods={"default/p0": "Deleted", "default/p1": "Running"}, queues={"team": 1})
    result = kaisim.replay(b.build(), check=True)
    assert result.expectations_checked == 6
    binds = result.events[result.events["type"] == "bind"]
    assert list(binds["pod"]) == ["default/p0", "default/p1"]
    with pytest.raises(ValueError, match="kind and metadata.name"):
        b.manifest({"kind": "Pod"})
