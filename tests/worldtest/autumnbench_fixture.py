"""What the ``autumnbench`` protocol's tests share: the drizzle fixture, scripts, expected grids.

- ``import_tasks(directory, seed)``: the fixture ``tests/fixtures/autumnbench/`` (drizzle, a 6x6
  world without FRAME_RATE, so the standard library's 8) imported into ``directory`` and given
  the run's ``seed`` (``seeded(task, seed, "autumnbench")``; None: as imported), by family.
- ``play(task, lines, directory)``: ``run_episode(..., protocol="autumnbench")`` with a
  ``ScriptAgent`` reading ``lines`` from a file; the episode ends when the lines run out.
- ``drizzle_grids(actions, ticks)``: the grids the fixture program shows, computed with the
  interpreter directly (not through any phase), ``ticks`` per action, the action in the first.
- ``grid_text(grid)``: the harness's text grid [R1], ``json.dumps`` of the rows.

The drizzle world (see ``programs/drizzle.sexp``): a blue drop appears in the top row every tick
(columns 0, 3, 0, 3, ...) and falls a row a tick; the white player walks the bottom row from
(2, 5); a click puts a gray block. In the changed program the drops made from the tick after
the second click on are red; the CD condition ``any (--> d (.. d hot)) drops`` holds from then.
"""

from __future__ import annotations

import json
from pathlib import Path

from llm_eval.actions import apply_action, parse_action
from llm_eval.agents.script import ScriptAgent
from llm_eval.autumn import Interpreter
from llm_eval.tasks.autumnbench_import import import_autumnbench
from llm_eval.tasks.store import load_tasks
from llm_eval.worldtest.episode import EpisodeResult, run_episode
from llm_eval.worldtest.seeding import seeded

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "autumnbench"
PROGRAM = FIXTURE / "programs" / "drizzle.sexp"
CHANGED = FIXTURE / "programs" / "drizzle_change_detection_wrong_program.sexp"
CLICK = "click [0-5] [0-5]"
#: the CD script of the brief: the second click at step 2, the first red drop made by step 3's
#: tick, seen at step 4 (T = 4), declared at step 4, submitted at step 5 (t = 4)
CD_WINNING = ["click 0 5", "click 5 5", "noop", "I found the change!", "Submit choice"]
#: the planning goal: the player at (0, 5) and a block at (4, 2)
PLANNING_WINNING = ["left", "left", "click 4 2"]


def import_tasks(directory: Path, seed: int | None = 0, *, data_dir: Path = FIXTURE) -> dict:
    """The fixture's three tasks (or those of ``data_dir``, a copy made to vary one), imported
    into ``directory``, by family (module docstring)."""
    import_autumnbench(data_dir, directory)
    tasks = {}
    for task in load_tasks(directory):
        tasks[task.family] = task if seed is None else seeded(task, seed, "autumnbench")[0]
    return tasks


def script(directory: Path, lines: list[str], name: str = "script.txt") -> ScriptAgent:
    """A ScriptAgent playing ``lines`` (one action a line), from a file in ``directory``."""
    path = directory / name
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return ScriptAgent(path)


def play(task, lines: list[str], directory: Path, **kwargs) -> EpisodeResult:
    """One autumnbench episode of ``task`` played by a script of ``lines``."""
    return run_episode(task, script(directory, lines), protocol="autumnbench", **kwargs)


def drizzle_grids(actions: list[str], ticks: int = 1, *, program: Path = PROGRAM,
                  seed: int = 0) -> list[list[tuple[tuple[str, ...], ...]]]:
    """Per action, the ``ticks`` grids it shows (module docstring); a ``reset`` entry restarts
    the program and shows its initial grid alone."""
    text = program.read_text(encoding="utf-8")

    def start() -> Interpreter:
        interpreter = Interpreter()
        interpreter.run_script(text, seed=seed, allow_degenerate_seed=True)
        return interpreter

    interpreter = start()
    shown = [[interpreter.render_frame().grid]]
    for action in actions:
        if action == "reset":
            interpreter = start()
            shown.append([interpreter.render_frame().grid])
            continue
        grids = []
        for k in range(ticks):
            if k == 0:
                apply_action(interpreter, parse_action(action))
            interpreter.step()
            grids.append(interpreter.render_frame().grid)
        shown.append(grids)
    return shown


def grid_text(grid) -> str:
    """The harness's text grid [R1]: ``json.dumps`` with its default separators."""
    return json.dumps([list(row) for row in grid])


def stacked(grids, first_time: int, action: str) -> str:
    """The harness's frame-stacked text [I6] for one action taken at phase time
    ``first_time``: block k is ``Frame time: (time-1)*n+2+k``, ``Action took:`` (the action,
    then ``noop``), ``Observation: <grid>``; blocks joined by a blank line and
    ``Observation: ``."""
    n = len(grids)
    blocks = [f"Frame time: {(first_time - 1) * n + 2 + k}\n"
              f"Action took: {action if k == 0 else 'noop'}\n"
              f"Observation: {grid_text(grid)}" for k, grid in enumerate(grids)]
    return "\n\nObservation: ".join(blocks)
