"""`--out DIR` of `kaisim replay` and `kaisim gen trace`: kaisim never deletes or overwrites a
file it did not write (libsim io::write_output_folder, the one writer of output folders)."""
import subprocess
import sys

from conftest import SOURCE_DIR

MAIN = SOURCE_DIR / "scenarios" / "seed" / "burst-and-reclaim.yaml"
REPLAY_FILES = ["cluster.csv", "events.jsonl", "kai-timeline.csv", "queue-status.csv", "summary.json", "timeline.csv"]
TRACE = ("--pods", "20", "--arrival-hours", "0.1", "--node-scale", "0.01")


def snapshot(folder):
    """Every file under `folder` with its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_foreign_file_in_out_is_never_deleted(kaisim, tmp_path):
    # The case: a folder holding a summary.json of the user's next to their sources.
    mine = tmp_path / "project"
    (mine / "src").mkdir(parents=True)
    (mine / "src" / "main.py").write_text("print('hello')\n")
    (mine / "summary.json").write_text('{"mine": true}\n')
    before = snapshot(mine)
    run = kaisim("replay", MAIN, "--out", mine)
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr == (f"kaisim: error: {mine}: is not empty and is not a kaisim output folder (it has no "
                          ".kaisim-output file); not writing into it: choose a new or empty folder\n")
    assert snapshot(mine) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["project"]  # no temporary folder left


def test_gen_trace_never_deletes_a_folder_with_a_pods_csv(kaisim, tmp_path):
    (tmp_path / "pods.csv").write_text("my,own,data\n")
    (tmp_path / "notes.txt").write_text("keep me")
    before = snapshot(tmp_path)
    run = kaisim("gen", "trace", "--out", tmp_path, *TRACE)
    assert run.returncode == 2
    assert "is not a kaisim output folder" in run.stderr and run.stderr.count("\n") == 1
    assert snapshot(tmp_path) == before


def test_a_new_folder_gets_the_marker_and_a_rerun_replaces_only_kaisims_files(kaisim, tmp_path):
    out = tmp_path / "out"
    run = kaisim("replay", MAIN, "--out", out)
    assert run.returncode == 0, run.stderr
    assert "note" not in run.stderr  # a new folder: nothing to say
    assert sorted(p.name for p in out.iterdir()) == [".kaisim-output", *REPLAY_FILES]
    marker = (out / ".kaisim-output").read_text().splitlines()
    assert marker[0] == "kaisim output folder: replay"
    assert sorted(line[17:] for line in marker[1:]) == REPLAY_FILES
    first = snapshot(out)

    # The user adds an analysis of their own into the output folder; a rerun keeps it and says so.
    (out / "analysis.ipynb").write_text("{}")
    run = kaisim("replay", MAIN, "--out", out)
    assert run.returncode == 0, run.stderr
    assert run.stderr == (f"kaisim: note: {out}: replaced 6 files of an earlier kaisim run "
                          "(cluster.csv, events.jsonl, kai-timeline.csv, queue-status.csv, summary.json, timeline.csv)\n"
                          f"kaisim: note: {out}: kept 1 file kaisim did not write (analysis.ipynb)\n")
    assert (out / "analysis.ipynb").read_text() == "{}"
    after = snapshot(out)
    del after["analysis.ipynb"]
    assert after == first  # same input, same bytes, same marker


def test_a_kaisim_file_the_user_changed_is_not_overwritten(kaisim, tmp_path):
    out = tmp_path / "out"
    assert kaisim("replay", MAIN, "--out", out).returncode == 0
    (out / "summary.json").write_text('{"edited": "by hand"}\n')
    before = snapshot(out)
    run = kaisim("replay", MAIN, "--out", out)
    assert run.returncode == 2
    assert run.stderr == (f"kaisim: error: {out}: summary.json has changed since kaisim wrote it; not overwriting it: "
                          "move it away first\n")
    assert snapshot(out) == before


def test_a_file_of_an_output_name_that_kaisim_did_not_write_is_not_overwritten(kaisim, tmp_path):
    out = tmp_path / "t"
    assert kaisim("gen", "trace", "--out", out, *TRACE).returncode == 0
    (out / "pods.csv").unlink()
    (out / "pods.csv").write_text("mine\n")  # same name, but the marker's hash says it is not kaisim's
    before = snapshot(out)
    run = kaisim("gen", "trace", "--out", out, *TRACE)
    assert run.returncode == 2 and "pods.csv has changed since kaisim wrote it" in run.stderr
    assert snapshot(out) == before
    # A replay into a trace folder would delete the trace: refused as well.
    (out / "pods.csv").unlink()
    run = kaisim("replay", MAIN, "--out", out)
    assert run.returncode == 2
    assert run.stderr == f"kaisim: error: {out}: holds kaisim trace output, not replay output; not writing into it\n"
    # An output name placed by the user into a kaisim folder, not listed by the marker.
    replay_out = tmp_path / "r"
    assert kaisim("replay", MAIN, "--out", replay_out).returncode == 0
    (replay_out / ".kaisim-output").write_text("kaisim output folder: replay\n")  # lists nothing
    run = kaisim("replay", MAIN, "--out", replay_out)
    assert run.returncode == 2 and "cluster.csv is not a file kaisim wrote; not overwriting it" in run.stderr


def test_an_empty_folder_is_used_and_a_file_is_refused(kaisim, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert kaisim("replay", MAIN, "--out", empty).returncode == 0
    assert sorted(p.name for p in empty.iterdir()) == [".kaisim-output", *REPLAY_FILES]
    plain = tmp_path / "file.txt"
    plain.write_text("text")
    run = kaisim("replay", MAIN, "--out", plain)
    assert run.returncode == 2 and run.stderr == f"kaisim: error: {plain}: exists and is not a folder; not writing there\n"
    assert plain.read_text() == "text"


def dead_pid():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_stale_temporary_folders_of_dead_runs_are_cleaned_only_when_kaisims(kaisim, tmp_path):
    # What a run killed while writing leaves: DIR.kaisim-tmp-PID/ with kaisim's marker and some files.
    source = tmp_path / "earlier"
    assert kaisim("replay", MAIN, "--out", source).returncode == 0
    pid = dead_pid()
    stale = tmp_path / f"out.kaisim-tmp-{pid}"
    source.rename(stale)
    (stale / "timeline.csv").unlink()  # killed before it was written
    # The same name pattern without kaisim's marker, and one of a live process: left alone.
    foreign = tmp_path / f"out.kaisim-tmp-{dead_pid()}"
    foreign.mkdir()
    (foreign / "data.txt").write_text("not kaisim's")
    live = tmp_path / "out.kaisim-tmp-1"  # PID 1 is always alive
    live.mkdir()
    (live / ".kaisim-output").write_text("kaisim output folder: replay\n")

    run = kaisim("replay", MAIN, "--out", tmp_path / "out")
    assert run.returncode == 0, run.stderr
    assert run.stderr == f"kaisim: note: {stale}/: removed, left by a kaisim run that was stopped\n"
    assert not stale.exists()
    assert (foreign / "data.txt").read_text() == "not kaisim's"
    assert (live / ".kaisim-output").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["out", foreign.name, live.name])


def test_a_kaisim_tmp_folder_holding_a_foreign_file_keeps_it(kaisim, tmp_path):
    source = tmp_path / "earlier"
    assert kaisim("replay", MAIN, "--out", source).returncode == 0
    stale = tmp_path / f"out.kaisim-tmp-{dead_pid()}"
    source.rename(stale)
    (stale / "mine.txt").write_text("keep me")
    run = kaisim("replay", MAIN, "--out", tmp_path / "out")
    assert run.returncode == 0, run.stderr
    # kaisim's files inside are gone, the user's file and so the folder stay.
    assert sorted(p.name for p in stale.iterdir()) == ["mine.txt"]
