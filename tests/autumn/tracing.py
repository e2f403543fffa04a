"""Shared by the tests that compare two ways of running a program (fused or not, native stdlib
or not, restored or not): play text actions and collect the render_all texts."""

from __future__ import annotations

import random

from llm_eval.actions import apply_action, parse_action
from llm_eval.autumn import Interpreter
from llm_eval.errors import AutumnError


def play(it: Interpreter, actions: list[str]) -> list[str]:
    """Apply each action, step and render; the render_all text after each step."""
    frames = []
    for text in actions:
        apply_action(it, parse_action(text))
        it.step()
        frames.append(it.render_all())
    return frames


def trace(text: str, actions: list[str], seed: int, **options) -> tuple[list[str], tuple | None]:
    """(frames, failure): the initial and per-step render_all texts of a fresh interpreter made
    with ``options``, then the error (type, message, frames so far) if the program failed."""
    it = Interpreter(**options)
    frames: list[str] = []
    try:
        it.run_script(text, seed=seed)
        frames.append(it.render_all())
        for text_action in actions:
            frames.extend(play(it, [text_action]))
    except AutumnError as e:
        return frames, (type(e).__name__, str(e), len(frames))
    return frames, None


def random_actions(rng: random.Random, n: int, size: int = 8) -> list[str]:
    return [rng.choice(["left", "right", "up", "down", "noop",
                        f"click {rng.randrange(size)} {rng.randrange(size)}"]) for _ in range(n)]
