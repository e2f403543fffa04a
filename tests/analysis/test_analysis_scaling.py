"""Compute scaling: verdicts on synthetic curves, bands, the per-world summary, and knob checks
that flag a knob which did not change what the provider did."""

from __future__ import annotations

import math

import pytest
from analysis_fixtures import episode, usage, write_transcript

from llm_eval.analysis import AnalysisError, compute_of, knob_checks, scaling_curves, trend_summary
from llm_eval.analysis.scaling import MIN_PER_BIN, TREND_RULE

TOKENS = [100, 300, 1000, 3000, 10000, 30000]


def _world(name: str, score_of, seeds: int = 4) -> list:
    """Episodes of one world at every compute level, ``score_of(level index, seed)``."""
    return [episode(score_of(i, s), world=name, seed=s, model=f"m{i}",
                    usage=usage(input_tokens=x, output_tokens=0, reasoning_tokens=x // 10),
                    cost=x / 1e6)
            for i, x in enumerate(TOKENS) for s in range(seeds)]


def _rising(i, s):
    return 1.0 if i >= 3 else 0.0


def _falling(i, s):
    return 1.0 - _rising(i, s)


def _level(i, s):
    return [0.0, 1.0, 0.5, 0.5][s]


def test_compute_of_each_measure_and_an_unknown_one():
    e = episode(usage=usage(1000, 200, 50), cost=0.01)
    assert compute_of(e, "total_tokens") == 1200
    assert compute_of(e, "reasoning_tokens") == 50
    assert compute_of(e, "cost_usd") == 0.01
    assert compute_of(episode(), "total_tokens") is None
    with pytest.raises(AnalysisError, match="unknown compute measure 'tokens'"):
        compute_of(e, "tokens")


def test_verdicts_on_synthetic_curves():
    episodes = (_world("up", _rising) + _world("down", _falling) + _world("level", _level)
                + _world("tiny", _rising)[:2])
    curves = scaling_curves(episodes, "total_tokens")
    assert [c.world for c in curves] == ["all", "down", "level", "tiny", "up"]
    by_world = {c.world: c for c in curves}
    up, down, level = by_world["up"], by_world["down"], by_world["level"]
    assert up.verdict == "helps" and up.slope > 0 and up.slope_low > 0
    assert up.effect == pytest.approx(up.slope * math.log10(30000 / 100))
    assert down.verdict == "hurts" and down.slope < 0 and down.slope_high < 0
    assert level.verdict == "flat" and level.slope == pytest.approx(0.0, abs=1e-12)
    assert by_world["tiny"].verdict == "unknown" and math.isnan(by_world["tiny"].slope)
    assert trend_summary(curves) == {"helps": 1, "flat": 1, "hurts": 1, "unknown": 1}
    assert "0.05" in TREND_RULE


def test_a_constant_score_is_flat_and_a_single_compute_value_unknown():
    constant = [episode(1.0, seed=s, usage=usage(input_tokens=10 ** (s % 4 + 2)))
                for s in range(12)]
    (overall, world) = scaling_curves(constant, "total_tokens")
    assert world.verdict == "flat" and world.slope == pytest.approx(0.0, abs=1e-12)
    same = [episode(float(s % 2), seed=s, usage=usage()) for s in range(6)]
    assert scaling_curves(same, "total_tokens")[1].verdict == "unknown"


def test_a_small_rise_is_flat_however_certain():
    # slope certainly positive, but the score moves 0.02 over the range: below MIN_EFFECT
    small = _world("w", lambda i, s: 0.5 + 0.004 * i)
    (_, world) = scaling_curves(small, "total_tokens")
    assert world.slope_low > 0 and world.effect < 0.05 and world.verdict == "flat"


def _line(name: str, a: float, b: float, xs=(100, 1000, 10000), seeds: int = 2) -> list:
    """Episodes of one world scoring exactly ``a + b * log10(x)`` at total tokens ``x``."""
    return [episode(a + b * math.log10(x), world=name, seed=s, model=f"m{x}",
                    usage=usage(input_tokens=x, output_tokens=0))
            for x in xs for s in range(seeds)]


def test_points_on_a_line_give_its_slope_and_the_verdict_at_the_0_05_threshold():
    # compute 100 to 10000 spans log10 2 to 4: the predicted change is 2b. On an exact line
    # every bootstrap resample with two compute values has slope b, so the interval is [b, b]
    # and the verdict turns on the change alone: 2 * 0.026 = 0.052 >= 0.05, 2 * 0.024 = 0.048
    episodes = (_line("up-above", 0.3, 0.026) + _line("up-below", 0.3, 0.024)
                + _line("down-above", 0.7, -0.026) + _line("down-below", 0.7, -0.024))
    curves = {c.world: c for c in scaling_curves(episodes, "total_tokens")}
    expected = {"up-above": (0.026, 0.052, "helps"), "up-below": (0.024, 0.048, "flat"),
                "down-above": (-0.026, -0.052, "hurts"), "down-below": (-0.024, -0.048, "flat")}
    for world, (slope, effect, verdict) in expected.items():
        curve = curves[world]
        assert curve.slope == pytest.approx(slope, rel=1e-9)
        assert curve.slope_low == pytest.approx(slope, rel=1e-9)
        assert curve.slope_high == pytest.approx(slope, rel=1e-9)
        assert curve.effect == pytest.approx(effect, rel=1e-9)
        assert curve.verdict == verdict, world
    assert trend_summary(curves.values()) == {"helps": 1, "flat": 2, "hurts": 1, "unknown": 0}


def test_least_squares_slope_on_log10_compute_by_hand():
    # log10 x = 2, 3, 4, 5 with scores 0, 1, 1, 1: mean u 3.5, mean score 0.75;
    # sum (u - 3.5)(y - 0.75) = 1.125 - 0.125 + 0.125 + 0.375 = 1.5; sum (u - 3.5)^2 = 5;
    # slope 0.3 (not the 1/3 of the end points), change 0.3 * (5 - 2) = 0.9
    episodes = [episode(y, world="w", seed=1, model=f"m{x}",
                        usage=usage(input_tokens=x, output_tokens=0))
                for x, y in ((100, 0.0), (1000, 1.0), (10000, 1.0), (100000, 1.0))]
    (_, world) = scaling_curves(episodes, "total_tokens")
    assert world.slope == pytest.approx(0.3) and world.effect == pytest.approx(0.9)


def test_points_band_and_exclusions():
    episodes = _world("up", _rising) + [episode(1.0, world="up", seed=9),
                                        episode(status="infra_error", world="up", seed=8,
                                                usage=usage())]
    (overall, up) = scaling_curves(episodes, "cost_usd")
    assert up.points == sorted(up.points) and len(up.points) == 24
    assert up.n_excluded == 1           # done without usage; the infra error is not counted
    assert len(up.band) == min(8, 24 // MIN_PER_BIN)
    xs = [b[0] for b in up.band]
    assert xs == sorted(xs)
    for _x, mean, low, high in up.band:
        assert low <= mean <= high
    assert up.band[0][1] == 0.0 and up.band[-1][1] == 1.0
    assert overall.world == "all" and overall.measure == "cost_usd"


def test_random_and_oracle_give_no_curve():
    assert scaling_curves([episode(1.0), episode(0.0, seed=2)], "total_tokens") == []


# -- knob checks -------------------------------------------------------------------------------

def _effort(value: str, reasoning: list[int], model: str = "openai/x") -> list:
    return [episode(1.0, seed=s, model=model, reasoning_effort=value,
                    usage=usage(reasoning_tokens=r * 10, calls=10))
            for s, r in enumerate(reasoning)]


def test_identical_reasoning_tokens_are_flagged_as_not_changed():
    episodes = _effort("low", [0] * 6) + _effort("high", [0] * 6)
    (check,) = knob_checks(episodes)
    assert (check.knob, check.metric, check.model) == \
        ("reasoning_effort", "reasoning_tokens", "openai/x")
    assert check.values == ("low", "high") and check.changed is False
    assert "identical" in check.detail and "median 0 at low, 0 at high" in check.detail


def test_clearly_different_reasoning_tokens_are_changed():
    episodes = (_effort("low", [10, 12, 9, 15, 11, 8]) + _effort("high", [800, 650, 900, 720,
                                                                         880, 700]))
    (check,) = knob_checks(episodes)
    assert check.changed is True and check.p_value < 0.05
    assert "median 10.5 at low, 760 at high" in check.detail


def test_overlapping_distributions_are_not_changed():
    episodes = _effort("low", [10, 50, 30, 70, 20, 60]) + _effort("high", [15, 55, 35, 65, 25,
                                                                          45])
    (check,) = knob_checks(episodes)
    assert check.changed is False and check.p_value > 0.05 and "no difference shown" in check.detail


def test_too_few_episodes_are_said_so():
    (check,) = knob_checks(_effort("low", [1, 2]) + _effort("high", [900, 950]))
    assert check.changed is False and "too few episodes (4)" in check.detail


def test_knobs_are_checked_per_model_and_in_their_order():
    episodes = (_effort("high", [0] * 5) + _effort("minimal", [0] * 5)
                + _effort(None, [0] * 5) + _effort("low", [1] * 5, model="other/y")
                + _effort("low", [9] * 5, model="solo/z"))
    checks = knob_checks(episodes)
    assert [(c.model, c.values) for c in checks] == [("openai/x", (None, "minimal", "high"))]


def test_the_interaction_step_budget_is_checked_on_actions(tmp_path):
    episodes = []
    for budget, length in ((5, 5), (20, 20)):
        for seed in range(5):
            actions = [("interaction", "noop", True)] * length
            path = write_transcript(tmp_path / f"{budget}-{seed}.jsonl", actions)
            episodes.append(episode(0.0, seed=seed, model="random", interaction_steps=budget,
                                    transcript=path))
    (check,) = knob_checks(episodes)
    assert (check.knob, check.metric, check.values, check.changed) == \
        ("interaction_steps", "actions", (5, 20), True)
    assert "median 5 at 5, 20 at 20" in check.detail


def _calls_transcript(path, inputs, settings):
    """A transcript whose model calls sent ``inputs`` input tokens, in order."""
    from llm_eval.transcripts import End, Header, ModelCall, TranscriptWriter

    with TranscriptWriter(path) as writer:
        writer.write(Header(job_id=path.stem, run_id="r1", settings=settings,
                            task_id=settings["task"], world=settings["world"],
                            family=settings["family"], seed=1))
        for index, tokens in enumerate(inputs):
            writer.write(ModelCall(index=index, phase="interaction", step=index,
                                   request_hash=f"h{index}", request={}, response={},
                                   usage={"input_tokens": tokens, "output_tokens": 5},
                                   attempts=[]))
        writer.write(End(status="done"))
    return path


def test_a_history_window_is_compared_at_the_same_call_not_per_call_on_average(tmp_path):
    """Full history: short episodes whose prompt grows 100 tokens a call; a window of 3: long
    episodes whose prompt stops growing at 300 over a base that differs by world. Per call on
    average the long ones look as large; at the last call both made, full history is larger in
    every world."""
    episodes = []
    for world, base in (("small", 1000), ("large", 3000)):
        for seed in range(1, 5):
            settings = {"model": "m", "world": world, "family": "cd", "task": f"{world}-cd",
                        "seed": seed, "repeat": 0}
            full = [base + 100 * i for i in range(1, 6)]                 # 5 calls
            window = [base + 100 * min(i, 3) + 5 * seed for i in range(1, 201)]  # 200 calls
            for history, inputs in (("full", full), (3, window)):
                path = _calls_transcript(tmp_path / f"{world}{seed}{history}.jsonl", inputs,
                                         settings | {"history": history})
                episodes.append(episode(1.0, transcript=path, history=history,
                                        usage=usage(input_tokens=sum(inputs),
                                                    calls=len(inputs)),
                                        **settings))
    (check,) = knob_checks(episodes)
    assert (check.knob, check.metric) == ("history", "input_tokens_at_call")
    # at call 5: full is base + 500; the window base + 300 + 5 * seed
    assert check.changed is True and check.p_value < 0.05
    assert "median 2312 at 3, 2500 at full" in check.detail   # (2312.5, shown rounded)
    for world in ("small", "large"):   # the mean per call points the wrong way
        per_call = {h: [e.tokens("input_tokens") / e.tokens("calls") for e in episodes
                        if e.knob("history") == h and e.world == world] for h in ("full", 3)}
        assert min(per_call[3]) > max(per_call["full"])
