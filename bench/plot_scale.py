"""Log-log plot of scale_bench's results (CPU time of the one thread a cycle runs on: the machine
is shared, wall time is not the benchmark's own; ingest, which reads on two threads, as wall
time on the two cores), with the fitted growth exponents. Any number of JSON files, later ones
win.

  build/bin/scale_bench --benchmark_filter='BM_Ingest|BM_Cycle' --benchmark_repetitions=1 \
      --benchmark_out=scale.json --benchmark_out_format=json
  .venv/bin/python bench/plot_scale.py docs/scale.png scale.json

Every benchmark grows nodes and pods together (35 pods per node), so time ~ nodes^k is
(nodes x pods)^(k/2); the exponent k is a least-squares fit of log time on log nodes.
"""
import json
import math
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LABELS = {
    "BM_Ingest": "ingest: the snapshot.json file to state",
    "BM_Cycle": "one full cycle, 5% pending",
    "BM_CyclePending": "one full cycle, 10 pending pods per node",
    "BM_CycleFewPending": "one full cycle, 0.5% pending",
    "BM_CycleNonePending": "one full cycle, every pod running",
}


WALL = set()  # benchmarks measured as wall time


def fit(xs, ys):
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sum((a - mx) ** 2 for a in lx)


def main(dst, *sources):
    series = defaultdict(dict)
    benchmarks = [b for src in sources for b in json.load(open(src))["benchmarks"]]
    for b in benchmarks:
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        name, nodes = b["run_name"].split("/")[:2]
        scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
        wall = b["run_name"].endswith("/real_time")  # UseRealTime(): read on two threads
        series[name][int(nodes)] = (b["real_time"] if wall else b["cpu_time"]) * scale
        if wall:
            WALL.add(name)
    fig, ax = plt.subplots(figsize=(6.4, 5.6), dpi=100)
    for name, points in sorted(series.items()):
        xs = sorted(points)
        ys = [points[x] for x in xs]
        label = LABELS.get(name, name) + (", wall time on 2 cores" if name in WALL else "")
        if len(xs) > 1:
            k = fit(xs, ys)
            label += f"  (~nodes^{k:.2f})"
            print(f"{name}: time ~ nodes^{k:.2f} = (nodes x pods)^{k / 2:.2f}")
        ax.plot(xs, ys, marker="o", label=label)
    # The targets as points at 4,000 nodes: lines across the plot would cross the series' labels.
    ax.plot([4000, 4000], [1.0, 0.1], ls="none", marker="*", ms=11, color="black",
            label="issue 21's targets at 4,000 nodes: 1 s (ingest; cycle with 40,000 pending),\n"
            "100 ms (cycle with mostly running pods)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("nodes (35 pods per node)")
    ax.set_ylabel("CPU time of one thread, or wall time [s]")
    ax.set_title("kaisim at production scale (scale_bench, 2-core machine)", fontsize=10)
    ax.grid(True, which="both", lw=0.3)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=1, frameon=False)
    fig.tight_layout()
    fig.savefig(dst)


if __name__ == "__main__":
    main(*sys.argv[1:])
