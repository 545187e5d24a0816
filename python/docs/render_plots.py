"""Renders the example figures of python/README.md into docs/images/ (run from anywhere, with
the kaisim package installed): python python/docs/render_plots.py"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import kaisim  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "docs" / "images"


def morning(gpus: int, nlp_quota: float, nlp_weight: float) -> kaisim.ScenarioBuilder:
    """Notebook 02's workload: nlp bursts at once, vision and recommender arrive later."""
    other = round((gpus - nlp_quota) / 2, 2)
    b = kaisim.ScenarioBuilder("morning", duration="40m")
    b.node_pool("l40s", count=gpus, model="L40S")
    b.queue("org", gpu_quota=gpus, gpu_limit=gpus)
    b.queue("nlp", parent="org", gpu_quota=nlp_quota, gpu_limit=gpus, weight=nlp_weight)
    b.queue("vision", parent="org", gpu_quota=other, gpu_limit=gpus)
    b.queue("recommender", parent="org", gpu_quota=other, gpu_limit=gpus)
    for i in range(3 * gpus):
        b.pod(f"nlp-{i}", queue="nlp", gpu_fraction=0.33, at=0, delete_at=f"{20 + 2 * i}m")
    for i in range(gpus):
        b.pod(f"vision-{i}", queue="vision", gpu_fraction=0.5, at=f"{3 + i}m", delete_at=f"{25 + i}m")
        b.pod(f"rec-{i}", queue="recommender", gpu_fraction=0.33, at=f"{5 + i}m", delete_at=f"{30 + i}m")
    return b


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    burst = kaisim.replay(kaisim.example("seed/burst-and-reclaim.yaml"))
    kaisim.plot.allocation(burst, path=OUT / "plot-allocation.png")
    day = kaisim.replay(kaisim.example("examples/three-teams-day.yaml"))
    kaisim.plot.wait_times(day, path=OUT / "plot-wait-times.png")
    kaisim.plot.wait_causes(day, path=OUT / "plot-wait-causes.png")
    frame = kaisim.sweep(morning, {"gpus": [2, 3], "nlp_quota": [0.5, 1.0], "nlp_weight": [1, 3]})
    kaisim.plot.sweep(frame[frame["gpus"] == 2], "wait_s_max", x="nlp_quota", y="nlp_weight", queue="vision",
                      path=OUT / "plot-sweep-heatmap.png")
    three = frame[(frame["gpus"] == 3) & (frame["nlp_weight"] == 1) & (frame["queue"] != "org")]
    kaisim.plot.sweep(three, "wait_s_max", x="nlp_quota", path=OUT / "plot-sweep-lines.png")


if __name__ == "__main__":
    main()
