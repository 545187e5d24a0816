"""kaisim.plan: the CLI's answer and files from Python, on libsim's threads, an executor or Dask,
and Optuna's NSGA-II for a quota question."""
import json
import logging
from concurrent.futures import ThreadPoolExecutor

import pytest
import yaml

import kaisim
from conftest import ROOT

PLANS = ROOT / "scenarios" / "plans"


def short_day(tmp_path, body, hours=6):
    """A plan over the first hours of the runbook's day of load (scenarios/plans/runbook-day.yaml)."""
    scenario = (PLANS / "runbook-day.yaml").read_text().replace("duration: 24h", f"duration: {hours}h")
    (tmp_path / "day.yaml").write_text(scenario)
    plan = tmp_path / "plan.yaml"
    plan.write_text("schema_version: 1\nkind: Plan\nname: short\nscenario: day.yaml\n" + body)
    return plan


GPUS = """seeds: {count: 3, fresh: 3}
targets:
  queues:
    "*": {wait_p95: 10m}
knobs:
  gpus: {pool: l40s, count: {min: 1, max: 12}}
"""


def test_same_files_as_the_cli(cli, tmp_path):
    plan = short_day(tmp_path, GPUS)
    assert cli("plan", plan, "--out", tmp_path / "cli", "--quiet").returncode == 0
    result = kaisim.plan(plan)
    assert result.targets_met
    for name, text in result.files.items():
        assert (tmp_path / "cli" / name).read_text() == text, name
    # the folder also holds kaisim's marker of the files it wrote (docs/replay-output.md)
    assert sorted(result.files) == sorted(p.name for p in (tmp_path / "cli").iterdir() if p.name != ".kaisim-output")
    # Objects and frames over plan.json.
    chosen = result.candidates.loc[result.answer["candidate"]]
    assert chosen["feasible"] and chosen["gpus"] == result.plan_json["candidates"][result.answer["candidate"]]["gpus"]
    checks = result.checks[result.checks["id"] == result.answer["candidate"]]
    assert set(checks["queue"]) == {"team-nlp", "team-vision", "team-recommender"}
    assert (checks["upper"] <= checks["bound"]).all() and checks["holds"].all()
    assert {"at_s", "queue", "allocated_gpu", "requested_gpu"} <= set(result.queue_status.columns)
    result.save(tmp_path / "again")
    assert (tmp_path / "again" / "plan.json").read_text() == result.files["plan.json"]


def test_an_executor_and_dask_give_the_same_answer(tmp_path):
    plan = short_day(tmp_path, GPUS)
    own = kaisim.plan(plan, jobs=1)
    with ThreadPoolExecutor(max_workers=2) as pool:
        threads = kaisim.plan(plan, executor=pool)
    assert threads.files == own.files
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                 silence_logs=logging.ERROR) as cluster, distributed.Client(cluster) as client:
        on_dask = kaisim.plan(plan, executor=client)
    assert on_dask.files == own.files


def test_a_plan_as_a_dict_and_its_errors(tmp_path):
    short_day(tmp_path, GPUS)
    spec = yaml.safe_load((tmp_path / "plan.yaml").read_text())
    spec["knobs"]["gpus"]["count"] = 8
    result = kaisim.plan(spec, base_dir=str(tmp_path))
    assert result.plan_json["question"] == "check" and len(result.candidates) == 1
    spec["knobs"]["gpus"]["pool"] = "h100"
    with pytest.raises(kaisim.ScenarioError) as bad:
        kaisim.plan(spec, base_dir=str(tmp_path))
    assert bad.value.field == "knobs.gpus.pool" and "no node pool \"h100\"" in str(bad.value)


QUOTAS = """seeds: {count: 3, fresh: 3}
targets:
  queues:
    "*": {wait_p95: 5m, reclaim_latency_max: 90s}
knobs:
  gpus: {pool: l40s, count: 10}
  quotas:
    ml-org: {quota: 10, limit: -1}
    team-nlp: {quota: {min: 0.5, max: 6, step: 0.01}, overQuotaWeight: {min: 1, max: 4}}
    team-vision: {quota: {min: 0.5, max: 6, step: 0.01}, overQuotaWeight: {min: 1, max: 4}}
    team-recommender: {quota: {min: 0.5, max: 6, step: 0.01}, overQuotaWeight: {min: 1, max: 4}}
search: {seed: 3}
"""


def test_optuna_answers_a_quota_question_the_same_way_for_the_same_seed(tmp_path):
    pytest.importorskip("optuna")
    plan = short_day(tmp_path, QUOTAS)
    first = kaisim.plan(plan, search="optuna", trials=8, batch=4)
    again = kaisim.plan(plan, search="optuna", trials=8, batch=4)
    assert first.files["plan.json"] == again.files["plan.json"]
    judged = first.candidates[first.candidates["role"] == "optuna"]
    assert len(judged) <= 8 and len(judged) >= 1
    # Every candidate Optuna proposed keeps the children within ml-org's 10 GPUs of quota.
    quotas = judged[[f"{t}.quota" for t in ("team-nlp", "team-vision", "team-recommender")]].sum(axis=1)
    assert (quotas <= 10 + 1e-9).all()
    assert not first.pareto.empty and set(first.pareto.index) <= set(judged.index)
    answer = first.answer
    if answer["found"]:
        chosen = first.candidates.loc[answer["candidate"]]
        feasible = judged[judged["feasible"]]
        assert chosen["worst_ratio"] == feasible["worst_ratio"].min()
        assert "recheck" in answer
    assert "Optuna NSGA-II" in first.summary
    other = kaisim.plan(plan, search="optuna", trials=8, batch=4, seed=4)
    assert other.files["plan.json"] != first.files["plan.json"]


def test_optuna_is_for_quota_questions(tmp_path):
    with pytest.raises(ValueError):
        kaisim.plan(short_day(tmp_path, GPUS), search="optuna")
