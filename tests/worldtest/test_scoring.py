"""The change-detection reward of docs/spec/worldtest.md 3.2, as a table, and the aggregate score."""

from __future__ import annotations

import math

import pytest

from llm_eval.worldtest import aggregate_score, cd_raw_reward

T = 20


def _formula(t: int, change: int) -> float:
    f = 1 / (1 - (t / change) * math.exp(-t / change))
    return min(1.0, max(0.0, 1.377 * f - 1.178))


@pytest.mark.parametrize(("t", "change", "expected"), [
    (T - 2, T, -1.0),            # a false alarm: before the change
    (0, T, -1.0),
    (T - 1, T, 1.0),             # one frame early still counts (the trigger lags a tick)
    (T, T, 1.0),
    (T + T // 2, T, 0.8917),     # 1.5T: "about 0.89"
    (2 * T, T, 0.7100),          # 2T: "0.71"
    (3 * T, T, 0.4408),          # 3T: "0.44"
    (5 * T, T, 0.2470),          # 5T
    (T - 1, None, -1.0),         # no trigger yet in this run
    (0, None, -1.0),
    (1, 1, 1.0),                 # T = 1: frames 0 and 1 both count
    (0, 1, 1.0),
])
def test_cd_reward_table(t, change, expected):
    assert cd_raw_reward(t, change) == pytest.approx(expected, abs=5e-5)


@pytest.mark.parametrize("t", [T + 1, 25, 33, 47, 80, 200, 10_000])
def test_later_answers_follow_the_formula_and_never_reach_zero(t):
    value = cd_raw_reward(t, T)
    assert value == pytest.approx(_formula(t, T))
    assert 0.19 < value < 1.0


def test_later_is_never_better():
    values = [cd_raw_reward(t, T) for t in range(T, 10 * T)]
    assert all(a >= b for a, b in zip(values, values[1:]))


@pytest.mark.parametrize(("t", "change"), [(-1, 5), (1.5, 5), (True, 5), (3, 0), (3, -2)])
def test_bad_arguments_are_refused(t, change):
    with pytest.raises(ValueError):
        cd_raw_reward(t, change)


@pytest.mark.parametrize(("raw", "score"), [(-1.0, 0.0), (0.0, 0.0), (0.44, 0.44), (1.0, 1.0)])
def test_aggregate_score_clips_false_alarms(raw, score):
    assert aggregate_score(raw) == score
