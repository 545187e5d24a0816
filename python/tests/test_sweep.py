"""kaisim.sweep: many variants, one DataFrame, the same numbers whichever executor runs them."""
import logging
from concurrent.futures import ThreadPoolExecutor

import pandas as pd
import pytest

import kaisim


def make(vision_quota: float, nodes: int):
    b = kaisim.ScenarioBuilder("sweep", duration="4m").node_pool("l40s", count=nodes)
    b.queue("org", gpu_quota=nodes, gpu_limit=nodes)
    b.queue("nlp", parent="org", gpu_quota=0, gpu_limit=nodes)
    b.queue("vision", parent="org", gpu_quota=vision_quota, gpu_limit=nodes)
    for i in range(2 * nodes):
        b.pod(f"nlp-{i}", queue="nlp", gpu_fraction=0.5)
    b.pod("vision-0", queue="vision", gpus=1, at="60s")
    return b


GRID = {"vision_quota": [0.0, 1.0], "nodes": [1, 2]}


def test_grid_rows_and_parameters():
    frame = kaisim.sweep(make, GRID)
    assert len(frame) == 4 * 3  # 4 variants x (org, nlp, vision)
    assert list(frame.columns[:4]) == ["variant", "vision_quota", "nodes", "queue"]
    vision = frame[frame["queue"] == "vision"].set_index(["vision_quota", "nodes"])
    # With a guarantee vision reclaims a whole GPU from nlp's over-quota pods. Without one its
    # fair share is half the cluster: on one GPU that is 0.5 < 1 and it waits; on two it is 1.
    assert vision.loc[(1.0, 1), "pods_bound"] == 1
    assert vision.loc[(0.0, 1), "pods_bound"] == 0
    assert vision.loc[(0.0, 2), "pods_bound"] == 1
    assert vision.loc[(1.0, 1), "evictions_caused"] == 2


def test_threads_and_a_given_executor_agree_with_sequential_replays():
    by_default = kaisim.sweep(make, GRID)
    with ThreadPoolExecutor(max_workers=1) as one:
        sequential = kaisim.sweep(make, GRID, executor=one)
    pd.testing.assert_frame_equal(by_default, sequential)
    direct = kaisim.replay(make(1.0, 2).build()).summary
    row = by_default[(by_default["vision_quota"] == 1.0) & (by_default["nodes"] == 2)].set_index("queue")
    assert row.loc["vision", "gpu_hours"] == direct.loc["vision", "gpu_hours"]


def test_dask_local_cluster_gives_the_same_frame():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                 silence_logs=logging.ERROR) as cluster, \
            distributed.Client(cluster) as client:
        on_dask = kaisim.sweep(make, GRID, executor=client)
    pd.testing.assert_frame_equal(on_dask, kaisim.sweep(make, GRID))


def test_wrong_executor_is_a_type_error():
    with pytest.raises(TypeError):
        kaisim.sweep(make, GRID, executor="fast please")
