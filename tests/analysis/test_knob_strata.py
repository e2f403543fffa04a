"""Knob checks hold the other settings fixed: a second knob varied in the same sweep does not
pass for an effect of the first."""

from __future__ import annotations

from analysis_fixtures import episode, usage

from llm_eval.analysis import knob_checks


def _confounded() -> list:
    """Reasoning tokens follow the thinking budget only (100 per call at 1000, 800 at 8000,
    with a little noise); reasoning effort is mostly low at the small budget and mostly high
    at the large one, so by itself it looks as if it moved the tokens."""
    episodes, seed = [], 0
    for budget, base, efforts in ((1000, 100, ["low"] * 8 + ["high"] * 2),
                                  (8000, 800, ["low"] * 2 + ["high"] * 8)):
        for k, effort in enumerate(efforts):
            seed += 1
            episodes.append(episode(1.0, seed=seed, model="anthropic/x", reasoning_effort=effort,
                                    thinking_budget=budget,
                                    usage=usage(reasoning_tokens=(base + k % 3) * 10, calls=10)))
    return episodes


def test_a_confounded_knob_is_not_credited_with_another_knobs_effect():
    checks = {c.knob: c for c in knob_checks(_confounded())}
    assert checks["thinking_budget"].changed is True
    assert checks["reasoning_effort"].changed is False
    assert checks["reasoning_effort"].p_value > 0.2


def test_without_the_other_knob_the_same_tokens_do_show_a_difference():
    # the same numbers with the budget forgotten: the effort levels differ, as a naive test says
    plain = [episode(1.0, seed=e.knob("seed"), model="anthropic/x",
                     reasoning_effort=e.knob("reasoning_effort"), usage=e.usage)
             for e in _confounded()]
    (check,) = knob_checks(plain)
    assert check.knob == "reasoning_effort" and check.changed is True
