"""Many replays at once: a grid of variants, one DataFrame out.

Replays release the GIL, so the default thread pool uses every local core. A
``dask.distributed.Client`` spreads the same work over a Dask cluster: scenarios are built here,
shipped as text, replayed on the workers (which need kaisim installed) and gathered back.
"""

from __future__ import annotations

import itertools
import os
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence

import pandas as pd

from .run import replay
from .scenario import Scenario, ScenarioLike, as_scenario


def variants(grid: Mapping[str, Iterable[Any]]) -> list[dict[str, Any]]:
    """Every combination of the grid's values, in the grid's key order."""
    keys = list(grid)
    return [dict(zip(keys, values)) for values in itertools.product(*(list(grid[k]) for k in keys))]


def run_variant(scenario: Scenario) -> list[dict[str, Any]]:
    """Replays one scenario; one row per queue with its summary plus the cluster's numbers as
    ``cluster_*`` columns. Module-level so Dask workers can import it."""
    result = replay(scenario)
    cluster = {f"cluster_{k}": v for k, v in result.cluster.items()}
    rows = []
    for queue, numbers in result.summary_json["queues"].items():
        rows.append({"queue": queue, **numbers, **cluster, "cycles": result.cycles})
    return rows


def sweep(base: Callable[..., ScenarioLike], grid: Mapping[str, Sequence[Any]],
          executor: Optional[Any] = None) -> pd.DataFrame:
    """Replays ``base(**params)`` for every combination in ``grid``.

    ``base`` returns a scenario (a :class:`ScenarioBuilder`, dict, path, YAML or Scenario) for
    one set of parameters, e.g. ``lambda nlp_quota, gpus: make(nlp_quota, gpus)``. ``executor``:
    None for a local thread pool, any ``concurrent.futures.Executor``, or a
    ``dask.distributed.Client``. The result has one row per (variant, queue): the parameters,
    ``queue``, the per-queue summary columns and the ``cluster_*`` columns, in grid order.
    """
    params = variants(grid)
    scenarios = [_scenario_of(base(**p)) for p in params]
    if _is_dask_client(executor):
        futures = executor.map(run_variant, scenarios, pure=False)
        results = executor.gather(futures)
    elif executor is not None:
        if not isinstance(executor, Executor):
            raise TypeError("executor must be None, a concurrent.futures.Executor or a dask.distributed.Client")
        results = list(executor.map(run_variant, scenarios))
    else:
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            results = list(pool.map(run_variant, scenarios))
    rows = []
    for index, (p, queue_rows) in enumerate(zip(params, results)):
        for row in queue_rows:
            rows.append({"variant": index, **p, **row})
    return pd.DataFrame(rows)


def _scenario_of(value: Any) -> Scenario:
    if hasattr(value, "build") and callable(value.build):
        value = value.build()
    return as_scenario(value)


def _is_dask_client(executor: Any) -> bool:
    return executor is not None and type(executor).__module__.startswith("distributed") and hasattr(executor, "gather")
