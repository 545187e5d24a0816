"""The installed kaisim package against the real CLI binary (KAISIM_BIN, default build/bin/kaisim)."""
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "scenarios"
RUNBOOK = SCENARIOS / "seed" / "burst-and-reclaim.yaml"


@pytest.fixture(scope="session")
def kaisim_bin():
    path = os.environ.get("KAISIM_BIN", str(ROOT / "build" / "bin" / "kaisim"))
    assert os.access(path, os.X_OK), f"kaisim binary not found at {path}"
    return path


@pytest.fixture
def cli(kaisim_bin):
    def run(*args, stdin=None):
        return subprocess.run([kaisim_bin, *map(str, args)], input=stdin, capture_output=True, text=True, timeout=120)

    return run
