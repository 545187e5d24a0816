"""kaisim against a live Kubernetes cluster: the same adapter as ``kaisim snapshot``, ``kaisim
apply`` and ``kaisim diff`` (docs/live.md), with DataFrames.

    import kaisim.live as live
    live.snapshot(path="cluster.json")          # the cluster as a snapshot kaisim replays offline
    live.apply("plan/")                         # server-side dry run: created / changed / unchanged
    live.diff("plan/")                          # planned / predicted / observed / drift per queue and field
    session = live.watch("plan/", duration=60)  # a --watch session
    kaisim.live.plot_status(session, queue="team-nlp")

The cluster is reached through the kubeconfig as kubectl reads it ($KUBECONFIG, ``kubeconfig=``,
``context=``). Every call releases the GIL while it talks to the cluster. Failures raise
:class:`kaisim.errors.ClusterError` (never with credentials in the message).
"""

from __future__ import annotations

import json
import os
import warnings as _warnings
from pathlib import Path
from typing import Any, Iterable, Optional, Sequence, Union

import pandas as pd

from . import _core
from .result import parse_quantity

PathLike = Union[str, "os.PathLike[str]"]
DIFF_COLUMNS = ["queue", "kind", "field", "resource", "planned", "predicted", "observed", "drift", "at_s"]
APPLY_COLUMNS = ["kind", "apiVersion", "namespace", "name", "file", "outcome", "details", "message"]


def _warn(messages: Iterable[str]) -> None:
    from .run import KaisimWarning

    for message in messages:
        _warnings.warn(message, KaisimWarning, stacklevel=3)


def _paths(plan: Union[None, PathLike, Sequence[PathLike]]) -> list[str]:
    if plan is None:
        return []
    if isinstance(plan, (str, os.PathLike)):
        return [os.fspath(plan)]
    return [os.fspath(p) for p in plan]


def _connection(kubeconfig: Optional[PathLike], context: Optional[str], request_timeout: float,
                timeout: float) -> tuple[str, str, float, float]:
    return (os.fspath(kubeconfig) if kubeconfig else "", context or "", float(request_timeout), float(timeout))


def _rows(report_json: str) -> pd.DataFrame:
    rows = json.loads(report_json)["rows"]
    frame = pd.DataFrame(rows, columns=DIFF_COLUMNS)
    return frame


def snapshot(*, path: Optional[PathLike] = None, kubeconfig: Optional[PathLike] = None, context: Optional[str] = None,
             request_timeout: float = 30, timeout: float = 60) -> dict[str, Any]:
    """The cluster's Nodes, Pods, Queues, PodGroups, BindRequests, PriorityClasses, Topologies and
    DRA objects as one ``kind: List`` (a dict), the file ``kaisim snapshot`` writes; with ``path``
    also written there (the same bytes)."""
    text, warnings = _core.live_snapshot(*_connection(kubeconfig, context, request_timeout, timeout))
    _warn(warnings)
    if path is not None:
        Path(path).write_text(text, encoding="utf-8", newline="")
    return json.loads(text)


def apply(plan: Union[PathLike, Sequence[PathLike]], dry_run: bool = True, *, force_conflicts: bool = False,
          kubeconfig: Optional[PathLike] = None, context: Optional[str] = None, request_timeout: float = 30,
          timeout: float = 60) -> pd.DataFrame:
    """Server-side apply of a plan folder or manifest files (``kaisim apply``); a dry run unless
    ``dry_run=False``. One row per object: kind, apiVersion, namespace, name, file, outcome
    (created, changed, unchanged, conflict, rejected), details (changed fields or conflicts),
    message. Raises ClusterError when applying stopped at an error (the objects before it are
    applied whole)."""
    from .errors import ClusterError

    text, warnings = _core.live_apply(_paths(plan), dry_run, force_conflicts,
                                      *_connection(kubeconfig, context, request_timeout, timeout))
    _warn(warnings)
    report = json.loads(text)
    if report["error"]:
        raise ClusterError(report["error"])
    return pd.DataFrame(report["objects"], columns=APPLY_COLUMNS)


def diff(plan: Union[None, PathLike, Sequence[PathLike]] = None, *, settle: float = 5,
         kubeconfig: Optional[PathLike] = None, context: Optional[str] = None, request_timeout: float = 30,
         timeout: float = 60) -> pd.DataFrame:
    """Drift now (``kaisim diff``): one row per queue and field. Spec rows (kind ``spec``): each
    field the plan sets, planned against observed. Status rows (kind ``status``): allocated,
    allocatedNonPreemptible and requested per resource, predicted against observed (Kubernetes
    quantities as text); ``drift`` is True where they differ after ``settle`` seconds."""
    text, warnings = _core.live_diff(_paths(plan), float(settle), *_connection(kubeconfig, context, request_timeout, timeout))
    _warn(warnings)
    return _rows(text)


def watch(plan: Union[None, PathLike, Sequence[PathLike]] = None, *, duration: float = 60, settle: float = 5,
          kubeconfig: Optional[PathLike] = None, context: Optional[str] = None, request_timeout: float = 30,
          timeout: float = 60) -> pd.DataFrame:
    """A ``kaisim diff --watch`` session of ``duration`` seconds: every value as first seen, then
    each value again when its drift began or ended, with ``at_s`` (seconds since the start). Feed
    it to :func:`plot_status`."""
    changes, warnings = _core.live_watch(_paths(plan), float(settle), float(duration),
                                         *_connection(kubeconfig, context, request_timeout, timeout))
    _warn(warnings)
    frames = [_rows(c) for c in changes]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=DIFF_COLUMNS)


def diff_recording(recording: PathLike, scenario: PathLike, *, settle: float = 5) -> pd.DataFrame:
    """``kaisim diff --recording``: the replay of ``scenario`` against a recording of the real
    KAI, one row per queue, status field and resource at every settled sample (``at_s``)."""
    text, warnings = _core.live_diff_recording(os.fspath(recording), os.fspath(scenario), float(settle))
    _warn(warnings)
    return _rows(text)


def plot_status(rows: pd.DataFrame, *, queue: str, field: str = "allocated", resource: str = "nvidia.com/gpu",
                path: Optional[PathLike] = None):
    """Predicted against observed Queue.status of one queue over a session (:func:`watch` or
    :func:`diff_recording` rows), drifting stretches shaded. Returns the matplotlib Figure; with
    ``path`` also saves it."""
    import matplotlib.pyplot as plt

    sel = rows[(rows["kind"] == "status") & (rows["queue"] == queue) & (rows["field"] == field) &
               (rows["resource"] == resource)].sort_values("at_s", kind="stable")
    fig, ax = plt.subplots(figsize=(8, 3.2))
    if sel.empty:
        ax.text(0.5, 0.5, f"no {field} rows for {queue}", ha="center", va="center", transform=ax.transAxes)
    else:
        t = sel["at_s"].astype(float).tolist()
        predicted = [parse_quantity(v) for v in sel["predicted"]]
        observed = [parse_quantity(v) for v in sel["observed"]]
        ax.step(t, predicted, where="post", label="predicted (kaisim)", linewidth=2)
        ax.step(t, observed, where="post", label="observed (Queue.status)", linestyle="--", linewidth=2)
        for start, end, drift in zip(t, t[1:] + t[-1:], sel["drift"].tolist()):
            if drift:
                ax.axvspan(start, max(end, start + 0.5), color="red", alpha=0.15, linewidth=0)
        ax.legend(loc="best")
    ax.set_xlabel("seconds")
    ax.set_ylabel(f"{field} {resource}")
    ax.set_title(f"{queue}: predicted vs observed Queue.status")
    fig.tight_layout()
    if path is not None:
        fig.savefig(os.fspath(path))
    return fig
