"""What a replay produced, as pandas DataFrames with the columns of the CLI's files."""

from __future__ import annotations

import io
import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

import pandas as pd

from . import _core

_log = logging.getLogger("kaisim")
_SUFFIXES = {"n": 1e-9, "u": 1e-6, "m": 1e-3, "": 1.0, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18,
             "Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40, "Pi": 2.0**50, "Ei": 2.0**60}


def parse_quantity(text: str) -> float:
    """A Kubernetes quantity ("330m", "2", "1Gi") as a float in its unit."""
    text = str(text).strip()
    for suffix in ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "n", "u", "m", "k", "M", "G", "T", "P", "E"):
        if text.endswith(suffix):
            return float(text[: -len(suffix)]) * _SUFFIXES[suffix]
    return float(text)


EVENT_COLUMNS = ["time_s", "type", "pod", "queue", "node", "reason", "for", "for_queue", "gpus",
                 # `wait` events: why a pending pod waits (docs/replay-output.md)
                 "cause", "at_queue", "resource", "limit", "quota", "fair_share", "allocated",
                 "allocated_non_preemptible", "requested", "stated", "shortage", "nodes", "largest_free",
                 "total_free", "gang_min", "gang_ready", "message"]


@dataclass
class Result:
    """One replay. Units are those of docs/replay-output.md.

    - ``timeline``: one row per (time_s, queue, resource) change: allocated,
      allocated_non_preemptible, requested, fair_share, quota, limit.
    - ``kai_timeline``: KAI's time-based simulator CSV (Time, QueueID, Allocation, FairShare).
    - ``queue_status``: Queue.status as KAI's controllers would write it, one row per (time_s,
      queue, resource) change: allocated, allocated_non_preemptible, requested as floats in the
      resource's unit (GPU devices, CPU cores, bytes), parsed from the Kubernetes quantities.
    - ``events``: submit / bind / pipeline / evict / delete / gone / recreate, in time order.
    - ``summary``: one row per queue (index ``queue``) with the per-queue numbers of summary.json.
    - ``cluster``: the cluster-wide numbers of summary.json.
    """

    outputs: dict[str, str]
    summary_table: str
    cycles: int
    cycles_reused: int = 0  # cycles on an unchanged cluster whose outcome was reused (docs/scenario-format.md)
    cycles_fair_share_only: int = 0  # cycles with nothing pending: fair share recomputed, actions skipped
    cycles_updated: int = 0  # full cycles on the previous cycle's state brought up to date, not a new snapshot
    expectations_checked: int = 0
    failures: list[tuple[float, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def timeline(self) -> pd.DataFrame:
        return pd.read_csv(io.StringIO(self.outputs["timeline.csv"]))

    @property
    def kai_timeline(self) -> pd.DataFrame:
        return pd.read_csv(io.StringIO(self.outputs["kai-timeline.csv"]))

    @property
    def queue_status(self) -> pd.DataFrame:
        frame = pd.read_csv(io.StringIO(self.outputs["queue-status.csv"]), dtype=str)
        for column in ("allocated", "allocated_non_preemptible", "requested"):
            frame[column] = frame[column].map(parse_quantity)
        frame["time_s"] = frame["time_s"].astype(float)
        return frame

    @property
    def events(self) -> pd.DataFrame:
        rows = [json.loads(line) for line in self.outputs["events.jsonl"].splitlines() if line]
        return pd.DataFrame(rows, columns=EVENT_COLUMNS)

    @property
    def summary_json(self) -> dict[str, Any]:
        return json.loads(self.outputs["summary.json"])

    @property
    def summary(self) -> pd.DataFrame:
        queues = self.summary_json["queues"]
        frame = pd.DataFrame.from_dict(queues, orient="index")
        frame.index.name = "queue"
        return frame

    def explain(self, target: str = "") -> str:
        """Why pods waited, in plain words (``kaisim explain``): a pod ("namespace/name" or a
        unique name), a queue, or every queue when empty."""
        from . import _core

        return _core.explain(self.outputs["events.jsonl"], self.outputs["summary.json"], target, "the replay")

    @property
    def wait_by_cause(self) -> pd.DataFrame:
        """Pod-seconds each queue's pods waited, by cause (rows: queue; columns: cause; 0 where none)."""
        queues = self.summary_json["queues"]
        frame = pd.DataFrame({q: s.get("wait_s_by_cause", {}) for q, s in queues.items()}).T.fillna(0.0)
        frame.index.name = "queue"
        return frame.reindex(sorted(queues)).fillna(0.0)

    @property
    def cluster(self) -> dict[str, Any]:
        return dict(self.summary_json["cluster"])

    def save(self, out_dir: Union[str, Path]) -> Path:
        """Writes the output files as ``kaisim replay --out`` would (same bytes, same rules: a new
        or empty folder, or an earlier kaisim replay's, where only kaisim's own files are replaced;
        anything else raises :class:`kaisim.KaisimIOError`)."""
        out = Path(out_dir)
        notes = _core.write_output_folder(os.fspath(out), dict(self.outputs), "replay")
        for note in notes:
            _log.info("%s", note)
        return out

    def __repr__(self) -> str:
        return f"<kaisim.Result cycles={self.cycles} events={self.outputs['events.jsonl'].count(chr(10))}>"

    def _repr_html_(self) -> str:
        return "<pre>" + self.summary_table.replace("&", "&amp;").replace("<", "&lt;") + "</pre>"
