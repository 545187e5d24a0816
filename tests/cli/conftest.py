"""Fixtures for driving the real kaisim binary (path from KAISIM_BIN, set by CTest)."""
import os
import pathlib
import subprocess

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("KAISIM_SOURCE_DIR", pathlib.Path(__file__).parents[2]))
DATA = pathlib.Path(__file__).parent / "data"


@pytest.fixture(scope="session")
def kaisim_bin():
    path = os.environ.get("KAISIM_BIN", str(SOURCE_DIR / "build" / "bin" / "kaisim"))
    assert os.access(path, os.X_OK), f"kaisim binary not found at {path}"
    return path


@pytest.fixture
def kaisim(kaisim_bin):
    """Runs kaisim with the given arguments; returns the CompletedProcess (text mode)."""

    def run(*args, stdin=None, timeout=60):
        return subprocess.run([kaisim_bin, *map(str, args)], input=stdin, capture_output=True,
                              text=True, timeout=timeout)

    return run
