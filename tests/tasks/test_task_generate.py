"""Generation: deterministic, reproduces the shipped files, and builds what the issue asks
for (a dynamic MFP mask with world-made distractors, a masked planning goal, CD programs
beside the worlds that stay out of the registry)."""

from __future__ import annotations

import pytest

from llm_eval.tasks import dump_task, load_task
from llm_eval.tasks.cd import compare
from llm_eval.tasks.generate import generate_task, generate_world, write_world_tasks
from llm_eval.tasks.mfp import MASKED_FRAMES
from llm_eval.tasks.specs import TASK_SPECS
from llm_eval.tasks.trajectory import changed_program_text, make, patch, play
from llm_eval.worlds import world_names, world_spec


def test_every_world_has_a_spec_and_a_change_program():
    assert set(TASK_SPECS) == set(world_names())
    for world in world_names():
        text = changed_program_text(f"changes/{world}.sexp")
        assert "SpecialConditionTriggered" in text
        assert text != world_spec(world).program_text()


def test_change_programs_are_not_registered_worlds():
    assert not any(name.startswith("changes") for name in world_names())
    from llm_eval.suites import load_suite

    assert sorted(world_names()) == sorted({t.world for t in load_suite("v1").tasks})


@pytest.mark.parametrize("world", ["easel", "hunters", "warehouse"])
def test_generation_is_deterministic_and_matches_the_shipped_files(world, tmp_path):
    first = generate_world(world)
    second = generate_world(world)
    assert [dump_task(t) for t in first] == [dump_task(t) for t in second]
    paths = write_world_tasks(world, tmp_path)
    for path, task in zip(paths, first):
        shipped = load_task(task.world, task.family)
        assert path.read_text() == dump_task(shipped), f"{path.name}: regenerate the data"


def test_mfp_task_shape():
    task = generate_task("gravity", "mfp")
    p = task.public
    assert len(p.frames) == len(p.actions) + 1 >= 21
    assert p.masked_from == len(p.frames) - MASKED_FRAMES
    grids = play(make("gravity", task.seed), p.actions)
    truth = patch(grids[-1], p.mask)
    assert p.options[task.hidden.answer] == truth
    assert truth != patch(grids[p.masked_from - 1], p.mask)
    assert task.hidden.option_sources[task.hidden.answer] == "truth"
    world_colours = {c for g in grids for row in g for c in row}
    for option in p.options:
        assert {c for row in option for c in row} <= world_colours


def test_planning_goal_mask_holds_only_cells_the_witness_made():
    task = generate_task("warehouse", "planning")
    cells = {(x, y) for y, row in enumerate(task.public.mask) for x, m in enumerate(row) if m}
    assert {(5, 4), (1, 5)} <= cells
    assert task.public.goal[4][5] == task.public.goal[5][1] == "green"
    assert task.public.horizon >= len(task.hidden.witness)


def test_cd_witness_fires_the_trigger_then_shows_the_change():
    task = generate_task("platformer", "cd")
    c = compare(task, task.hidden.witness)
    assert c.trigger_step is not None
    assert c.first_difference is not None and c.first_difference >= c.trigger_step
    # without the trigger the modified program is the original
    quiet = task.model_copy(update={"hidden": task.hidden.model_copy(update={"trigger": "false"})})
    assert compare(quiet, task.hidden.witness).first_difference is None


def test_unknown_world_or_family():
    with pytest.raises(KeyError, match="no task spec for world 'nowhere'"):
        generate_world("nowhere")
    with pytest.raises(ValueError, match="unknown family 'chess'"):
        generate_task("easel", "chess")


def test_a_world_spec_module_imports_on_its_own():
    """A spec module imports ``specs`` for ``WorldTaskSpec``; importing it first (before
    anything else asked for the specs) must not find a half-made module."""
    import subprocess
    import sys

    code = ("import llm_eval.tasks.world_specs.wander as m\n"
            "from llm_eval.tasks.specs import TASK_SPECS\n"
            "assert m.SPEC is TASK_SPECS['wander']\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr


def test_every_world_spec_is_its_worlds_own_module():
    """One convention: each bundled world's spec is ``world_specs/<world>.py``, and
    ``specs.py`` holds the form and the suites' changes, never a world's spec."""
    import ast
    import pkgutil
    from pathlib import Path

    from llm_eval.tasks import specs, world_specs
    from llm_eval.worlds import world_names

    modules = {m.name for m in pkgutil.iter_modules(world_specs.__path__)}
    assert modules == set(world_names()) == set(specs.TASK_SPECS)
    tree = ast.parse(Path(specs.__file__).read_text())
    built = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call)
             and getattr(n.func, "id", None) == "WorldTaskSpec"]
    assert built == [], f"a world's spec built in specs.py at lines {built}"
