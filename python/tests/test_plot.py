"""The plots render the runbook replay to real PNG and SVG files."""
import matplotlib

matplotlib.use("Agg")

import kaisim
from conftest import RUNBOOK


def test_plots_write_png_and_svg(tmp_path):
    result = kaisim.replay(RUNBOOK)
    fig = kaisim.plot.allocation(result, path=tmp_path / "alloc.png")
    assert len(fig.axes) == 4  # ml-org and the three teams
    assert (tmp_path / "alloc.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    kaisim.plot.wait_times(result, path=tmp_path / "wait.svg")
    assert b"<svg" in (tmp_path / "wait.svg").read_bytes()[:500]
    kaisim.plot.fragmentation(result, path=tmp_path / "frag.png")
    assert (tmp_path / "frag.png").stat().st_size > 1000


def test_wait_table_counts_every_bind():
    result = kaisim.replay(RUNBOOK)
    waits = kaisim.plot.wait_table(result)
    binds = result.events[result.events["type"] == "bind"]
    assert len(waits) == len(binds)
    assert waits.loc[waits["pod"] == "default/vision-batch-test", "wait_s"].max() == 30
