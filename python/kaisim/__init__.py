"""kaisim: a KAI-faithful scheduling simulator for shared GPU clusters, from Python.

    import kaisim
    result = kaisim.replay(kaisim.example("seed/burst-and-reclaim.yaml"))
    result.summary            # per-queue GPU-hours, waits, reclaim latency (DataFrame)
    kaisim.plot.allocation(result)

See python/README.md for the whole API.
"""

from . import plot
from .builder import ScenarioBuilder
from .examples import example, examples_dir
from .errors import ExpectationFailed, InternalError, KaisimError, KaisimIOError, ScenarioError
from .result import Result
from .run import KaisimWarning, cycle, fair_share, gen_trace, replay
from .scenario import Scenario
from .sweep import sweep, variants

__version__ = "0.1.0"

__all__ = [
    "ExpectationFailed",
    "InternalError",
    "KaisimError",
    "KaisimIOError",
    "KaisimWarning",
    "Result",
    "Scenario",
    "ScenarioBuilder",
    "ScenarioError",
    "cycle",
    "example",
    "examples_dir",
    "fair_share",
    "gen_trace",
    "plot",
    "replay",
    "sweep",
    "variants",
]
