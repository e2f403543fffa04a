"""Tasks built in the tests from the bundled warehouse world (7x7, deterministic, fast).

- ``mfp_task()``: a 6-action recording; the 2x2 patch around the pushed crate is hidden in the
  last two frames; option 2 is the truth, the others are distinct recolourings.
- ``cd_task(root)``: a modified warehouse, written under ``root/changes/warehouse.sexp``, in
  which ``left`` walks right once the trigger ``> pushes 0`` has held. With the witness
  ``down, right, left`` the trigger first holds at the start of tick 3, and frame 3 is the
  first that differs from the original: the left pushes the crate a second time, so the
  condition ``> pushes 1`` first holds there and T = 3.
- ``planning_task()``: push the crate at (2,2) onto the ice so that it slides to (5,2)
  (witness ``down, right, right``; the first and last frames differ on the masked cells).
"""

from __future__ import annotations

from pathlib import Path

from llm_eval.tasks.models import parse_task
from llm_eval.worlds import make_world, world_spec

SEED = 3
MFP_ACTIONS = ["down", "right", "right", "noop", "up", "left"]
MFP_ANSWER = 2
MASK = {"x": 3, "y": 1, "width": 2, "height": 2}
CD_TRIGGER = "> pushes 0"
CD_CONDITION = "> pushes 1"
CD_WITNESS = ["down", "right", "left"]
CD_CHANGE = "after the first push, left walks right"
PLANNING_WITNESS = ["down", "right", "right"]
PLANNING_CELLS = [(5, 2), (4, 2), (3, 2)]
LEFT_RULE = "(on left (walk -1 0))"
CHANGED_LEFT_RULE = ("(on (& left (! SpecialConditionTriggered)) (walk -1 0))\n"
                     "  (on (& left SpecialConditionTriggered) (walk 1 0))")


def frames_of(actions: list[str], seed: int = SEED) -> list[list[list[str]]]:
    world = make_world("warehouse", seed=seed)
    frame, _ = world.reset()
    frames = [frame.to_rows()]
    for action in actions:
        frame, _, _, _, _ = world.step(action)
        frames.append(frame.to_rows())
    return frames


def _patch(grid, mask=MASK):
    return [row[mask["x"]:mask["x"] + mask["width"]]
            for row in grid[mask["y"]:mask["y"] + mask["height"]]]


def mfp_task(answer: int = MFP_ANSWER):
    frames = frames_of(MFP_ACTIONS)
    truth = _patch(frames[-1])
    palette = ["gray", "brown", "lightblue", "white", "black", "green", "darkgreen"]
    options, k = [], 0
    while len(options) < 5:
        flat = [c for row in truth for c in row]
        flat[k % 4] = palette[k % len(palette)]
        candidate = [flat[0:2], flat[2:4]]
        if candidate != truth and candidate not in options:
            options.append(candidate)
        k += 1
    options.insert(answer, truth)
    masked_from = len(frames) - 2
    shown = []
    for t, grid in enumerate(frames):
        rows = [list(r) for r in grid]
        if t >= masked_from:
            for y in range(MASK["y"], MASK["y"] + MASK["height"]):
                for x in range(MASK["x"], MASK["x"] + MASK["width"]):
                    rows[y][x] = None
        shown.append(rows)
    sources = ["recoloured cell"] * 6
    sources[answer] = "truth"
    return parse_task({
        "id": "warehouse-mfp-test", "world": "warehouse", "family": "mfp", "seed": SEED,
        "budgets": {"interaction_steps": 30, "test_steps": 12},
        "public": {"actions": MFP_ACTIONS, "frames": shown, "mask": MASK,
                   "masked_from": masked_from, "options": options},
        "hidden": {"answer": answer, "option_sources": sources}})


def modified_program() -> str:
    text = world_spec("warehouse").program_text()
    assert LEFT_RULE in text
    return text.replace(LEFT_RULE, CHANGED_LEFT_RULE)


def write_cd_program(root: Path) -> Path:
    path = root / "changes" / "warehouse.sexp"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(modified_program(), encoding="utf-8")
    return root


def cd_task(test_steps: int = 20, program: str = "changes/warehouse.sexp",
            condition: str = CD_CONDITION):
    return parse_task({
        "id": "warehouse-cd-test", "world": "warehouse", "family": "cd", "seed": SEED,
        "budgets": {"interaction_steps": 30, "test_steps": test_steps},
        "hidden": {"program": program, "trigger": CD_TRIGGER, "condition": condition,
                   "change": CD_CHANGE, "witness": CD_WITNESS}})


def planning_task(horizon: int = 8):
    goal = frames_of(PLANNING_WITNESS)[-1]
    mask = [[(x, y) in PLANNING_CELLS for x in range(7)] for y in range(7)]
    return parse_task({
        "id": "warehouse-planning-test", "world": "warehouse", "family": "planning",
        "seed": SEED, "budgets": {"interaction_steps": 30, "test_steps": 10},
        "public": {"goal": goal, "mask": mask, "horizon": horizon},
        "hidden": {"witness": PLANNING_WITNESS}})
