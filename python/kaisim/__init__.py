"""kaisim: a KAI-faithful scheduling simulator for shared GPU clusters, from Python.

    import kaisim
    result = kaisim.replay(kaisim.example("seed/burst-and-reclaim.yaml"))
    result.summary            # per-queue GPU-hours, waits, reclaim latency (DataFrame)
    kaisim.plot.allocation(result)

See python/README.md for the whole API.
"""

from . import live, plot
from .builder import ScenarioBuilder
from .errors import (
    ClusterError,
    ExpectationFailed,
    InputFileNotFoundError,
    InputIsADirectoryError,
    InputPermissionError,
    InputTooLargeError,
    InternalError,
    KaisimError,
    KaisimIOError,
    KaisimMemoryError,
    ScenarioError,
)
from .limits import limits, set_limits
from .plan import PlanResult, plan
from .examples import example, examples_dir
from .result import Result
from .run import KaisimWarning, cycle, fair_share, gen_trace, replay
from .scenario import Scenario
from .sweep import sweep, variants

__version__ = "0.1.0"

__all__ = [
    "ClusterError",
    "ExpectationFailed",
    "InputFileNotFoundError",
    "InputIsADirectoryError",
    "InputPermissionError",
    "InputTooLargeError",
    "InternalError",
    "KaisimError",
    "KaisimIOError",
    "KaisimMemoryError",
    "KaisimWarning",
    "PlanResult",
    "Result",
    "Scenario",
    "ScenarioBuilder",
    "ScenarioError",
    "cycle",
    "example",
    "examples_dir",
    "fair_share",
    "gen_trace",
    "limits",
    "live",
    "plan",
    "plot",
    "replay",
    "set_limits",
    "sweep",
    "variants",
]
