"""Every registered world through the same checks (the style guide: one test runs the whole registry).

For each bundled world: it loads at its declared size; 500 seeded random actions run without
error; the same seed gives the same frames; a stochastic world shows different frames under a
different seed within those actions, and a deterministic one shows the same frames under every
seed; every rendering of every frame parses back to the frame; invalid actions are reported,
not raised.
"""

from __future__ import annotations

import random

import pytest
from tiers import per_world

from llm_eval.actions import Action
from llm_eval.autumn import Frame
from llm_eval.render import (
    parse_compact,
    parse_diff,
    parse_json,
    parse_png,
    render_compact,
    render_diff,
    render_json,
    render_png,
)
from llm_eval.worlds import WorldSpec, default_registry

SPECS = default_registry().specs()
STEPS = 500
SEED = 7
OTHER_SEEDS = (8, 123_457)
PNG_EVERY = 50


def random_actions(size: int, count: int = STEPS, seed: int = 2024) -> list[Action]:
    """Uniform over the six kinds, clicks on uniform cells (the random agent's distribution)."""
    from llm_eval.worlds import ActionSpace

    rng = random.Random(seed)
    space = ActionSpace(size)
    return [space.sample(rng) for _ in range(count)]


def play(spec: WorldSpec, seed: int, actions: list[Action],
         stop_when_unlike: list[Frame] | None = None) -> list[Frame]:
    """Frames f0..fN; with ``stop_when_unlike``, stop at the first frame that differs from it."""
    world = spec.make(seed=seed)
    frame, info = world.reset()
    frames = [frame]
    for action in actions:
        if stop_when_unlike is not None and frames[-1] != stop_when_unlike[len(frames) - 1]:
            break
        frame, reward, terminated, truncated, info = world.step(action)
        assert "invalid_action" not in info, (action, info["invalid_action"])
        assert (reward, terminated, truncated) == (0.0, False, False)
        frames.append(frame)
    return frames


def test_the_suite_has_worlds() -> None:
    assert SPECS, "no bundled worlds found"


@pytest.mark.parametrize("spec", per_world(SPECS, lambda s: s.name))
def test_world(spec: WorldSpec) -> None:
    actions = random_actions(spec.size)
    frames = play(spec, SEED, actions)
    assert len(frames) == STEPS + 1
    assert all(f.size == spec.size for f in frames)
    assert len(set(frames)) > 1, "500 random actions never changed the frame"

    assert play(spec, SEED, actions) == frames, "the same seed gave different frames"

    if spec.stochastic:
        other = play(spec, OTHER_SEEDS[0], actions, stop_when_unlike=frames)
        assert other != frames[:len(other)], (
            f"marked stochastic, but seed {OTHER_SEEDS[0]} gave the same {len(other)} frames "
            f"as seed {SEED}")
    else:
        for seed in OTHER_SEEDS:
            assert play(spec, seed, actions) == frames, (
                f"marked deterministic, but seed {seed} gave different frames from seed {SEED}")

    for t, frame in enumerate(frames):
        assert parse_json(render_json(frame), frame.background) == frame
        assert parse_compact(render_compact(frame)) == frame
        if t:
            assert parse_diff(render_diff(frame, frames[t - 1]), frames[t - 1]) == frame
        if t % PNG_EVERY == 0:
            assert parse_png(render_png(frame, coordinates=True)) == frame


@pytest.mark.parametrize("spec", per_world(SPECS, lambda s: s.name))
def test_world_reports_invalid_actions(spec: WorldSpec) -> None:
    world = spec.make(seed=SEED)
    frame, _ = world.reset()
    for bad in (f"click {spec.size} 0", "click 0 -1", "jump", "click 1"):
        again, _, _, _, info = world.step(bad)
        assert again is frame and info["invalid_action"]
    assert world.invalid_actions == 4 and world.steps == 0
    assert world.coverage().total > 0, "a world with no on-clauses has no rules to discover"
