"""The limits on what kaisim reads (README, "Limits"): they keep any input from taking unbounded
memory or time. They hold for the whole process, like the CLI's --max-input-mb."""

from __future__ import annotations

from typing import Optional

from . import _core


def limits() -> dict[str, float]:
    """The limits in force: ``max_input_bytes`` (largest input file), ``max_depth`` (deepest
    nesting of a YAML or JSON document), ``max_replay_work`` (a replay's estimated cycles x
    objects) and ``max_replay_cycles``."""
    max_input_bytes, max_depth, max_replay_work, max_replay_cycles = _core.get_limits()
    return {"max_input_bytes": max_input_bytes, "max_depth": max_depth, "max_replay_work": max_replay_work,
            "max_replay_cycles": max_replay_cycles}


def set_limits(*, max_input_bytes: Optional[int] = None, max_depth: Optional[int] = None,
               max_replay_work: Optional[float] = None, max_replay_cycles: Optional[float] = None) -> None:
    """Changes the given limits for the whole process (the others stay)."""
    now = limits()
    given = {"max_input_bytes": max_input_bytes, "max_depth": max_depth, "max_replay_work": max_replay_work,
             "max_replay_cycles": max_replay_cycles}
    for name, value in given.items():
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0 or value != value:
            raise ValueError(f"set_limits: {name} must be a positive number, got {value!r}")
        now[name] = value
    _core.set_limits(int(now["max_input_bytes"]), int(now["max_depth"]), float(now["max_replay_work"]),
                     float(now["max_replay_cycles"]))
