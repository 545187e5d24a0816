"""The malformed-input corpus (tests/malformed/corpus.py) through the real binary: every case ends
with its exit code and one line that names its place, nothing on stdout, no output folder."""
import dataclasses
import http.client
import re
import subprocess
import sys

import pytest

from conftest import SOURCE_DIR

sys.path.insert(0, str(SOURCE_DIR / "tests" / "malformed"))
import corpus  # noqa: E402


def cases(family):
    return [pytest.param(c, id=c.name) for c in corpus.CASES if c.family == family]


def check(run, case, file):
    """The outcome the case expects: exit code, and one line naming its place."""
    assert run.returncode == case.exit, run.stderr
    if case.exit == 0:
        if case.detail:  # accepted with a warning at that place
            lines = [line for line in run.stderr.splitlines() if line.startswith(f"kaisim: warning: {case.prefix(file)}")]
            assert any(case.detail in line for line in lines), run.stderr
        return
    assert run.stdout == ""
    assert run.stderr.count("\n") == 1, run.stderr
    assert run.stderr.startswith(f"kaisim: error: {case.prefix(file)}"), run.stderr
    if not case.path:  # and no field path follows the place
        assert not re.match(r"[\w.\[\]/-]+: ", run.stderr[len(f"kaisim: error: {case.prefix(file)}"):]), run.stderr
    assert case.detail in run.stderr


def write_files(case, folder):
    for name, text in case.files.items():
        if name.endswith("/"):
            (folder / name).mkdir()
        else:
            (folder / name).write_text(text)


@pytest.mark.parametrize("case", cases("fairshare"))
def test_fairshare_request(kaisim, tmp_path, case):
    request = tmp_path / "req.json"
    request.write_bytes(case.data)
    check(kaisim(*case.args, "fairshare", request), case, str(request))


@pytest.mark.parametrize("case", cases("scenario"))
def test_scenario(kaisim, tmp_path, case):
    scenario = tmp_path / "s.yaml"
    scenario.write_bytes(case.data)
    write_files(case, tmp_path)
    run = kaisim(*case.args, "replay", scenario, "--out", tmp_path / "out")
    check(run, case, str(scenario))
    if case.exit != 0:
        assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("case", cases("manifest"))
def test_manifest_in_a_snapshot_and_in_a_scenario(kaisim, tmp_path, case):
    manifest = tmp_path / "m.yaml"
    manifest.write_bytes(case.data)
    check(kaisim(*case.args, "cycle", manifest), case, str(manifest))
    # The same file among a scenario's manifests: the same message at the same place (the
    # replay reads each document on its own, so a path does not start with documents[i]).
    scenario = tmp_path / "s.yaml"
    scenario.write_text("schema_version: 1\nduration: 5s\nmanifests: [m.yaml]\n")
    run = kaisim(*case.args, "replay", scenario, "--out", tmp_path / "out")
    check(run, dataclasses.replace(case, path=re.sub(r"^documents\[\d+\]\.?", "", case.path)), str(manifest))
    if case.exit != 0:
        assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("case", cases("snapshot"))
def test_snapshot(kaisim, tmp_path, case):
    snapshot = tmp_path / "snapshot.json"
    snapshot.write_bytes(case.data)
    check(kaisim(*case.args, "cycle", snapshot), case, str(snapshot))


@pytest.mark.parametrize("case", cases("cli"))
def test_command_line(kaisim, tmp_path, case):
    (tmp_path / "big.json").write_text('{"queues": []}' + " " * (2 << 20))
    args = [str(a).format(dir=tmp_path, source=SOURCE_DIR) for a in case.args]
    run = kaisim(*args, timeout=30)
    assert run.returncode == 2, run.stderr
    assert run.stdout == ""
    assert run.stderr.count("\n") == 1 and run.stderr.startswith("kaisim: error: "), run.stderr
    assert case.detail in run.stderr


@pytest.fixture(scope="module")
def server(kaisim_bin):
    proc = subprocess.Popen([kaisim_bin, "serve", "--port", "0"], stderr=subprocess.PIPE, text=True)
    line = proc.stderr.readline()
    port = int(re.search(r":(\d+)/simulate", line).group(1))
    yield port
    proc.terminate()
    proc.wait(timeout=10)


@pytest.mark.parametrize("case", cases("serve"))
def test_serve_body(server, case):
    conn = http.client.HTTPConnection("127.0.0.1", server, timeout=30)
    conn.request("POST", "/simulate", case.data, {"Content-Type": "application/json"})
    response = conn.getresponse()
    body = response.read().decode()
    assert response.status == case.exit, body
    assert body.count("\n") == 1 and body.startswith(case.prefix("request")), body
    assert case.detail in body
    assert all("\n" not in value and len(value) < 200 for _, value in response.getheaders())
