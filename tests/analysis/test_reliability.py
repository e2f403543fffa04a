"""pass@k and pass^k against hand-computed cases, per task and per arm, and in compare."""

from __future__ import annotations

import json
import math

import pytest
from analysis_fixtures import episode

from llm_eval.analysis.data import AnalysisError
from llm_eval.analysis.reliability import (
    pass_at_k,
    pass_hat_k,
    reliability,
    reliability_json,
    succeeded,
)
from llm_eval.cli import main


@pytest.mark.parametrize(("n", "c", "k", "at", "hat"), [
    (3, 1, 1, 1 / 3, 1 / 3),
    (3, 1, 2, 2 / 3, 0.0),          # 1 - C(2,2)/C(3,2) = 1 - 1/3; C(1,2) = 0
    (3, 1, 3, 1.0, 0.0),
    (5, 3, 2, 0.9, 0.3),            # 1 - C(2,2)/C(5,2) = 1 - 1/10; C(3,2)/C(5,2) = 3/10
    (5, 3, 3, 1.0, 0.1),            # C(2,3) = 0; C(3,3)/C(5,3) = 1/10
    (4, 0, 2, 0.0, 0.0),
    (4, 4, 3, 1.0, 1.0),
    (10, 2, 4, 1 - 70 / 210, 0.0),  # C(8,4) = 70, C(10,4) = 210
])
def test_estimators_match_hand_computed_values(n, c, k, at, hat):
    assert pass_at_k(n, c, k) == pytest.approx(at)
    assert pass_hat_k(n, c, k) == pytest.approx(hat)


def test_estimators_refuse_k_above_n_or_impossible_counts():
    for args in ((3, 1, 4), (3, 4, 1), (3, 1, 0), (3, -1, 1)):
        with pytest.raises(ValueError):
            pass_at_k(*args)
        with pytest.raises(ValueError):
            pass_hat_k(*args)


def test_success_is_above_the_family_threshold():
    assert succeeded(episode(1.0, family="mfp"))
    assert not succeeded(episode(0.5, family="cd"))       # strictly above 0.5
    assert succeeded(episode(0.51, family="cd"))
    with pytest.raises(AnalysisError, match="no success threshold"):
        succeeded(episode(1.0, family="bogus"))


def _arm(model: str, outcomes: dict[tuple[str, str], list[float]]):
    return [episode(score, model=model, world=w, family=f, seed=i + 1)
            for (w, f), scores in outcomes.items() for i, score in enumerate(scores)]


def test_per_task_and_per_arm_figures():
    # task w1/mfp: 1 of 3 succeed; w2/mfp: 3 of 3; w3/cd: 0.4 and 0.9 (1 of 2, 0.4 fails)
    arm = _arm("m", {("w1", "mfp"): [1, 0, 0], ("w2", "mfp"): [1, 1, 1],
                     ("w3", "cd"): [0.4, 0.9]})
    arm.append(episode(None, status="infra_error", model="m", world="w3", family="cd",
                       seed=9))                              # never counted
    tasks, arms = reliability({"m": arm}, ks=(1, 3))
    by = {(t.world, t.k): t for t in tasks}
    assert (by[("w1", 1)].n, by[("w1", 1)].c) == (3, 1)
    assert by[("w1", 1)].pass_at_k == pytest.approx(1 / 3)
    assert by[("w1", 3)].pass_at_k == pytest.approx(1.0)
    assert by[("w1", 3)].pass_hat_k == 0.0
    assert by[("w2", 3)].pass_hat_k == 1.0
    assert (by[("w3", 1)].n, by[("w3", 1)].c) == (2, 1)
    assert ("w3", 3) not in by                               # n = 2 < k = 3
    one, three = (a for a in arms if a.arm == "m")
    assert one.pass_at_k == pytest.approx((1 / 3 + 1 + 1 / 2) / 3)
    assert one.pass_at_k == pytest.approx(one.pass_hat_k)                  # k = 1: the same
    assert (three.tasks, three.skipped) == (2, 1)
    assert three.pass_at_k == pytest.approx(1.0)
    assert three.pass_hat_k == pytest.approx(0.5)
    low, high = one.pass_at_k_ci
    assert low <= one.pass_at_k <= high and high - low > 0
    # the same episodes give the same intervals (seeded)
    assert reliability({"m": arm}, ks=(1, 3)) == (tasks, arms)


def test_a_task_interval_is_degenerate_when_every_episode_agrees():
    tasks, _ = reliability({"m": _arm("m", {("w", "mfp"): [1, 1, 1, 1]})}, ks=(2,))
    assert tasks[0].pass_at_k_ci == (1.0, 1.0) and tasks[0].pass_hat_k_ci == (1.0, 1.0)


def test_json_has_thresholds_and_no_nan():
    tasks, arms = reliability({"m": _arm("m", {("w", "mfp"): [1]})}, ks=(1, 2))
    data = reliability_json(tasks, arms)
    text = json.dumps(data, allow_nan=False)                  # NaN would raise
    assert data["success_thresholds"]["cd"] == 0.5
    two = next(a for a in data["arms"] if a["k"] == 2)
    assert two["pass_at_k"] is None and two["skipped"] == 1 and "NaN" not in text


def test_compare_prints_and_json_reports_reliability(random_run, oracle_run, capsys):
    assert main(["compare", str(random_run), str(oracle_run), "--k", "1", "2"]) == 0
    out = capsys.readouterr().out
    assert "reliability over seeds" in out and "pass^k" in out
    assert main(["compare", str(random_run), str(oracle_run), "--k", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    arms = {a["arm"].split(":")[0]: a for a in data["reliability"]["arms"]}
    # random scores 0 on every task here, the oracle 1 (conftest REAL): 3 tasks of 2 seeds
    assert arms["A"]["pass_at_k"] == 0.0 and arms["B"]["pass_hat_k"] == 1.0
    assert arms["B"]["tasks"] == 3
    assert data["comparison"][-1]["row"] == "overall"
    assert not math.isnan(data["comparison"][-1]["mean_diff"])


def test_compare_k_below_one_is_a_usage_error(random_run, oracle_run, capsys):
    assert main(["compare", str(random_run), str(oracle_run), "--k", "0"]) == 2
    assert "--k: must be at least 1" in capsys.readouterr().err
