"""The three entry points over libsim: replay, fair_share and cycle."""

from __future__ import annotations

import json
import logging
import os
import warnings as _warnings
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Union

import pandas as pd

from . import _core
from .errors import ExpectationFailed, ScenarioError
from .result import Result
from .scenario import ScenarioLike, as_scenario


_log = logging.getLogger("kaisim")


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


def replay(
    scenario: ScenarioLike,
    *,
    check: bool = False,
    out_dir: Optional[Union[str, os.PathLike]] = None,
    strict: bool = False,
    progress: bool = False,
) -> Result:
    """Replays a scenario on the virtual clock; the same run as ``kaisim replay``.

    ``scenario`` is a path, a YAML string, a dict or a :class:`kaisim.Scenario`. With
    ``check=True`` the scenario's ``expect`` blocks are evaluated and :class:`ExpectationFailed`
    is raised if any fails. ``out_dir`` also writes the CLI's files there (an existing folder
    only if it is new, empty or an earlier replay's). ``strict=True`` makes an unknown field an
    error (``--strict``). The GIL is released while the replay runs, so threads replay in
    parallel; Ctrl-C stops it within a second (KeyboardInterrupt). ``progress=True`` shows a
    tqdm bar (virtual time, cycles, pods done).

    Raises :class:`ScenarioError` for bad input, :class:`KaisimIOError` (and its subclasses, also
    ``FileNotFoundError``, ``IsADirectoryError``, ...) for a file that cannot be read or written.
    """
    sc = as_scenario(scenario)
    if not sc.path and not sc.text.strip():
        raise ScenarioError(f"{sc.name}: empty scenario", file=sc.name, detail="empty scenario")
    bar = _ProgressBar(sc.name) if progress else None
    raw = _core.replay(sc.path or sc.name, sc.text, sc.base_dir, os.fspath(out_dir) if out_dir else "", check, strict, bar)
    _warn(raw["warnings"])
    for note in raw["output_notes"]:
        _log.info("%s", note)  # what writing out_dir did besides creating it
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


def fair_share(request: Union[Mapping[str, Any], str, bytes, os.PathLike], *, strict: bool = False) -> pd.DataFrame:
    """KAI's fair-share simulator (``kaisim fairshare``): the request as a dict, a JSON string
    (one that starts with ``{`` or ``[``; bytes too) or a file path. Returns one row per queue
    (index ``queue``) with columns gpu, cpu, memory in the request's units.

    Raises :class:`ScenarioError` for a bad request and :class:`KaisimIOError` (or a subclass) for
    a file that cannot be read."""
    if isinstance(request, Mapping):
        body, source = json.dumps(request), "<dict>"
    elif isinstance(request, bytes):
        body, source = request, "<json>"
    elif isinstance(request, str) and request.lstrip()[:1] in ("{", "["):
        body, source = request, "<json>"
    elif isinstance(request, (str, os.PathLike)):
        body, source = _core.read_input(os.fspath(request)), os.fspath(request)
    else:
        raise TypeError(f"a fair-share request is a dict, a JSON string or a path, not {type(request).__name__}")
    response, found = _core.fair_share(body, source, strict)
    _warn(found)
    shares = json.loads(response)
    frame = pd.DataFrame.from_dict(shares, orient="index", columns=["gpu", "cpu", "memory"])
    frame.index.name = "queue"
    return frame


def cycle(
    snapshot: Union[str, os.PathLike, Mapping[str, Any], Iterable[Union[str, os.PathLike]]],
    *,
    now: Optional[str] = None,
    strict: bool = False,
) -> dict[str, Any]:
    """One KAI scheduling cycle (``kaisim cycle``) on a snapshot: KAI's snapshot.json as a dict
    or a path, or Kubernetes manifest files and folders. Returns the decision report
    (docs/cycle.md). Raises :class:`ScenarioError` for bad input and :class:`KaisimIOError` (or a
    subclass) for a file that cannot be read."""
    files: list[tuple[bytes, str]] = []
    if isinstance(snapshot, Mapping):
        files.append((json.dumps(snapshot).encode(), "<dict>"))
    else:
        paths = [snapshot] if isinstance(snapshot, (str, os.PathLike)) else list(snapshot)
        for p in map(Path, paths):
            members = sorted(f for f in p.iterdir() if f.suffix in (".yaml", ".yml", ".json")) if p.is_dir() else [p]
            files.extend((_core.read_input(os.fspath(f)), str(f)) for f in members)
    report, found = _core.cycle(files, now, strict)
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
