"""Smoke test for the speed benchmark's programs (benchmarks/programs/*.sexp).

Each program loads and survives 50 seeded random actions in the standard loop (input,
step(), render_frame()). The heavy, self-moving worlds must also keep changing frames.
This checks the programs, not the timings: those are benchmarks/interpreter.py's job.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from llm_eval.autumn import Interpreter

PROGRAMS_DIR = Path(__file__).resolve().parents[2] / "benchmarks" / "programs"
PROGRAMS = sorted(PROGRAMS_DIR.glob("*.sexp"))
DYNAMIC = {"life", "sand", "liquid", "swarm"}
STEPS = 50
SEED = 1


def _play(path: Path, seed: int = SEED, steps: int = STEPS) -> list:
    """Frames f0..fN of ``steps`` random actions, uniform over click/arrows/noop."""
    it = Interpreter()
    it.run_script(path.read_text(), seed=seed, path=str(path))
    frames = [it.render_frame()]
    rng = random.Random(seed)
    for _ in range(steps):
        kind = rng.choice(("click", "left", "right", "up", "down", "noop"))
        if kind == "click":
            it.click(rng.randrange(frames[0].size), rng.randrange(frames[0].size))
        elif kind != "noop":
            getattr(it, kind)()
        it.step()
        frames.append(it.render_frame())
    return frames


def test_benchmark_programs_exist() -> None:
    names = {p.stem for p in PROGRAMS}
    assert DYNAMIC <= names, f"missing heavy programs: {sorted(DYNAMIC - names)}"
    assert len(names) >= 7, sorted(names)


@pytest.mark.parametrize("path", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_program_runs_random_actions(path: Path) -> None:
    frames = _play(path)
    assert len(frames) == STEPS + 1
    assert all(f.size == 16 for f in frames)
    if path.stem in DYNAMIC:
        changed = sum(1 for a, b in zip(frames, frames[1:]) if a.grid != b.grid)
        assert changed >= STEPS // 2, f"{path.stem}: only {changed} of {STEPS} steps changed the frame"
        assert len({f.grid for f in frames}) >= 10
    else:
        assert any(f.grid != frames[0].grid for f in frames[1:]), f"{path.stem} never changed"


@pytest.mark.parametrize("path", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_program_is_deterministic_for_a_seed(path: Path) -> None:
    assert [f.grid for f in _play(path, steps=10)] == [f.grid for f in _play(path, steps=10)]
