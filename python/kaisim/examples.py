"""The scenarios kaisim ships (the repository's scenarios/ folder, installed inside the package),
found without depending on the working directory."""

from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).resolve().parent


def examples_dir() -> Path:
    """The folder of shipped scenarios: inside the installed package, else (running from a source
    tree without installing) the repository's scenarios/."""
    for candidate in (_HERE / "scenarios", _HERE.parents[1] / "scenarios"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("kaisim's scenarios are not installed with this package (pip install . ships them)")


def example(name: str) -> Path:
    """A shipped scenario or snapshot by its path under scenarios/, e.g.
    ``kaisim.example("seed/burst-and-reclaim.yaml")`` or ``kaisim.example("examples/snapshot.json")``."""
    path = examples_dir() / name
    if not path.exists():
        raise FileNotFoundError(f"no shipped scenario {name!r} under {examples_dir()}")
    return path
