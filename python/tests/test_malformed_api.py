"""The Python API on malformed input: only kaisim's documented exceptions (kaisim/errors.py), each
also the matching built-in where there is one; the fair-share cases of the malformed-input corpus
(tests/malformed/corpus.py) name the same place as the CLI."""
import math
import os
import signal
import sys
import threading
import time

import pytest

import kaisim
from conftest import ROOT, RUNBOOK

sys.path.insert(0, str(ROOT / "tests" / "malformed"))
import corpus  # noqa: E402

BODY_CASES = [pytest.param(c, id=c.name) for c in corpus.FAIRSHARE if c.exit == 2 and not c.args]


@pytest.mark.parametrize("case", BODY_CASES)
def test_fair_share_body_raises_scenario_error_at_the_corpus_place(case):
    with pytest.raises(kaisim.ScenarioError) as err:
        kaisim.fair_share(case.data)  # bytes: always a body
    assert str(err.value).startswith(case.prefix("<json>")), str(err.value)
    assert case.detail in str(err.value)
    place = case.place()
    assert (err.value.line, err.value.column) == (place if place else (None, None))
    assert err.value.field == (case.path or None)
    assert isinstance(err.value, ValueError)


def test_a_missing_path_is_file_not_found(tmp_path):
    for call in (kaisim.fair_share, kaisim.replay, kaisim.cycle):
        with pytest.raises(kaisim.InputFileNotFoundError) as err:
            call(tmp_path / "absent.json")
        assert isinstance(err.value, FileNotFoundError) and isinstance(err.value, kaisim.KaisimIOError)
        assert "absent.json: cannot open: No such file or directory" in str(err.value)


def test_a_directory_is_refused_as_one(tmp_path):
    for call in (kaisim.fair_share, kaisim.replay):
        with pytest.raises(kaisim.InputIsADirectoryError) as err:
            call(tmp_path)
        assert isinstance(err.value, IsADirectoryError)
        assert str(err.value) == f"{tmp_path}: is a directory, expected a file"


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_device_is_refused_at_once(device):
    for call in (kaisim.fair_share, kaisim.replay, kaisim.cycle):
        with pytest.raises(kaisim.KaisimIOError) as err:
            call(device)
        assert "not a regular file" in str(err.value)


def test_a_binary_file_is_a_scenario_error_not_a_decode_error(tmp_path):
    binary = tmp_path / "blob.bin"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\xff\xfe")
    for call in (kaisim.fair_share, kaisim.replay, kaisim.cycle):
        with pytest.raises(kaisim.ScenarioError) as err:
            call(binary)
        assert err.value.file == str(binary) and err.value.line == 1


def test_a_file_over_the_size_limit_is_refused(tmp_path):
    big = tmp_path / "big.json"
    big.write_text('{"queues": []}' + " " * (3 << 20))
    before = kaisim.limits()
    kaisim.set_limits(max_input_bytes=1 << 20)
    try:
        with pytest.raises(kaisim.InputTooLargeError) as err:
            kaisim.fair_share(big)
        assert "larger than the input limit of 1 MiB" in str(err.value)
    finally:
        kaisim.set_limits(max_input_bytes=before["max_input_bytes"])
    assert kaisim.fair_share(big).empty


def test_set_limits_refuses_nonsense():
    for bad in (0, -1, float("nan"), "big", True):
        with pytest.raises(ValueError):
            kaisim.set_limits(max_depth=bad)


def test_a_json_list_string_is_a_body_not_a_path():
    with pytest.raises(kaisim.ScenarioError) as err:
        kaisim.fair_share("[]")
    assert err.value.detail == "expected an object, got a list"
    with pytest.raises(TypeError):
        kaisim.fair_share(42)


def test_a_dict_with_nan_is_refused_with_its_field():
    with pytest.raises(kaisim.ScenarioError) as err:
        kaisim.fair_share({"totalResource": {"GPU": math.nan}})
    assert err.value.field == "totalResource.GPU"


@pytest.mark.parametrize("kwargs", [{"gpu_fraction": 1.5}, {"gpu_fraction": 0}, {"gpu_fraction": math.nan},
                                    {"gpu_fraction": math.inf}, {"gpu_fraction": "abc"}, {"gpu_fraction": True},
                                    {"gpu_memory_mib": -100}, {"gpu_memory_mib": 0}, {"gpu_memory_mib": 1.5},
                                    {"gpus": -1}, {"gpus": 1.5}], ids=repr)
def test_builder_refuses_what_kai_would_not_admit(kwargs):
    b = kaisim.ScenarioBuilder("s").queue("q")
    with pytest.raises(kaisim.ScenarioError) as err:
        b.pod("p", queue="q", **kwargs)
    assert err.value.field == next(iter(kwargs))


def test_a_fraction_kai_refuses_in_yaml_is_a_scenario_error_at_its_line():
    text = kaisim.ScenarioBuilder("s").queue("q").pod("p", queue="q", gpu_fraction=0.5).to_yaml().replace('"0.5"', '"1.5"')
    assert '"1.5"' in text
    with pytest.raises(kaisim.ScenarioError) as err:
        kaisim.replay(kaisim.Scenario.from_yaml(text))
    assert err.value.field.endswith("metadata.annotations.gpu-fraction") and err.value.line > 0


def test_out_dir_never_deletes_a_foreign_file(tmp_path):
    (tmp_path / "notes.txt").write_text("keep me")
    with pytest.raises(kaisim.KaisimIOError):
        kaisim.replay(RUNBOOK, out_dir=tmp_path)
    with pytest.raises(kaisim.KaisimIOError):
        kaisim.replay(RUNBOOK).save(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
    assert (tmp_path / "notes.txt").read_text() == "keep me"


def test_ctrl_c_stops_a_long_replay(tmp_path):
    kaisim.gen_trace(tmp_path / "t", pods=8000)  # about 5 s to replay, about 190,000 cycles
    # Python's own Ctrl-C handler, as a user's interpreter has it: a shell starting the tests in the
    # background hands them SIGINT ignored, and Python then keeps it ignored.
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    started = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            kaisim.replay(tmp_path / "t" / "scenario.yaml")
    finally:
        timer.join()
        signal.signal(signal.SIGINT, before)
    print(f"interrupted {time.monotonic() - started - 0.5:.3f} s after SIGINT")
