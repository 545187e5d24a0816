"""kaisim.live.diff_recording: the replay against a recording of the real KAI, as a DataFrame."""
import pathlib

import pytest

import kaisim.live

ROOT = pathlib.Path(__file__).resolve().parents[2]
RECORDING = ROOT.parent / "shared" / "kai-live" / "runbook-burst-and-reclaim"
SCENARIO = ROOT / "scenarios" / "seed" / "burst-and-reclaim.yaml"


@pytest.mark.skipif(not RECORDING.is_dir(), reason="skipped: ../shared/kai-live not present")
def test_diff_recording_rows_and_plot(tmp_path):
    rows = kaisim.live.diff_recording(RECORDING, SCENARIO)
    assert not rows["drift"].any()
    assert set(rows["queue"]) == {"ml-org", "team-nlp", "team-vision", "team-recommender"}
    nlp = rows[(rows["queue"] == "team-nlp") & (rows["field"] == "allocated")]
    # The evicted burst still runs out its grace period: 0.99 until it is gone at 210 s.
    assert set(nlp[(nlp["at_s"] > 186) & (nlp["at_s"] < 205)]["observed"]) == {"990m"}
    fig = kaisim.live.plot_status(rows, queue="team-nlp", path=tmp_path / "nlp.png")
    assert (tmp_path / "nlp.png").stat().st_size > 0
    assert fig.axes[0].get_ylabel() == "allocated nvidia.com/gpu"
    early = kaisim.live.diff_recording(RECORDING, SCENARIO, settle=1)
    assert early["drift"].sum() == 4
