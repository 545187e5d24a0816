"""A scenario (docs/scenario-format.md) from a file, a YAML string or a dict."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Union

ScenarioLike = Union["Scenario", str, "os.PathLike[str]", Mapping[str, Any]]


@dataclass(frozen=True)
class Scenario:
    """A scenario held as text plus the folder its manifest paths are relative to.

    ``name`` labels error messages (the file path when loaded from a file).
    """

    text: str
    name: str = "<scenario>"
    base_dir: str = "."
    path: str = ""  #: set when the scenario is a file on disk

    @classmethod
    def from_path(cls, path: Union[str, "os.PathLike[str]"]) -> "Scenario":
        p = Path(path)
        return cls(text="", name=str(p), base_dir=str(p.parent), path=str(p))

    @classmethod
    def from_yaml(cls, text: str, *, base_dir: Union[str, "os.PathLike[str]"] = ".", name: str = "<yaml>") -> "Scenario":
        return cls(text=text, name=name, base_dir=str(base_dir))

    @classmethod
    def from_dict(
        cls, data: Mapping[str, Any], *, base_dir: Union[str, "os.PathLike[str]"] = ".", name: str = "<dict>"
    ) -> "Scenario":
        # JSON is YAML: the C++ loader reads it with the same checks and messages.
        return cls(text=json.dumps(data, indent=1, sort_keys=False), name=name, base_dir=str(base_dir))


def as_scenario(scenario: ScenarioLike) -> Scenario:
    """Accepts a Scenario, a path, a YAML string (anything with a newline or a leading
    ``schema_version``) or a dict."""
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, Mapping):
        return Scenario.from_dict(scenario)
    if isinstance(scenario, str) and ("\n" in scenario or scenario.lstrip().startswith("schema_version")):
        return Scenario.from_yaml(scenario)
    if isinstance(scenario, (str, os.PathLike)):
        return Scenario.from_path(scenario)
    raise TypeError(f"a scenario is a path, a YAML string, a dict or kaisim.Scenario, not {type(scenario).__name__}")
