"""The three entry points over libsim: replay, fair_share and cycle."""

from __future__ import annotations

import json
import os
import warnings as _warnings
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Union

import pandas as pd

from . import _core
from .errors import ExpectationFailed, ScenarioError
from .result import Result
from .scenario import ScenarioLike, as_scenario


class KaisimWarning(UserWarning):
    """A non-fatal finding about an input (unknown field, orphan queue dropped)."""


def _warn(messages: Iterable[str]) -> None:
    for message in messages:
        _warnings.warn(message, KaisimWarning, stacklevel=3)


class _ProgressBar:
    """A tqdm bar over virtual time (a notebook widget in Jupyter when ipywidgets is there)."""

    def __init__(self, name: str):
        from tqdm.auto import tqdm  # imported only when asked for

        self._bar = tqdm(total=1.0, desc=f"replay {name}", unit="s virtual", unit_scale=False,
                         bar_format="{desc}: {percentage:3.0f}%|{bar}| {postfix} [{elapsed}<{remaining}]")

    def __call__(self, now_ms: int, end_ms: int, cycles: int, submitted: int, done: int, finished: bool) -> None:
        self._bar.total = max(end_ms, 1) / 1000.0
        self._bar.n = now_ms / 1000.0
        self._bar.set_postfix_str(f"{now_ms / 1000:.0f}/{end_ms / 1000:.0f} s virtual, {cycles} cycles, "
                                  f"{done}/{submitted} pods done", refresh=False)
        self._bar.refresh()
        if finished:
            self._bar.close()


def replay(scenario: ScenarioLike, *, check: bool = False, out_dir: Optional[Union[str, os.PathLike]] = None,
           progress: bool = False) -> Result:
    """Replays a scenario on the virtual clock; the same run as ``kaisim replay``.

    ``scenario`` is a path, a YAML string, a dict or a :class:`kaisim.Scenario`. With
    ``check=True`` the scenario's ``expect`` blocks are evaluated and :class:`ExpectationFailed`
    is raised if any fails. ``out_dir`` also writes the CLI's four files there. ``progress=True``
    shows a tqdm bar (virtual time, cycles, pods done). The GIL is released while the replay
    runs, so threads replay in parallel.
    """
    sc = as_scenario(scenario)
    if not sc.path and not sc.text.strip():
        raise ScenarioError(f"{sc.name}: empty scenario", file=sc.name, detail="empty scenario")
    bar = _ProgressBar(sc.name) if progress else None
    raw = _core.replay(sc.path or sc.name, sc.text, sc.base_dir, os.fspath(out_dir) if out_dir else "", check, bar)
    _warn(raw["warnings"])
    result = Result(
        outputs=dict(raw["outputs"]),
        summary_table=raw["summary_table"],
        cycles=raw["cycles"],
        cycles_reused=raw["cycles_reused"],
        cycles_fair_share_only=raw["cycles_fair_share_only"],
        cycles_updated=raw["cycles_updated"],
        expectations_checked=raw["expectations_checked"],
        failures=[(at_ms / 1000.0, what) for at_ms, what in raw["failures"]],
        warnings=list(raw["warnings"]),
    )
    if check and result.failures:
        raise ExpectationFailed(result.failures)
    return result


def fair_share(request: Union[Mapping[str, Any], str, os.PathLike]) -> pd.DataFrame:
    """KAI's fair-share simulator (``kaisim fairshare``): the request as a dict, a JSON string or
    a file path. Returns one row per queue (index ``queue``) with columns gpu, cpu, memory in the
    request's units."""
    if isinstance(request, Mapping):
        body, source = json.dumps(request), "<dict>"
    elif isinstance(request, str) and request.lstrip().startswith("{"):
        body, source = request, "<json>"
    else:
        body, source = Path(request).read_text(encoding="utf-8"), os.fspath(request)
    response, found = _core.fair_share(body, source)
    _warn(found)
    shares = json.loads(response)
    frame = pd.DataFrame.from_dict(shares, orient="index", columns=["gpu", "cpu", "memory"])
    frame.index.name = "queue"
    return frame


def cycle(
    snapshot: Union[str, os.PathLike, Mapping[str, Any], Iterable[Union[str, os.PathLike]]], *, now: Optional[str] = None
) -> dict[str, Any]:
    """One KAI scheduling cycle (``kaisim cycle``) on a snapshot: KAI's snapshot.json as a dict
    or a path, or Kubernetes manifest files and folders. Returns the decision report
    (docs/cycle.md)."""
    files: list[tuple[str, str]] = []
    if isinstance(snapshot, Mapping):
        files.append((json.dumps(snapshot), "<dict>"))
    else:
        paths = [snapshot] if isinstance(snapshot, (str, os.PathLike)) else list(snapshot)
        for p in map(Path, paths):
            members = sorted(f for f in p.iterdir() if f.suffix in (".yaml", ".yml", ".json")) if p.is_dir() else [p]
            files.extend((f.read_text(encoding="utf-8"), str(f)) for f in members)
    report, found = _core.cycle(files, now)
    _warn(found)
    return json.loads(report)


def gen_trace(
    out_dir: Union[str, os.PathLike], *, seed: int = 1, pods: int = 8000, arrival_hours: float = 6, node_scale: float = 1.0
) -> dict[str, Any]:
    """Writes ``kaisim gen trace``'s workload (scenario.yaml and pods.csv, shaped like Alibaba's GPU
    trace) into ``out_dir`` and returns its counts: nodes, gpus, pods, gpu_pods, fractional_gpu_pods.
    Replay it with ``kaisim.replay(Path(out_dir) / "scenario.yaml")``."""
    raw = _core.gen_trace(seed, pods, arrival_hours, node_scale, os.fspath(out_dir))
    return {k: v for k, v in raw.items() if k != "files"}
