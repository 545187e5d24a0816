"""The web view of `kaisim serve` in a real headless Chromium (Debian's, driven by playwright-core
from web/node_modules, which tools/setup installs): the calculator's fair shares are the CLI's,
and the replay viewer shows the runbook replay and each pod's story."""
import json
import os
import re
import shutil
import signal
import subprocess
import urllib.request

import pytest

from conftest import DATA, SOURCE_DIR

BROWSE = SOURCE_DIR / "tests" / "web" / "browse.mjs"
SCENARIO = SOURCE_DIR / "scenarios" / "seed" / "burst-and-reclaim.yaml"


def start(kaisim_bin, *args):
    proc = subprocess.Popen([kaisim_bin, "serve", "--port", "0", *args], stderr=subprocess.PIPE, text=True)
    line = proc.stderr.readline()
    match = re.search(r"listening on (http://127\.0\.0\.1:\d+)/simulate", line)
    assert match, line + proc.stderr.read()
    return match.group(1), proc


def stop(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)


def browse(base, view, out_dir, **env):
    run = subprocess.run(["node", str(BROWSE), base, view, str(out_dir)], capture_output=True, text=True,
                         timeout=120, env={**os.environ, **env})
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["console"] == [], result["console"]
    # Nothing but this server: no CDN, no other host.
    assert all(url.startswith(base + "/") for url in result["requests"]), result["requests"]
    return result


@pytest.fixture
def replay_out(kaisim, tmp_path):
    out = tmp_path / "out"
    run = kaisim("replay", SCENARIO, "--out", out)
    assert run.returncode == 0, run.stderr
    return out


def test_the_page_and_its_assets_come_from_the_binary(kaisim_bin):
    base, proc = start(kaisim_bin)
    try:
        with urllib.request.urlopen(base + "/", timeout=10) as resp:
            page = resp.read().decode()
            assert resp.headers["Content-Type"].startswith("text/html")
            assert "default-src 'self'" in resp.headers["Content-Security-Policy"]
        assert '<script src="app.js">' in page
        with urllib.request.urlopen(base + "/app.js", timeout=10) as resp:
            assert resp.headers["Content-Type"].startswith("text/javascript")
            assert len(resp.read()) > 20_000  # the app and uPlot, bundled
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(base + "/api/replay", timeout=10)
        assert err.value.code == 404 and "--replay" in err.value.read().decode()
    finally:
        stop(proc)


def test_calculator_shows_the_clis_fair_shares_and_updates_as_you_type(kaisim, kaisim_bin, tmp_path):
    base, proc = start(kaisim_bin)
    try:
        seen = browse(base, "calculator", tmp_path)
    finally:
        stop(proc)
    example = json.loads((DATA / "kai-readme-example.json").read_text())
    assert seen["body"] == example  # the body shown for copying is KAI's README example itself
    cli = json.loads(kaisim("fairshare", DATA / "kai-readme-example.json").stdout)
    assert seen["initial"] == {q: json.dumps(v["gpu"]) for q, v in cli.items()} == {"queue1": "70", "queue2": "30"}
    # After typing weight 3 for queue2: the page's numbers are the CLI's for the body it shows.
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(seen["body_after_edit"]))
    cli = json.loads(kaisim("fairshare", edited).stdout)
    assert seen["after_edit"] == {q: json.dumps(v["gpu"]) for q, v in cli.items()} == {"queue1": "50", "queue2": "50"}
    assert (tmp_path / "web-calculator.png").stat().st_size > 10_000


def test_replay_viewer_shows_the_runbook_replay_and_why_a_pod_waited(kaisim, kaisim_bin, replay_out, tmp_path):
    base, proc = start(kaisim_bin, "--replay", replay_out)
    try:
        seen = browse(base, "replay", tmp_path, CLICK_POD="default/vision-batch-test")
    finally:
        stop(proc)
    assert seen["title"].startswith("burst-and-reclaim: 420 s virtual, 421 cycles, 1 GPUs, 1 evictions")
    assert seen["charts"] == ["team-nlp", "team-recommender", "team-vision"]
    assert {"allocated", "fair share", "quota", "bind (green dot)", "eviction (red dot)"} <= set(seen["legend"])
    assert {"default/nlp-burst", "default/vision-batch-test", "default/nlp-batch-test"} <= set(seen["pods"])
    story = kaisim("explain", replay_out, "default/vision-batch-test").stdout
    assert seen["explain"].strip() == story.strip()
    assert story.startswith("default/vision-batch-test waited 30 s: pipelined on l40s-0 by reclaim")
    assert (tmp_path / "web-replay.png").stat().st_size > 10_000


def test_serve_refuses_a_folder_that_is_not_a_replay(kaisim, tmp_path):
    run = kaisim("serve", "--port", "0", "--replay", tmp_path)
    assert run.returncode == 2
    assert run.stderr.startswith("kaisim: error: ") and "events.jsonl" in run.stderr
