"""Import the published AutumnBench task files as our task files.

``import_autumnbench(data_dir, out_dir)`` reads the published layout (docs/spec/autumnbench-harness.md
D1-D5): ``color_dict.yaml``, ``programs/<env>.sexp`` and
``programs/<env>_change_detection_wrong_program.sexp``, ``prompts/<env>_mfp.json`` /
``_cd.json`` / ``_planning.json`` and ``answers/<env>_mfp.json`` /
``_change_detection.json`` / ``_planning.json``. It writes one task file per environment x
family found (``<env>-<family>.json``) and copies the programs under ``out_dir/programs/``, so
the directory is self-contained. The source's numbers are kept: colour indices are mapped
through the colour table (index 0 = hidden in MFP grids and options, the name ``transparent``
in a planning goal [D2]); the MFP options keep their count and order and ``correct_idx``; the CD
condition is kept as written (it is both the observational condition and, as the harness passes
it to ``run_script``, the trigger); the planning answer's ``optimal_actions_count`` is kept as
``reference_length`` (its unit is unknown). The files carry no seed: the run gives it (the
harness's own default is 0). Each task records the source directory and the sha256 of every
file read.

Bad input (a missing file, a file of the wrong shape, an unknown colour index, a grid that is
not square or not the program's size, a program that does not load) raises
``TaskImportError`` naming the file and the field. Validation problems (an unreachable goal, a
crashing program, a condition that never holds) are not errors: ``validate_imported`` reports
them per task.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, overload

import yaml

from ..atomic import write_atomic
from ..errors import TaskFileError
from .models import (
    Budgets,
    CDHidden,
    CDTask,
    MFPHidden,
    MFPPublic,
    MFPTask,
    PlanningHidden,
    PlanningPublic,
    PlanningTask,
    Rect,
    TaskSource,
)
from .store import write_task

__all__ = ["TaskImportError", "ImportResult", "import_autumnbench", "read_colour_table",
           "FAMILY_FILES", "IMPORT_BUDGETS"]

#: prompt-file suffix per family [D1]
FAMILY_FILES = {"mfp": "mfp", "cd": "cd", "planning": "planning"}
#: the harness's full_evaluation interaction budget (200); its tests have no budget of their
#: own, the protocol's 501-step cap bounds them
IMPORT_BUDGETS = Budgets(interaction_steps=200, test_steps=200)
_ID = re.compile(r"^[a-z][a-z0-9_-]*$")
_CHANGE = "(imported: the source does not describe the change)"


class TaskImportError(TaskFileError):
    """Published task data that cannot be imported; names the file and the field."""


@dataclass
class ImportResult:
    """What an import wrote: the tasks (as loaded back from ``out_dir``) and the files."""

    out_dir: Path
    tasks: list = field(default_factory=list)
    written: list[Path] = field(default_factory=list)


class _Source:
    """The data directory: reads files, remembering each one's digest."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.digests: dict[str, str] = {}

    def bytes(self, relative: str) -> bytes:
        path = self.root / relative
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise TaskImportError(f"{path}: cannot read: {exc.strerror or exc}") from None
        self.digests[relative] = hashlib.sha256(data).hexdigest()
        return data

    def text(self, relative: str) -> str:
        data = self.bytes(relative)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise TaskImportError(f"{self.root / relative}: not UTF-8 text (byte "
                                  f"{exc.start})") from None

    def json(self, relative: str) -> dict[str, Any]:
        try:
            data = json.loads(self.text(relative))
        except json.JSONDecodeError as exc:
            raise TaskImportError(f"{self.root / relative}: line {exc.lineno} column "
                                  f"{exc.colno}: not valid JSON: {exc.msg}") from None
        if not isinstance(data, dict):
            raise TaskImportError(f"{self.root / relative}: expected a JSON object, got "
                                  f"{type(data).__name__}")
        return data

    def where(self, relative: str, fieldname: str) -> str:
        return f"{self.root / relative}: {fieldname}"


def read_colour_table(source: _Source) -> dict[int, str]:
    """``color_dict.yaml``: keys coerced to int, values to str [D2]."""
    relative = "color_dict.yaml"
    try:
        raw = yaml.safe_load(source.text(relative))
    except yaml.YAMLError as exc:
        raise TaskImportError(f"{source.root / relative}: not valid YAML: "
                              f"{getattr(exc, 'problem', None) or exc}") from None
    if not isinstance(raw, dict) or not raw:
        raise TaskImportError(f"{source.root / relative}: expected a mapping of colour "
                              "indices to names")
    table = {}
    for key, value in raw.items():
        try:
            table[int(key)] = str(value).strip()
        except (TypeError, ValueError):
            raise TaskImportError(f"{source.where(relative, repr(key))}: a colour index must "
                                  "be an integer") from None
    return table


def _get(data: dict, key: str, kind: type, source: _Source, relative: str, path: str = ""):
    where = f"{path}.{key}" if path else key
    if key not in data:
        raise TaskImportError(f"{source.where(relative, where)}: missing")
    value = data[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is int:
        raise TaskImportError(f"{source.where(relative, where)}: expected "
                              f"{kind.__name__}, got {type(value).__name__}")
    return value


def _grid(value: Any, source: _Source, relative: str, where: str, size: int | None = None,
          square: bool = True) -> list[list[int]]:
    """An int grid, checked for shape (rows of ints; square of ``size`` when given)."""
    if not isinstance(value, list) or not value or not all(isinstance(r, list) for r in value):
        raise TaskImportError(f"{source.where(relative, where)}: expected a list of rows")
    width = len(value[0])
    for y, row in enumerate(value):
        if len(row) != width:
            raise TaskImportError(f"{source.where(relative, f'{where}[{y}]')}: {len(row)} "
                                  f"cells, row 0 has {width}")
        for x, cell in enumerate(row):
            if isinstance(cell, bool) or not isinstance(cell, int):
                raise TaskImportError(f"{source.where(relative, f'{where}[{y}][{x}]')}: "
                                      f"expected a colour index, got {cell!r}")
    if square and len(value) != width:
        raise TaskImportError(f"{source.where(relative, where)}: the grid is {width}x"
                              f"{len(value)}, not square")
    if size is not None and square and len(value) != size:
        raise TaskImportError(f"{source.where(relative, where)}: the grid is {len(value)}x"
                              f"{len(value)} but the program's is {size}x{size}")
    return value


@overload
def _names(grid: list[list[int]], table: dict[int, str], source: _Source, relative: str,
           where: str, zero: str) -> list[list[str]]: ...
@overload
def _names(grid: list[list[int]], table: dict[int, str], source: _Source, relative: str,
           where: str, zero: None) -> list[list[str | None]]: ...
def _names(grid: list[list[int]], table: dict[int, str], source: _Source, relative: str,
           where: str, zero: str | None) -> list[list[str]] | list[list[str | None]]:
    """The colour names of ``grid``'s indices; index 0 is ``zero`` (None: a hidden cell)."""
    out = []
    for y, row in enumerate(grid):
        line: list[str | None] = []
        for x, index in enumerate(row):
            if index == 0 and zero is None:
                line.append(None)
            elif index in table:
                line.append(zero if index == 0 else table[index])
            else:
                raise TaskImportError(f"{source.where(relative, f'{where}[{y}][{x}]')}: "
                                      f"colour index {index} is not in color_dict.yaml")
        out.append(line)
    return out


def _program_size(text: str, path: Path) -> int:
    """Load the program (seed 1) and return its grid size; a failure is an import error."""
    from ..autumn import Interpreter
    from ..errors import AutumnError

    interpreter = Interpreter()
    try:
        interpreter.run_script(text, seed=1, path=str(path))
        return interpreter.render_frame().size
    except AutumnError as exc:
        raise TaskImportError(f"{path}: the program does not load: {exc}") from None


def _action_text(action: Any, source: _Source, relative: str, where: str) -> str:
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise TaskImportError(f"{source.where(relative, where)}: expected an object with a "
                              "'type'")
    kind = action["type"]
    if kind == "click":
        x, y = action.get("x"), action.get("y")
        if any(isinstance(v, bool) or not isinstance(v, int) for v in (x, y)):
            raise TaskImportError(f"{source.where(relative, where)}: a click needs integer x "
                                  "and y")
        return f"click {x} {y}"
    if kind not in ("noop", "left", "right", "up", "down"):
        raise TaskImportError(f"{source.where(relative, where)}.type: unknown action {kind!r}")
    return kind


def _mask_rect(frames: list[list[list[str | None]]], source: _Source, relative: str
               ) -> tuple[Rect, int]:
    """The hidden rectangle (implied by where the 0s are [D3]) and the first masked frame."""
    masked = [t for t, f in enumerate(frames) if any(c is None for row in f for c in row)]
    if not masked:
        raise TaskImportError(f"{source.where(relative, 'observations')}: no frame hides a "
                              "cell (colour index 0)")
    first = masked[0]
    if masked != list(range(first, len(frames))):
        raise TaskImportError(f"{source.where(relative, 'observations')}: the masked frames "
                              f"must be the last ones; frames {masked} hide cells")
    cells = {(x, y) for y, row in enumerate(frames[first]) for x, c in enumerate(row)
             if c is None}
    xs, ys = [x for x, _ in cells], [y for _, y in cells]
    rect = Rect(x=min(xs), y=min(ys), width=max(xs) - min(xs) + 1, height=max(ys) - min(ys) + 1)
    if set(rect.cells()) != cells:
        raise TaskImportError(f"{source.where(relative, f'observations[{first}].masked_grid')}:"
                              " the hidden cells do not form a rectangle")
    for t in masked:
        hidden = {(x, y) for y, row in enumerate(frames[t]) for x, c in enumerate(row)
                  if c is None}
        if hidden != cells:
            raise TaskImportError(f"{source.where(relative, f'observations[{t}].masked_grid')}"
                                  ": hides other cells than the first masked frame")
    return rect, first


def _mfp(env: str, source: _Source, table: dict[int, str], size: int, common: dict) -> MFPTask:
    relative, answers = f"prompts/{env}_mfp.json", f"answers/{env}_mfp.json"
    data = source.json(relative)
    observations = _get(data, "observations", list, source, relative)
    if len(observations) < 2:
        raise TaskImportError(f"{source.where(relative, 'observations')}: at least 2 frames "
                              "are needed")
    frames, actions = [], []
    for t, obs in enumerate(observations):
        where = f"observations[{t}]"
        if not isinstance(obs, dict):
            raise TaskImportError(f"{source.where(relative, where)}: expected an object")
        grid = _grid(_get(obs, "masked_grid", list, source, relative, where), source, relative,
                     f"{where}.masked_grid", size)
        frames.append(_names(grid, table, source, relative, f"{where}.masked_grid", None))
        if t:
            actions.append(_action_text(obs.get("action"), source, relative, f"{where}.action"))
    rect, first = _mask_rect(frames, source, relative)
    options = []
    for k, choice in enumerate(_get(data, "choices", list, source, relative)):
        grid = _grid(choice, source, relative, f"choices[{k}]", square=False)
        if len(grid) != rect.height or len(grid[0]) != rect.width:
            raise TaskImportError(f"{source.where(relative, f'choices[{k}]')}: "
                                  f"{len(grid[0])}x{len(grid)}, but the hidden rectangle is "
                                  f"{rect.width}x{rect.height}")
        options.append(_names(grid, table, source, relative, f"choices[{k}]", "mask"))
    answer = _get(source.json(answers), "correct_idx", int, source, answers)
    if not 0 <= answer < len(options):
        raise TaskImportError(f"{source.where(answers, 'correct_idx')}: {answer} is not an "
                              f"index of the {len(options)} choices")
    public = MFPPublic(actions=actions, frames=frames, mask=rect, masked_from=first,
                       options=options)
    return MFPTask(id=f"{env}-mfp", public=public, hidden=MFPHidden(answer=answer), **common)


def _cd(env: str, source: _Source, common: dict, programs: dict[str, str]) -> CDTask:
    relative = f"prompts/{env}_cd.json"
    source.json(relative)          # read for its digest; the harness never uses its fields
    answers = f"answers/{env}_change_detection.json"
    condition = _get(source.json(answers), "condition", str, source, answers).strip()
    if not condition:
        raise TaskImportError(f"{source.where(answers, 'condition')}: empty")
    wrong = f"programs/{env}_change_detection_wrong_program.sexp"
    text = source.text(wrong)
    _program_size(text, source.root / wrong)
    programs[wrong] = text
    hidden = CDHidden(program=wrong, trigger=condition, condition=condition, change=_CHANGE)
    return CDTask(id=f"{env}-cd", hidden=hidden, **common)


def _planning(env: str, source: _Source, table: dict[int, str], size: int,
              common: dict) -> PlanningTask:
    relative = f"prompts/{env}_planning.json"
    data = source.json(relative)
    goal_ints = _grid(_get(data, "goal", list, source, relative), source, relative, "goal", size)
    mask_ints = _grid(_get(data, "mask", list, source, relative), source, relative, "mask", size)
    goal = _names(goal_ints, table, source, relative, "goal", table.get(0, "transparent"))
    mask = [[bool(m) for m in row] for row in mask_ints]
    reference = None
    answers = f"answers/{env}_planning.json"
    if (source.root / answers).is_file():
        reference = _get(source.json(answers), "optimal_actions_count", int, source, answers)
    try:
        public = PlanningPublic(goal=goal, mask=mask)
    except ValueError as exc:
        raise TaskImportError(f"{source.where(relative, 'mask')}: {exc}") from None
    return PlanningTask(id=f"{env}-planning", public=public,
                        hidden=PlanningHidden(reference_length=reference), **common)


def _copy(text: str, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(target, text)


def environments(data_dir: Path) -> dict[str, list[str]]:
    """``{env: [families]}`` from the prompt files found [D1, D6]."""
    prompts = data_dir / "prompts"
    if not prompts.is_dir():
        raise TaskImportError(f"{prompts}: no prompts/ directory (the published layout has "
                              "programs/, prompts/, answers/ and color_dict.yaml)")
    found: dict[str, list[str]] = {}
    for path in sorted(prompts.glob("*.json")):
        for family, suffix in FAMILY_FILES.items():
            if path.name.endswith(f"_{suffix}.json"):
                found.setdefault(path.name[:-len(f"_{suffix}.json")], []).append(family)
    if not found:
        raise TaskImportError(f"{prompts}: no <env>_mfp.json, <env>_cd.json or "
                              "<env>_planning.json file")
    return found


def import_autumnbench(data_dir: str | Path, out_dir: str | Path) -> ImportResult:
    """Import every environment x family of ``data_dir`` into ``out_dir`` (module docstring).
    Everything is read and checked before anything is written."""
    from .store import load_task_file

    root, out = Path(data_dir), Path(out_dir)
    source = _Source(root)
    table = read_colour_table(source)
    tasks = []
    programs: dict[str, str] = {}
    for env, families in environments(root).items():
        if not _ID.match(env):
            raise TaskImportError(f"{root / 'prompts'}: environment name {env!r} cannot be a "
                                  "task id (lower-case letters, digits, '-' and '_')")
        relative = f"programs/{env}.sexp"
        text = source.text(relative)
        size = _program_size(text, root / relative)
        programs[relative] = text
        for family in families:
            env_files = [relative]
            common = dict(world=env, seed=None, program=relative, budgets=IMPORT_BUDGETS)
            before = set(source.digests)
            task: MFPTask | CDTask | PlanningTask
            match family:
                case "mfp":
                    task = _mfp(env, source, table, size, common)
                case "cd":
                    task = _cd(env, source, common, programs)
                case _:
                    task = _planning(env, source, table, size, common)
            env_files += sorted(set(source.digests) - before) + ["color_dict.yaml"]
            files = {f: source.digests[f] for f in sorted(set(env_files))}
            src = TaskSource(format="autumnbench", data_dir=str(root), files=files)
            tasks.append(task.model_copy(update={"source": src}))
    result = ImportResult(out)
    for relative, text in programs.items():
        _copy(text, out / relative)
    for task in tasks:
        path = write_task(task, out)
        result.written.append(path)
        result.tasks.append(load_task_file(path))
    return result


def validate_imported(task, *, seed: int, protocol: str = "autumnbench"):
    """Our validation of an imported task, as a ``TaskReport`` (problems are reported, not
    raised): the program runs (100 seeded random actions, on both programs for CD); MFP: the
    recording is the program's at this seed, one tick per action, and the answer is the option
    the simulation gives; CD: the condition does not hold at the start and some action sequence
    makes it hold; planning: the goal differs from the initial grid, every masked goal colour
    can be rendered, and the oracle's planner reaches it within the protocol's cap."""
    from ..worldtest.programs import modified_world, original_world
    from ..worldtest.seeding import seeded
    from .validate import TaskReport

    task, _ = seeded(task, seed, protocol)
    checks = [_check("program_runs", _runs, original_world(task))]
    match task.family:
        case "mfp":
            checks += [_check("recording_replays", _replays, task),
                       _check("answer_matches_simulation", _answer, task)]
        case "cd":
            changed = modified_world(task)
            checks += [_check("changed_program_runs", _runs, changed),
                       _check("condition_not_initial", _not_initial, changed, task),
                       _check("condition_reachable", _reachable, changed, task)]
        case "planning":
            checks += [_check("goal_differs_from_initial", _differs, task),
                       _check("goal_colours_renderable", _renderable, task),
                       _check("goal_reachable", _plannable, task)]
    return TaskReport(task=task.id, world=task.world, family=task.family, checks=tuple(checks))


def _check(name: str, fn, *args):
    from .validate import Check

    try:
        passed, figures, detail = fn(*args)
    except Exception as exc:   # a crashing program is a finding of validation, not an error
        return Check(name, False, {}, f"{type(exc).__name__}: {exc}")
    return Check(name, passed, figures, detail)


def _runs(world, actions: int = 100):
    import random

    rng = random.Random(7)
    world.reset()
    for _ in range(actions):
        world.step(world.action_space.sample(rng) if hasattr(world.action_space, "sample")
                   else "noop")
    return True, {"actions": actions}, ""


def _replays(task):
    from ..worldtest.programs import original_world

    world = original_world(task)
    frame, _ = world.reset()
    public = task.public
    for t, shown in enumerate(public.frames):
        if t:
            frame, _, _, _, info = world.step(public.actions[t - 1])
        wrong = sum(1 for y, row in enumerate(shown) for x, c in enumerate(row)
                    if c is not None and frame.grid[y][x] != c)
        if wrong:
            return False, {"first_differing_frame": t, "cells": wrong}, (
                f"frame {t} differs from the program's in {wrong} visible cell(s) at seed "
                f"{task.seed}, one tick per action (the source records no seed or tick rate)")
    return True, {"frames": len(public.frames)}, ""


def _answer(task):
    from ..agents.oracle import mfp_answer

    best, misses = mfp_answer(task)
    ok = misses == 0 and best == task.hidden.answer
    return ok, {"simulated": best, "stored": task.hidden.answer, "misses": misses}, (
        "" if ok else "the stored answer is not the option the simulation gives")


def _not_initial(world, task):
    from ..worldtest.scoring import condition_holds

    world.reset()
    held = condition_holds(world.interpreter, task.hidden.condition, autumnbench=True)
    return not held, {}, "the condition already holds on the initial state" if held else ""


def _reachable(world, task):
    from ..agents.oracle import change_path

    path = change_path(world, task.hidden.condition, task.hidden.witness, autumnbench=True)
    if path is None:
        return False, {}, "no action sequence found that makes the condition hold"
    return True, {"actions": len(path), "path": " | ".join(path)}, ""


def _differs(task):
    from ..worldtest.planning import goal_cells
    from ..worldtest.programs import original_world

    frame, _ = original_world(task).reset()
    cells = goal_cells(task.public.mask)
    same = all(frame.grid[y][x] == task.public.goal[y][x] for x, y in cells)
    return not same, {"cells": len(cells)}, "the initial grid already shows the goal" if same \
        else ""


def _renderable(task):
    from ..worldtest.planning import goal_cells

    bad = sorted({task.public.goal[y][x] for x, y in goal_cells(task.public.mask)
                  if task.public.goal[y][x] == "transparent"})
    return not bad, {}, ("a masked goal cell is 'transparent', which no rendered cell ever is"
                         if bad else "")


def _plannable(task):
    from ..agents.search import SearchLimits, search_plan
    from ..worldtest.programs import original_world

    world = original_world(task)
    world.reset()
    result = search_plan(world, task.public.goal, task.public.mask, 500,
                         SearchLimits(max_expanded=20_000))
    if result.plan is None:
        return False, {"expanded": result.expanded}, "no plan found within 500 actions"
    return True, {"plan_length": len(result.plan), "expanded": result.expanded}, ""
