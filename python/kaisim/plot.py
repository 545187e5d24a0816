"""Plots of a replay and of sweeps (matplotlib). Each function returns the Figure and, given
``path``, saves it (PNG or SVG by the file's suffix). The web view of ``kaisim serve --replay``
draws the same allocation and wait figures."""

from __future__ import annotations

import io
import os
from typing import Optional, Sequence, Union

import pandas as pd

from .result import Result

PathLike = Union[str, "os.PathLike[str]"]

# One colour per series kind, the same in every panel.
_ALLOCATED, _FAIR, _QUOTA, _LIMIT = "tab:blue", "black", "tab:gray", "tab:purple"


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


def _value_at(frame: pd.DataFrame, column: str, t: float) -> float:
    before = frame[frame["time_s"] <= t]
    return float(before[column].iloc[-1]) if not before.empty else 0.0


def _finish(fig, path: Optional[PathLike]):
    if path is not None:
        fig.savefig(os.fspath(path), dpi=110, bbox_inches="tight")
    return fig


def allocation(result: Result, *, resource: str = "gpu", queues: Optional[Sequence[str]] = None,
               path: Optional[PathLike] = None):
    """Allocated vs fair share vs quota (and limit) over time, one panel per queue, y from 0.
    Markers at the queue's allocation: binds of its pods (small green dots), evictions of its
    pods (red x), evictions made to reclaim for it (orange triangles); the legend explains each.
    Default queues: the leaf queues (those in kai-timeline.csv)."""
    plt = _pyplot()
    from matplotlib.lines import Line2D

    tl = result.timeline
    tl = tl[tl["resource"] == resource]
    if queues is not None:
        names = list(queues)
    else:
        leaves = set(result.kai_timeline["QueueID"].astype(str))
        names = sorted(q for q in tl["queue"].unique() if q in leaves) or sorted(tl["queue"].unique())
    end_s = float(result.summary_json["duration_s"])
    ev = result.events
    unit = {"gpu": "GPUs", "cpu": "millicores", "memory": "bytes"}.get(resource, resource)
    fig, axes = plt.subplots(len(names), 1, figsize=(10, 1.9 * max(1, len(names)) + 1.2), sharex=True, squeeze=False)
    for ax, q in zip(axes[:, 0], names):
        rows = tl[tl["queue"] == q].sort_values("time_s")
        ax.set_title(q, loc="left", fontsize=10)
        ax.grid(alpha=0.3)
        ax.set_ylabel(unit)
        if rows.empty:
            ax.text(0.5, 0.5, "no data", transform=ax.transAxes, ha="center")
            continue
        xs, ys = _step_series(rows, "allocated", end_s)
        ax.step(xs, ys, where="post", color=_ALLOCATED, linewidth=2)
        ax.fill_between(xs, ys, step="post", color=_ALLOCATED, alpha=0.12)
        xs, ys = _step_series(rows, "fair_share", end_s)
        ax.step(xs, ys, where="post", color=_FAIR, linestyle="--", linewidth=1.2)
        top = max([1e-9, *rows["allocated"], *rows["fair_share"]])
        for column, color, style in (("quota", _QUOTA, ":"), ("limit", _LIMIT, "-.")):
            if (rows[column] >= 0).any():
                xs, ys = _step_series(rows, column, end_s)
                ys = [y if y >= 0 else float("nan") for y in ys]
                ax.step(xs, ys, where="post", color=color, linestyle=style, linewidth=1.2)
                finite = [y for y in ys if y == y]
                if column == "quota" or max(finite) <= 2 * top:  # a far-away limit would flatten the rest
                    top = max(top, *finite)
        for kind, style in (("bind", dict(marker="o", color="tab:green", markersize=4, linestyle="none")),
                            ("evict", dict(marker="x", color="tab:red", markersize=9, mew=2, linestyle="none"))):
            at = ev[(ev["type"] == kind) & (ev["queue"] == q)]["time_s"].astype(float)
            if not at.empty:
                ax.plot(at, [_value_at(rows, "allocated", t) for t in at], clip_on=False, zorder=5, **style)
        caused = ev[(ev["type"] == "evict") & (ev["for_queue"] == q)]["time_s"].astype(float)
        if not caused.empty:
            ax.plot(caused, [_value_at(rows, "allocated", t) for t in caused], marker="^", color="tab:orange",
                    markersize=9, linestyle="none", clip_on=False, zorder=5)
        ax.set_ylim(0, top * 1.15)
        ax.set_xlim(0, end_s)
    handles = [Line2D([], [], color=_ALLOCATED, linewidth=2, label="allocated"),
               Line2D([], [], color=_FAIR, linestyle="--", label="fair share"),
               Line2D([], [], color=_QUOTA, linestyle=":", label="quota"),
               Line2D([], [], color=_LIMIT, linestyle="-.", label="limit"),
               Line2D([], [], marker="o", color="tab:green", markersize=4, linestyle="none", label="bind"),
               Line2D([], [], marker="x", color="tab:red", markersize=8, mew=2, linestyle="none",
                      label="pod evicted"),
               Line2D([], [], marker="^", color="tab:orange", markersize=8, linestyle="none",
                      label="eviction to reclaim for it")]
    axes[-1, 0].set_xlabel("virtual time (s)")
    # Title and legend above the panels, in a band of fixed height whatever the number of panels.
    band = 0.45 / fig.get_figheight()
    fig.suptitle(f"{result.summary_json['scenario']}: {resource} allocation per queue", y=0.995, fontsize=11)
    fig.legend(handles=handles, loc="upper center", ncol=7, fontsize=8, frameon=False,
               bbox_to_anchor=(0.5, 1 - 0.25 / fig.get_figheight()), handletextpad=0.4, columnspacing=1.0)
    fig.tight_layout(rect=(0, 0, 1, 1 - band))
    return _finish(fig, path)


def wait_table(result: Result) -> pd.DataFrame:
    """One row per pod life (submit or re-creation): pod, queue, wait_s (to its bind, or to the
    end of the replay), censored (True: still pending at the end, so wait_s is a lower bound).
    Pods deleted before they were bound are left out."""
    ev = result.events
    end_s = float(result.summary_json["duration_s"])
    submitted: dict[str, tuple[float, str]] = {}
    rows = []
    for e in ev.itertuples(index=False):
        if e.type in ("submit", "recreate"):
            submitted[e.pod] = (e.time_s, e.queue)
        elif e.type == "bind" and e.pod in submitted:
            t0, q = submitted.pop(e.pod)
            rows.append({"pod": e.pod, "queue": q, "wait_s": e.time_s - t0, "censored": False})
        elif e.type in ("delete", "gone", "lost") and e.pod in submitted:
            submitted.pop(e.pod)
    for pod, (t0, q) in submitted.items():
        rows.append({"pod": pod, "queue": q, "wait_s": end_s - t0, "censored": True})
    return pd.DataFrame(rows, columns=["pod", "queue", "wait_s", "censored"])


def wait_times(result: Result, *, path: Optional[PathLike] = None):
    """Waits from submit to bind as an ECDF per queue: y is the number of the queue's pods bound
    within x seconds (whole pods). Pods still pending at the end are censored: drawn as open
    circles at the time they had waited by then (a lower bound), not counted as bound."""
    plt = _pyplot()
    from matplotlib.ticker import MaxNLocator

    waits = wait_table(result)
    fig, ax = plt.subplots(figsize=(8, 3.8))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    x_max = max([1.0, *waits["wait_s"]]) * 1.05
    for i, (q, rows) in enumerate(sorted(waits.groupby("queue"), key=lambda kv: str(kv[0]))):
        color = colors[i % len(colors)]
        done = sorted(rows.loc[~rows["censored"], "wait_s"])
        xs = [0.0, *done, x_max]
        ys = [0, *range(1, len(done) + 1), len(done)]
        censored = rows.loc[rows["censored"], "wait_s"]
        label = f"{q} ({len(done)} bound" + (f", {len(censored)} still waiting)" if len(censored) else ")")
        ax.step(xs, ys, where="post", color=color, linewidth=2, label=label)
        if len(censored):
            ax.plot(censored, [len(done)] * len(censored), marker="o", markerfacecolor="white", color=color,
                    markersize=8, linestyle="none")
    if waits["censored"].any():
        ax.plot([], [], marker="o", markerfacecolor="white", color="gray", linestyle="none",
                label="still waiting at the end (wait so far)")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlim(0, x_max)
    ax.set_ylim(0, None)
    ax.set_xlabel("wait from submit to bind (s)")
    ax.set_ylabel("pods bound within")
    ax.set_title(f"{result.summary_json['scenario']}: waits per queue (ECDF)", loc="left", fontsize=11)
    ax.grid(alpha=0.3)
    if not waits.empty:
        ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    return _finish(fig, path)


def wait_causes(result: Result, *, path: Optional[PathLike] = None):
    """Why pods waited: each queue's pod-seconds of waiting split by cause (summary.json
    ``wait_s_by_cause``), as stacked horizontal bars."""
    plt = _pyplot()
    frame = result.wait_by_cause
    if not frame.empty:
        frame = frame.loc[frame.sum(axis=1) > 0, (frame > 0).any(axis=0)]  # queues whose pods waited
    fig, ax = plt.subplots(figsize=(8, 0.6 * max(2, len(frame)) + 1.2))
    left = pd.Series(0.0, index=frame.index)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, cause in enumerate(sorted(frame.columns, key=lambda c: -frame[c].sum())):
        ax.barh(frame.index, frame[cause], left=left, color=colors[i % len(colors)], label=cause)
        left += frame[cause]
    ax.set_xlabel("time waited, summed over the queue's pods (pod-seconds)")
    ax.set_title(f"{result.summary_json['scenario']}: why pods waited", loc="left", fontsize=11)
    ax.invert_yaxis()
    ax.grid(alpha=0.3, axis="x")
    if len(frame.columns):
        ax.legend(fontsize=8, loc="lower right")
    else:
        ax.text(0.5, 0.5, "no pod waited", transform=ax.transAxes, ha="center")
    fig.tight_layout()
    return _finish(fig, path)


def fragmentation(result: Result, *, path: Optional[PathLike] = None):
    """Allocated GPUs and stranded GPU memory (idle memory on partly used GPUs) over time."""
    plt = _pyplot()
    cl = pd.read_csv(io.StringIO(result.outputs["cluster.csv"]))
    end_s = float(result.summary_json["duration_s"])
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 4.5), sharex=True)
    for column, label in (("gpus", "schedulable GPUs"), ("allocated_gpus", "allocated")):
        xs, ys = _step_series(cl, column, end_s)
        top.step(xs, ys, where="post", label=label)
    top.set_ylabel("GPU devices")
    top.set_ylim(0, None)
    top.legend(fontsize=8)
    xs, ys = _step_series(cl, "stranded_gpu_memory_mib", end_s)
    bottom.step(xs, ys, where="post", color="tab:red")
    bottom.set_ylim(0, max(1.0, *ys) * 1.1)
    bottom.set_ylabel("stranded MiB")
    bottom.set_xlabel("virtual time (s)")
    fig.tight_layout()
    return _finish(fig, path)


def sweep(frame: pd.DataFrame, metric: str, x: str, y: Optional[str] = None, *, queue: Optional[str] = None,
          best: str = "min", path: Optional[PathLike] = None):
    """A sweep (``kaisim.sweep``'s frame) at a glance: every variant labelled, the best marked.

    With one parameter ``x``: ``metric`` against ``x`` as lines, one per queue (or only
    ``queue``; a ``cluster_*`` metric is one line), each variant's value written at its point
    and the best one ringed. With two (``x`` and ``y``): a heatmap of ``metric`` over the grid
    (of ``queue``, or the cluster for a ``cluster_*`` metric), each cell written and the best
    cell outlined. ``best``: "min" or "max"."""
    if best not in ("min", "max"):
        raise ValueError('best must be "min" or "max"')
    plt = _pyplot()
    data = frame
    if queue is not None:
        data = data[data["queue"] == queue]
    if metric.startswith("cluster_"):
        data = data.drop_duplicates("variant")
    pick = (lambda s: s.idxmin()) if best == "min" else (lambda s: s.idxmax())
    title = f"{metric}" + (f" of {queue}" if queue else "") + f" ({best} is best)"
    if y is None:
        fig, ax = plt.subplots(figsize=(7.5, 4))
        groups = [("cluster", data)] if metric.startswith("cluster_") or "queue" not in data else \
            sorted(data.groupby("queue"), key=lambda kv: str(kv[0]))
        values = data[metric].astype(float)
        for k, (name, rows) in enumerate(groups):
            rows = rows.sort_values(x)
            line, = ax.plot(rows[x], rows[metric].astype(float), marker="o", label=str(name))
            for _, r in rows.iterrows():  # every variant's value, above and below in turn per line
                ax.annotate(f"{float(r[metric]):.3g}", (r[x], float(r[metric])), textcoords="offset points",
                            xytext=(0, 7 if k % 2 == 0 else -12), ha="center", fontsize=7, color=line.get_color())
        b = data.loc[pick(values)]
        ax.plot([b[x]], [float(b[metric])], marker="o", markersize=16, markerfacecolor="none",
                markeredgecolor="crimson", markeredgewidth=2, linestyle="none",
                label=f"best: {x}={b[x]}" + (f", {b['queue']}" if "queue" in b and not metric.startswith("cluster_") else ""))
        ax.set_xlabel(x)
        ax.set_ylabel(metric)
        ax.set_ylim(0, max(1e-9, float(values.max())) * 1.2)
        ax.set_xticks(sorted(data[x].unique()))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        ax.set_title(title, loc="left", fontsize=11)
        fig.tight_layout()
        return _finish(fig, path)

    if queue is None and not metric.startswith("cluster_") and data["queue"].nunique() > 1:
        raise ValueError("a heatmap of a per-queue metric needs queue=")
    grid = data.pivot_table(index=y, columns=x, values=metric, aggfunc="first").sort_index().sort_index(axis=1)
    fig, ax = plt.subplots(figsize=(1.2 * len(grid.columns) + 3, 0.7 * len(grid.index) + 2))
    image = ax.imshow(grid.to_numpy(dtype=float), cmap="viridis_r" if best == "min" else "viridis", aspect="auto")
    ax.set_xticks(range(len(grid.columns)), [str(c) for c in grid.columns])
    ax.set_yticks(range(len(grid.index)), [str(i) for i in grid.index])
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    flat = grid.stack()
    best_key = flat.idxmin() if best == "min" else flat.idxmax()
    lo, hi = float(flat.min()), float(flat.max())
    for (i, row_key) in enumerate(grid.index):
        for (j, col_key) in enumerate(grid.columns):
            v = grid.loc[row_key, col_key]
            if pd.isna(v):
                continue
            # viridis_r (min is best) is dark at high values, viridis (max) at low ones.
            level = (float(v) - lo) / (hi - lo or 1)
            dark = level > 0.5 if best == "min" else level < 0.5
            ax.text(j, i, f"{float(v):.3g}", ha="center", va="center", fontsize=9, color="white" if dark else "black")
    bi, bj = list(grid.index).index(best_key[0]), list(grid.columns).index(best_key[1])
    from matplotlib.patches import Rectangle

    ax.add_patch(Rectangle((bj - 0.5, bi - 0.5), 1, 1, fill=False, edgecolor="crimson", linewidth=3))
    fig.colorbar(image, ax=ax, label=metric)
    ax.set_title(title + f"; best: {x}={best_key[1]}, {y}={best_key[0]} (outlined)", loc="left", fontsize=10)
    fig.tight_layout()
    return _finish(fig, path)
