"""Capacity plans from Python: ``kaisim.plan(...)`` answers a plan file (docs/plan-format.md) as
``kaisim plan`` does, and returns the result as objects and DataFrames.

Replays run on libsim's own threads by default (the GIL is released), on any
``concurrent.futures.Executor``, or on a Dask cluster when given a ``dask.distributed.Client``
(the workers need kaisim installed and the scenario's files at the same paths, as for
``kaisim.sweep``). ``search="optuna"`` answers a quota question with Optuna's NSGA-II sampler
(seeded, the targets as constraints) instead of kaisim's own search.
"""

from __future__ import annotations

import json
import logging
import math
import os
import pathlib
from concurrent.futures import Executor
from typing import Any, Mapping, Optional

import pandas as pd

from . import _core
from .run import _warn
from .sweep import _is_dask_client

_log = logging.getLogger("kaisim")


class PlanResult:
    """An answered plan. ``files`` holds the plan folder as ``kaisim plan --out`` writes it."""

    def __init__(self, raw: Mapping[str, Any]):
        self.files: dict[str, str] = dict(raw["files"])
        self.summary: str = raw["summary"]
        self.targets_met: bool = raw["targets_met"]
        self.replays: int = raw["replays"]
        self.replay_seconds: float = raw["replay_seconds"]
        self.search_seconds: float = raw["search_seconds"]
        self.plan_json: dict[str, Any] = json.loads(self.files["plan.json"])

    @property
    def answer(self) -> dict[str, Any]:
        """plan.json's ``answer``: found, targets_met, candidate, description, recheck, failing, ..."""
        return self.plan_json["answer"]

    @property
    def candidates(self) -> pd.DataFrame:
        """One row per judgement (index ``id``): role, seeds, description, feasible, worst_ratio,
        gpus, utilization and evictions (means over the seeds), each quota knob's values."""
        rows = []
        for c in self.plan_json["candidates"]:
            row = {"id": c["id"], "role": c["role"], "seeds": c["seeds"], "description": c["description"],
                   "hardware": c.get("hardware", ""), "gpus": c.get("gpus"), "feasible": c["feasible"],
                   "worst_ratio": c["worst_ratio"], "utilization": c["cluster"]["utilization"]["mean"],
                   "evictions": c["cluster"]["evictions"]["mean"], "stopped_early": "stopped_early" in c}
            for queue, block in c.get("quotas", {}).items():
                for field, value in block.items():
                    row[f"{queue}.{field}"] = value
            rows.append(row)
        return pd.DataFrame(rows).set_index("id")

    @property
    def checks(self) -> pd.DataFrame:
        """One row per (judgement, target, queue): metric, queue, bound, unit, mean, sd, lower,
        upper (the one-sided bounds), holds."""
        rows = []
        for c in self.plan_json["candidates"]:
            for ch in c["checks"]:
                rows.append({"id": c["id"], "metric": ch["metric"], "queue": ch["queue"], "bound": ch["bound"],
                             "unit": ch["unit"], **{k: ch["interval"][k] for k in ("mean", "sd", "lower", "upper", "n")},
                             "holds": ch["holds"]})
        return pd.DataFrame(rows)

    @property
    def pareto(self) -> pd.DataFrame:
        """The quota question's Pareto front, as rows of ``candidates``."""
        ids = self.answer.get("pareto", [])
        return self.candidates.loc[ids]

    @property
    def hardware(self) -> pd.DataFrame:
        """The hardware comparison: one row per alternative."""
        return pd.DataFrame(self.answer.get("hardware", []))

    @property
    def queue_status(self) -> pd.DataFrame:
        """The Queue.status the answer predicts: one row per (phase, queue) with allocated,
        allocatedNonPreemptible and requested GPUs, CPU (millicores) and memory (bytes)."""
        rows = []
        for phase in self.plan_json["queue_status"]["phases"]:
            for queue, status in phase["queues"].items():
                row = {"at_s": phase["at_s"], "queue": queue}
                for field, values in status.items():
                    for resource, v in values.items():
                        row[f"{field}_{resource}"] = v
                rows.append(row)
        return pd.DataFrame(rows)

    def save(self, out_dir: str | os.PathLike) -> None:
        """Writes the plan folder (replacing only an earlier plan folder's files; logs what it replaced)."""
        for note in _core.plan_write(self.files, str(out_dir)):
            _log.info("%s", note)

    def __repr__(self) -> str:
        return self.summary


def _plan_source(plan: Any, base_dir: Optional[str]) -> tuple[str, str, str]:
    """(path, text, base_dir) for a path, a YAML string or a dict."""
    if isinstance(plan, Mapping):
        import yaml
        return "<plan>", yaml.safe_dump(dict(plan), sort_keys=False), str(base_dir or os.getcwd())
    if isinstance(plan, os.PathLike) or (isinstance(plan, str) and "\n" not in plan and plan.endswith((".yaml", ".yml"))):
        return str(plan), "", ""
    if isinstance(plan, str):
        return "<plan>", plan, str(base_dir or os.getcwd())
    raise TypeError("plan must be a path, a YAML string or a dict")


def _runner(executor: Any):
    """A callable mapping replay jobs over the executor, or None for libsim's own threads."""
    if executor is None:
        return None
    if _is_dask_client(executor):
        def run(jobs):
            return executor.gather(executor.map(_core.plan_replay_job, jobs, pure=False))
        return run
    if isinstance(executor, Executor):
        def run(jobs):
            return list(executor.map(_core.plan_replay_job, jobs))
        return run
    raise TypeError("executor must be None, a concurrent.futures.Executor or a dask.distributed.Client")


def _progress_bar(enabled: bool):
    if not enabled:
        return None, None
    from tqdm.auto import tqdm
    bar = tqdm(unit="replay", desc="plan")

    def report(judged, replays, left, best, elapsed, left_s):
        bar.total = replays + left
        bar.n = replays
        bar.set_postfix_str(f"{judged} judged" + (f", best: {best}" if best else ""), refresh=False)
        bar.refresh()

    return bar, report


def plan(plan: Any, *, executor: Any = None, jobs: Optional[int] = None, base_dir: Optional[str] = None,
         search: str = "kaisim", trials: int = 40, batch: Optional[int] = None, seed: Optional[int] = None,
         out_dir: Optional[str | os.PathLike] = None, progress: bool = False) -> PlanResult:
    """Answers a plan: a path, a YAML string or a dict (paths inside resolve against ``base_dir``,
    default the current folder).

    ``executor``: None (libsim's threads, ``jobs`` of them, default one per core), a
    ``concurrent.futures.Executor``, or a ``dask.distributed.Client``. ``search``: ``"kaisim"``
    (the CLI's deterministic search: same plan, same files) or ``"optuna"`` (quota questions:
    NSGA-II, ``trials`` candidates asked ``batch`` at a time, seeded with ``seed`` or the plan's
    ``search.seed``). ``progress=True`` shows a tqdm bar. ``out_dir`` also writes the folder.
    """
    path, text, where = _plan_source(plan, base_dir)
    bar, report = _progress_bar(progress)
    try:
        if search == "kaisim":
            raw = _core.plan_run(path, text, where, jobs or 0, _runner(executor), report)
        elif search == "optuna":
            raw = _optuna_search(path, text, where, jobs or 0, _runner(executor), report, trials, batch, seed)
        else:
            raise ValueError('search must be "kaisim" or "optuna"')
    finally:
        if bar is not None:
            bar.close()
    _warn(raw["warnings"])
    result = PlanResult(raw)
    if out_dir is not None:
        result.save(out_dir)
    return result


def _optuna_search(path, text, where, jobs, runner, report, trials, batch, seed):
    """NSGA-II over the quota knobs: each leaf queue's deciding wait bound and the evictions as
    objectives, every target's margin (bound minus limit) as a constraint, so feasible trials
    dominate. The answer is the feasible trial with the smallest worst bound/target ratio."""
    import optuna

    session = _core.PlanSession(path, text, where, jobs, runner, report)
    if session.question() != "quotas":
        raise ValueError('search="optuna" answers quota questions (knobs.quotas with ranges)')
    dims = session.dimensions()
    if seed is None:
        import yaml
        plan_text = text if text else pathlib.Path(path).read_text()
        seed = int((yaml.safe_load(plan_text).get("search") or {}).get("seed", 1))
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    sampler = optuna.samplers.NSGAIISampler(seed=seed, population_size=max(4, min(20, trials // 2)))
    judged = {}  # trial number -> candidate id
    queues = session.leaf_queues()
    study = optuna.create_study(directions=["minimize"] * (len(queues) + 1), sampler=sampler)
    batch = batch or max(2, (os.cpu_count() or 1))
    for start in range(0, trials, batch):
        asked = []
        values = []
        for _ in range(min(batch, trials - start)):
            trial = study.ask()
            asked.append(trial)
            values.append([trial.suggest_float(f"{q}.{f}", lo, hi, step=step) for q, f, lo, hi, step in dims])
        ids = session.judge_quotas(values, False, "optuna")
        for trial, cid in zip(asked, ids):
            if cid < 0:  # children's quotas above the parent's, or a quota above its limit
                trial.set_constraint("quotas", 1.0)
                study.tell(trial, [math.inf] * (len(queues) + 1))
                continue
            c = json.loads(session.candidate_json(cid))
            judged[trial.number] = cid
            for i, margin in enumerate(_margins(c)):
                trial.set_constraint(f"target{i}", margin)
            study.tell(trial, _objectives(c, queues))
    feasible = [cid for cid in judged.values() if json.loads(session.candidate_json(cid))["feasible"]]
    pool = feasible or list(judged.values())
    if not pool:
        raise ValueError("no quota candidate keeps the children's quotas within the parent's")
    chosen = min(pool, key=lambda cid: (json.loads(session.candidate_json(cid))["worst_ratio"], cid))
    front = sorted({judged[t.number] for t in study.best_trials if t.number in judged})
    notes = [f"Optuna NSGA-II, {len(judged)} candidates judged, seed {seed}"]
    if not feasible:
        notes.append("none of the candidates Optuna proposed meets every target")
    return session.finish(chosen, front, notes)


def _objectives(c: Mapping[str, Any], queues: list[str]) -> list[float]:
    waits = {q: 0.0 for q in queues}
    for ch in c["checks"]:
        if ch["metric"] in ("wait_p95", "wait_max", "wait_mean") and ch["queue"] in waits:
            waits[ch["queue"]] = max(waits[ch["queue"]], ch["interval"]["upper"])
    return [waits[q] for q in queues] + [c["cluster"]["evictions"]["mean"]]


def _margins(c: Mapping[str, Any]) -> list[float]:
    """Per check, how far its deciding bound is past the target (<= 0 holds), relative to it."""
    out = []
    for ch in c["checks"]:
        lower = ch["metric"] == "utilization_min"
        bound = ch["interval"]["lower" if lower else "upper"]
        scale = max(abs(ch["bound"]), 1e-9)
        out.append((ch["bound"] - bound) / scale if lower else (bound - ch["bound"]) / scale)
        if "stopped_early" in c and not ch["holds"]:
            out[-1] = max(out[-1], 1.0)
    return out or [0.0]
