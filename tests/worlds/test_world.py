"""The World contract: reset/step, info, invalid actions, seeds, render modes, errors."""

from __future__ import annotations

import random

import pytest
from world_programs import DOT, FAILS_ON_UP, RANDOM_DOT, dot_grid

from llm_eval.actions import Action
from llm_eval.autumn import Frame
from llm_eval.errors import AutumnRuntimeError, AutumnSeedError, AutumnSyntaxError
from llm_eval.render import RenderError, parse_compact, parse_png
from llm_eval.worlds import ActionSpace, RuleCoverage, World, WorldStateError


@pytest.fixture
def world() -> World:
    w = World(DOT, name="dot", seed=3)
    w.reset()
    return w


def test_reset_returns_the_initial_frame_and_info() -> None:
    world = World(DOT, name="dot")
    frame, info = world.reset(seed=5)
    assert isinstance(frame, Frame) and frame.grid == dot_grid(0, 1)
    assert info["frame"] is frame and info["step"] == 0 and info["action"] is None
    assert info["coverage"] == RuleCoverage(0, 3, (False, False, False), (5, 6, 7))
    assert info["invalid_actions"] == 0 and "triggered" not in info
    assert world.seed == 5 and world.size == 3


def test_step_returns_the_gymnasium_five_tuple(world: World) -> None:
    frame, reward, terminated, truncated, info = world.step("right")
    assert frame.grid == dot_grid(1, 1)
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert info["frame"] is frame and info["step"] == 1 and info["action"] == "right"
    assert info["coverage"].fired == (True, False, False) and info["coverage"].covered == 1
    frame, *_ , info = world.step(Action.click(2, 0))
    assert frame.grid == dot_grid(2, 0) and info["action"] == "click 2 0"
    assert info["coverage"].covered == 2 and world.steps == 2


def test_coverage_follows_restores_and_reloads(world: World) -> None:
    """The coverage is made again only when a clause's state changed, and a restore or a
    reset to a state with fewer fired clauses shows the fewer."""
    start = world.snapshot()
    first = world.coverage()
    assert world.coverage() is first          # nothing fired since: the same object
    world.step("right")
    after = world.coverage()
    assert after.fired == (True, False, False) and world.step("right")[4]["coverage"] is after
    world.restore(start)
    assert world.coverage() == first and world.coverage().covered == 0
    world.step(Action.click(2, 0))
    assert world.coverage().fired == (False, False, True)
    world.reset()
    assert world.coverage().covered == 0
    world.program = DOT.replace("  (on left", "\n  (on left")   # its clauses a line lower
    world.reset()
    assert world.coverage().lines == (5, 7, 8)


@pytest.mark.parametrize("action, message", [
    ("click 3 0", "click 3 0 is outside the 3x3 grid: x and y must be between 0 and 2"),
    ("click -1 2", "click -1 2 is outside the 3x3 grid"),
    ("jump", "unknown action 'jump'; expected one of: click X Y, left, right, up, down, noop"),
    ("click 1", "click takes two integers"),
    ("left 2", "left takes no arguments"),
    ("", "empty action"),
    (Action.click(0, 9), "click 0 9 is outside the 3x3 grid"),
    (42, "an action must be text or an Action, got int"),
])
def test_invalid_actions_do_not_tick_and_are_counted(world: World, action: object,
                                                    message: str) -> None:
    before = world.frame
    frame, reward, terminated, truncated, info = world.step(action)  # type: ignore[arg-type]
    assert frame is before and (reward, terminated, truncated) == (0.0, False, False)
    assert message in info["invalid_action"]
    assert info["invalid_actions"] == 1 and world.invalid_actions == 1
    assert world.steps == 0 and info["step"] == 0 and world.interpreter.steps == 0
    world.step("right")  # the world still works
    assert world.frame.grid == dot_grid(1, 1)


def test_invalid_action_count_survives_resets(world: World) -> None:
    world.step("fly")
    world.reset()
    _, _, _, _, info = world.step("click 9 9")
    assert info["invalid_actions"] == 2 and world.resets == 2


def test_reset_restarts_and_same_seed_gives_same_frames() -> None:
    world = World(RANDOM_DOT, name="random", seed=11)
    rng = random.Random(4)
    world.reset()
    space = world.action_space
    actions = [space.sample(rng) for _ in range(30)]
    first = [world.step(a)[0] for a in actions]
    world.reset()
    again = [world.step(a)[0] for a in actions]
    assert first == again
    world.reset(seed=12)
    other = [world.step(a)[0] for a in actions]
    assert other != first
    assert world.seed == 12 and world.steps == 30


def test_reset_without_seed_keeps_the_current_seed() -> None:
    world = World(RANDOM_DOT, seed=9)
    world.reset(seed=21)
    a = [world.step("noop")[0] for _ in range(10)]
    world.reset()
    assert world.seed == 21 and [world.step("noop")[0] for _ in range(10)] == a


def test_ticks_per_action_shows_every_intermediate_frame() -> None:
    world = World(RANDOM_DOT, seed=5, ticks_per_action=3)
    world.reset()
    frame, *_, info = world.step("noop")
    assert len(info["frames"]) == 3 and info["frames"][-1] is frame
    assert world.steps == 1 and world.interpreter.steps == 3
    with pytest.raises(ValueError, match="ticks_per_action must be a positive integer"):
        World(DOT, ticks_per_action=0)


def test_trigger_state_is_reported() -> None:
    world = World(DOT, trigger="== (.. (.. dot origin) x) 1")
    _, info = world.reset()
    assert info["triggered"] is False
    assert world.step("right")[4]["triggered"] is False  # evaluated before the tick
    assert world.step("noop")[4]["triggered"] is True


def test_render_modes(world: World) -> None:
    assert World(DOT).render() is None
    compact = World(DOT, render_mode="compact")
    compact.reset()
    assert parse_compact(compact.render()) == compact.frame
    png = World(DOT, render_mode="png")
    png.reset()
    assert parse_png(png.render()) == png.frame
    diff = World(DOT, render_mode="diff")
    diff.reset()
    assert diff.render().startswith("legend: ")  # nothing to compare with yet
    diff.step("right")
    assert diff.render() == "2 cells changed (x,y):\nred -> black: (0,1)\nblack -> red: (1,1)"
    json_world = World(DOT, render_mode="json")
    json_world.reset()
    assert json_world.render().startswith('[["black", "black", "black"], ["red"')
    ansi = World(DOT, render_mode="ansi")
    ansi.reset()
    assert "\x1b[48;2;255;0;0m" in ansi.render()
    with pytest.raises(RenderError, match="did you mean 'png'"):
        World(DOT, render_mode="pnf")


def test_stepping_before_reset_or_after_close_is_a_state_error() -> None:
    world = World(DOT, name="dot")
    with pytest.raises(WorldStateError, match="call reset"):
        world.step("noop")
    world.reset()
    world.close()
    with pytest.raises(WorldStateError, match="closed"):
        world.step("noop")
    with pytest.raises(WorldStateError, match="closed"):
        world.reset()


def test_program_errors_are_typed_and_name_the_file() -> None:
    with pytest.raises(AutumnSyntaxError) as caught:
        World("(program (= GRID_SIZE 3)", path="broken.sexp").reset()
    assert "broken.sexp" in str(caught.value)
    world = World(FAILS_ON_UP, path="fails.sexp")
    world.reset()
    with pytest.raises(AutumnRuntimeError, match=r"fails\.sexp:5"):
        world.step("up")
    world.reset()  # a reset repairs the world
    assert world.step("noop")[0].grid == dot_grid(0, 1)


@pytest.mark.parametrize("seed", [0, 2**32, -3])
def test_refused_seeds(seed: int) -> None:
    with pytest.raises(AutumnSeedError):
        World(DOT, seed=seed).reset()


def test_action_space() -> None:
    space = ActionSpace(4)
    assert space.contains("click 3 3") and not space.contains("click 4 0")
    assert space.contains(Action("noop")) and not space.contains("wait")
    rng = random.Random(1)
    drawn = [space.sample(rng) for _ in range(600)]
    kinds = {a.kind for a in drawn}
    assert kinds == {"click", "left", "right", "up", "down", "noop"}
    clicks = [a for a in drawn if a.kind == "click"]
    assert all(space.contains(a) for a in clicks)
    assert {a.x for a in clicks} == {0, 1, 2, 3} == {a.y for a in clicks}
    assert space.describe() == "click X Y (0 <= X, Y <= 3), left, right, up, down, noop"


@pytest.mark.parametrize("name", ["hunters", "warehouse", "sparks", "automaton"])
def test_a_reset_with_the_same_seed_plays_exactly_like_a_fresh_load(name: str) -> None:
    """A later reset restores the loaded state in the same interpreter instead of loading
    again: every frame, the trigger and the coverage are what a brand-new world gives, even
    after a run that changed everything (and for a stochastic world, its random stream)."""
    from llm_eval.worlds import world_spec

    spec = world_spec(name)
    rng = random.Random(name)
    runs = [[ActionSpace(spec.size).sample(rng) for _ in range(40)] for _ in range(3)]

    def frames(world: World, actions) -> list:
        return [world.reset()[0], *(world.step(a)[0] for a in actions)] + [
            world.coverage(), world.interpreter.steps]

    reused = spec.make(seed=3, trigger="> 0 1")
    for actions in runs:
        fresh = spec.make(seed=3, trigger="> 0 1")
        loaded_by = reused.interpreter if reused.resets else None
        assert frames(reused, actions) == frames(fresh, actions)
        assert loaded_by is None or reused.interpreter is loaded_by   # restored, not reloaded
    assert frames(reused, runs[0]) != frames(spec.make(seed=4), runs[0]) or not spec.stochastic


def test_a_broken_world_is_repaired_by_a_reset_that_restores() -> None:
    world = World(FAILS_ON_UP, path="fails.sexp")
    world.reset()
    interpreter = world.interpreter
    with pytest.raises(AutumnRuntimeError):
        world.step("up")
    world.reset()
    assert world.interpreter is interpreter and world.step("noop")[0].grid == dot_grid(0, 1)


def test_an_expression_evaluated_again_reads_the_current_state() -> None:
    """``evaluate`` keeps an expression's compiled code; the value is always today's."""
    world = World(DOT, seed=2)
    world.reset()
    expr = ".. (.. dot origin) x"
    assert world.interpreter.evaluate(expr) == 0
    world.step("right")
    assert world.interpreter.evaluate(expr) == 1
    world.reset()
    assert world.interpreter.evaluate(expr) == 0
