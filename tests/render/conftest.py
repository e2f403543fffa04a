"""Frames for the renderer tests: hand-made ones and ones from the bouncer example."""

from __future__ import annotations

from pathlib import Path

import pytest

from llm_eval.autumn import Frame, Interpreter

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def bouncer_frames() -> list[Frame]:
    """Frames of the bouncer example over a few actions (f0, then one per action)."""
    it = Interpreter()
    it.run_script((REPO / "examples" / "bouncer.sexp").read_text(), seed=7)
    frames = [it.render_frame()]
    for act in ("right", "click 3 3", "left", "down", "click 0 0", "noop", "up"):
        if act.startswith("click"):
            _, x, y = act.split()
            it.click(int(x), int(y))
        elif act != "noop":
            getattr(it, act)()
        it.step()
        frames.append(it.render_frame())
    return frames
