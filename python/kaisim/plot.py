"""Plots of a replay (matplotlib). Each function returns the Figure and, given ``path``, saves
it (PNG or SVG by the file's suffix)."""

from __future__ import annotations

import io
import os
from typing import Optional, Sequence, Union

import pandas as pd

from .result import Result

PathLike = Union[str, "os.PathLike[str]"]


def _pyplot():
    # Imported on first use so that `import kaisim` stays light; matplotlib picks the backend
    # (inline in notebooks, Agg without a display).
    import matplotlib.pyplot as plt

    return plt


def _step_series(frame: pd.DataFrame, column: str, end_s: float) -> tuple[list[float], list[float]]:
    """Timeline rows appear only on change; extend the last value to the end of the replay."""
    xs = list(frame["time_s"].astype(float)) + [end_s]
    ys = list(frame[column].astype(float))
    return xs, ys + ys[-1:]


def _finish(fig, path: Optional[PathLike]):
    fig.tight_layout()
    if path is not None:
        fig.savefig(os.fspath(path))
    return fig


def allocation(result: Result, *, resource: str = "gpu", queues: Optional[Sequence[str]] = None,
               path: Optional[PathLike] = None):
    """Allocated vs fair share vs quota over time, one axis per queue, with evictions the queue
    suffered (red x) and evictions made on its behalf (green ^) marked at the time they happened."""
    plt = _pyplot()
    tl = result.timeline
    tl = tl[tl["resource"] == resource]
    names = list(queues) if queues is not None else sorted(tl["queue"].unique())
    end_s = float(result.summary_json["duration_s"])
    ev = result.events
    evicts = ev[ev["type"] == "evict"]
    fig, axes = plt.subplots(len(names), 1, figsize=(9, 2.2 * max(1, len(names))), sharex=True, squeeze=False)
    for ax, q in zip(axes[:, 0], names):
        rows = tl[tl["queue"] == q].sort_values("time_s")
        if rows.empty:
            ax.set_title(f"{q} (no data)")
            continue
        for column, style, label in (("allocated", "-", "allocated"), ("fair_share", "--", "fair share"),
                                     ("quota", ":", "quota")):
            xs, ys = _step_series(rows, column, end_s)
            ax.step(xs, ys, where="post", linestyle=style, label=label)
        suffered = evicts[evicts["queue"] == q]
        if not suffered.empty:
            ax.plot(suffered["time_s"], [0] * len(suffered), "rx", markersize=9, label="evicted")
        caused = evicts[evicts["for_queue"] == q]
        if not caused.empty:
            ax.plot(caused["time_s"], [0] * len(caused), "g^", markersize=8, label="reclaimed for")
        ax.set_ylabel(resource)
        ax.set_title(q, loc="left", fontsize=10)
        ax.grid(alpha=0.3)
    axes[0, 0].legend(loc="upper right", fontsize=8, ncol=5)
    axes[-1, 0].set_xlabel("virtual time (s)")
    return _finish(fig, path)


def wait_times(result: Result, *, path: Optional[PathLike] = None):
    """Distribution of submit -> bind waits per queue (seconds)."""
    plt = _pyplot()
    waits = wait_table(result)
    fig, ax = plt.subplots(figsize=(7, 3.5))
    for q, rows in waits.groupby("queue"):
        ax.hist(rows["wait_s"], bins=20, alpha=0.6, label=str(q))
    ax.set_xlabel("wait from submit to bind (s)")
    ax.set_ylabel("pods")
    if not waits.empty:
        ax.legend(fontsize=8)
    return _finish(fig, path)


def fragmentation(result: Result, *, path: Optional[PathLike] = None):
    """Allocated GPUs and stranded GPU memory (idle memory on partly used GPUs) over time."""
    plt = _pyplot()
    cl = pd.read_csv(io.StringIO(result.outputs["cluster.csv"]))
    end_s = float(result.summary_json["duration_s"])
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 4.5), sharex=True)
    for column, label in (("gpus", "GPUs"), ("allocated_gpus", "allocated")):
        xs, ys = _step_series(cl, column, end_s)
        top.step(xs, ys, where="post", label=label)
    top.set_ylabel("GPU devices")
    top.legend(fontsize=8)
    xs, ys = _step_series(cl, "stranded_gpu_memory_mib", end_s)
    bottom.step(xs, ys, where="post", color="tab:red")
    bottom.set_ylabel("stranded MiB")
    bottom.set_xlabel("virtual time (s)")
    return _finish(fig, path)


def wait_table(result: Result) -> pd.DataFrame:
    """One row per bind: pod, queue, wait_s (from its submit or re-creation)."""
    ev = result.events
    submitted: dict[str, float] = {}
    rows = []
    for e in ev.itertuples(index=False):
        if e.type in ("submit", "recreate"):
            submitted[e.pod] = e.time_s
        elif e.type == "bind" and e.pod in submitted:
            rows.append({"pod": e.pod, "queue": e.queue, "wait_s": e.time_s - submitted.pop(e.pod)})
    return pd.DataFrame(rows, columns=["pod", "queue", "wait_s"])
