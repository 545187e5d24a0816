"""Fixtures for the live adapter's tests against the real kube-apiserver of tools/testcluster/run.

The whole set shares one cluster (tests/CMakeLists.txt runs pytest under tools/testcluster/run);
each test works in its own namespace and with its own object names. kubectl (built from the same
Kubernetes release) is the independent client that sets up and checks what kaisim does.
"""
import json
import os
import pathlib
import subprocess
import uuid

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("KAISIM_SOURCE_DIR", pathlib.Path(__file__).parents[2])).resolve()
SHARED = SOURCE_DIR.parent / "shared"
SEED = SOURCE_DIR / "scenarios" / "seed"
CLUSTER_DIR = os.environ.get("KAISIM_TESTCLUSTER_DIR")

# Why every test here is skipped, if it is: a skip raised while pytest imports a conftest aborts the
# run, so the tests are marked instead and the run ends green with the reason.
SKIP_ALL = ("skipped: not running under tools/testcluster/run (no test cluster)" if not CLUSTER_DIR
            else "skipped: ../shared/kai-crds not present" if not (SHARED / "kai-crds").is_dir() else "")


def pytest_collection_modifyitems(config, items):
    if SKIP_ALL:
        for item in items:
            item.add_marker(pytest.mark.skip(reason=SKIP_ALL))


def pytest_report_header(config):
    return SKIP_ALL or None


@pytest.fixture(scope="session")
def kaisim_bin():
    path = os.environ.get("KAISIM_BIN", str(SOURCE_DIR / "build" / "bin" / "kaisim"))
    assert os.access(path, os.X_OK), f"kaisim binary not found at {path}"
    return path


@pytest.fixture
def kaisim(kaisim_bin):
    """Runs kaisim; returns the CompletedProcess (text mode)."""

    def run(*args, timeout=120, env=None):
        return subprocess.run([kaisim_bin, *map(str, args)], capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, **(env or {})})

    return run


def kubectl(*args, stdin=None, check=True, timeout=60):
    run = subprocess.run(["kubectl", *map(str, args)], input=stdin, capture_output=True, text=True, timeout=timeout)
    if check and run.returncode != 0:
        raise AssertionError(f"kubectl {' '.join(map(str, args))} failed: {run.stderr}")
    return run


def kubectl_json(*args):
    return json.loads(kubectl(*args, "-o", "json").stdout)


def ctl(command):
    subprocess.run([os.environ["KAISIM_TESTCLUSTER_CTL"], command], check=True, timeout=120)


@pytest.fixture
def suffix():
    """A short unique suffix for the names one test creates."""
    return uuid.uuid4().hex[:6]


@pytest.fixture
def cleanup():
    """Names of cluster-wide objects a test created ("queue/x", "flowschema/y"), deleted after it."""
    created = []
    yield created
    for ref in reversed(created):
        kubectl("delete", ref, "--ignore-not-found", "--wait=false", check=False)


@pytest.fixture
def namespace(suffix):
    ns = f"t-{suffix}"
    kubectl("create", "namespace", ns)
    yield ns
    # Pods first, at once (grace 0), so no terminating pod of this test counts in a later one.
    kubectl("delete", "pods", "--all", "-n", ns, "--grace-period=0", "--force", check=False)
    kubectl("delete", "namespace", ns, "--wait=false", check=False)
