"""The plots render real replays and sweeps to PNG and SVG files, with what a reader needs: y from
0, every marker in the legend, whole-pod counts, censored waits, every sweep variant labelled."""
import matplotlib

matplotlib.use("Agg")

import pandas as pd

import kaisim
from conftest import RUNBOOK, SCENARIOS


def test_allocation_has_a_panel_per_leaf_queue_from_zero_with_every_marker_explained(tmp_path):
    result = kaisim.replay(RUNBOOK)
    fig = kaisim.plot.allocation(result, path=tmp_path / "alloc.png")
    assert [ax.get_title(loc="left") for ax in fig.axes] == ["team-nlp", "team-recommender", "team-vision"]
    assert all(ax.get_ylim()[0] == 0 for ax in fig.axes)
    [legend] = fig.legends
    assert [t.get_text() for t in legend.get_texts()] == [
        "allocated", "fair share", "quota", "limit", "bind", "pod evicted", "eviction to reclaim for it"]
    assert (tmp_path / "alloc.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    kaisim.plot.fragmentation(result, path=tmp_path / "frag.png")
    assert (tmp_path / "frag.png").stat().st_size > 1000


def test_wait_table_counts_every_bind_and_marks_censored_waits():
    result = kaisim.replay(RUNBOOK)
    waits = kaisim.plot.wait_table(result)
    binds = result.events[result.events["type"] == "bind"]
    assert len(waits) == len(binds) and not waits["censored"].any()
    assert waits.loc[waits["pod"] == "default/vision-batch-test", "wait_s"].max() == 30
    day = kaisim.replay(SCENARIOS / "examples" / "three-teams-day.yaml")
    waits = kaisim.plot.wait_table(day)
    still = waits[waits["censored"]]
    assert len(still) == sum(day.summary["pods_waiting_at_end"])
    assert (still["wait_s"] > 0).all()


def test_wait_ecdf_counts_whole_pods_and_draws_censored_ones(tmp_path):
    day = kaisim.replay(SCENARIOS / "examples" / "three-teams-day.yaml")
    fig = kaisim.plot.wait_times(day, path=tmp_path / "wait.svg")
    assert b"<svg" in (tmp_path / "wait.svg").read_bytes()[:500]
    [ax] = fig.axes
    assert all(float(t).is_integer() for t in ax.get_yticks())
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "still waiting at the end (wait so far)" in labels
    assert any(label.startswith("team-nlp (") and "still waiting" in label for label in labels)
    fig = kaisim.plot.wait_causes(day, path=tmp_path / "causes.png")
    shown = {t.get_text() for t in fig.axes[0].get_legend().get_texts()}
    assert shown == {c for c, v in day.wait_by_cause.sum().items() if v > 0}


def sweep_frame():
    rows = []
    for v, (q, w) in enumerate([(q, w) for q in (0.5, 1.0) for w in (1, 3)]):
        for queue, base in (("a", 10), ("b", 20)):
            rows.append({"variant": v, "quota": q, "weight": w, "queue": queue, "wait_s_max": base + 100 * q - w})
    return pd.DataFrame(rows)


def test_sweep_heatmap_writes_every_cell_and_outlines_the_best(tmp_path):
    fig = kaisim.plot.sweep(sweep_frame(), "wait_s_max", x="quota", y="weight", queue="a", path=tmp_path / "h.png")
    ax = fig.axes[0]
    assert sorted(t.get_text() for t in ax.texts) == ["107", "109", "57", "59"]
    assert "best: quota=0.5, weight=3" in ax.get_title(loc="left")
    assert len(ax.patches) == 1  # the outline


def test_sweep_lines_label_every_variant_and_ring_the_best(tmp_path):
    frame = sweep_frame()
    fig = kaisim.plot.sweep(frame[frame["weight"] == 1], "wait_s_max", x="quota", best="min", path=tmp_path / "l.png")
    ax = fig.axes[0]
    assert sorted(t.get_text() for t in ax.texts) == ["109", "119", "59", "69"]
    assert ax.get_ylim()[0] == 0
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["a", "b", "best: quota=0.5, a"]
