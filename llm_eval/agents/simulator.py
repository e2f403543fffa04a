"""The simulator agent: a difficulty reference from the published study (WORLDTEST.md 6).

It knows the true program, as the oracle does, but looks only ``depth`` actions ahead (6, as
in the published study, where such an agent scored 0.186 on planning and 0.450 overall).
Where the oracle searches until it finds a plan, the simulator searches a bounded tree and
commits to what it saw:

- **Lookahead** (``lookahead``): breadth-first search with state hashing
  (``World.state_key``) from the current state to depth ``min(depth, actions left)``, over the
  arrows, ``noop`` and clicks on every cell holding a non-background colour and on its four
  neighbours (plus, in planning, on the masked goal cells), in that order. Every state it
  generates is tested as it is made; a state already seen in this search is dropped. At most
  ``max_states`` states are generated per search (a count, not a time: the agent is
  deterministic at any load); a branch whose step raises a program error is dropped.
- **interaction**: ``go-to-test`` at once (it needs no experience).
- **MFP**: simulates the recorded actions and picks the option equal to the true patch, like
  the oracle (``oracle.mfp_answer``): the answer is a pure simulation of given actions, which
  needs no lookahead, so depth does not limit it.
- **planning** (receding horizon): search; if a state whose masked cells equal the goal is
  found, play the path to it. Otherwise play the path to the best state generated, ranked by
  goal distance (``search.goal_distance``), then by whether this episode already stood in that
  state (unvisited first), then by depth (shallower first), then by order of generation; then
  search again from there, until the goal is reached or the horizon runs out (it never quits
  early). A plan longer than ``depth`` is found only if the goal distance leads to it.
- **CD** (the modified program and the task's observational condition, which the oracle
  knows too): search for a state where the condition holds; if found, play the path to it,
  pad with ``noop`` until ``declare`` is allowed, declare and submit the frame at which the
  condition first held (T). Otherwise play the path to the generated state that this episode
  has not stood in, with the most cells differing from the current frame (an exploration rule:
  go where things change), then by depth and order, and search again. It never resets and
  never declares a change it has not seen (out of budget it scores 0, not -1).

Under the ``autumnbench`` protocol (observations with ``text`` and ``offered``) it plays the
harness's strings as the oracle does (``oracle_harness``): ``go-to-test``; ``step`` through the
MFP recording, then ``choose_option_K``; the same planning search (the harness's budget as the
horizon); in CD the same search with the condition read as the harness reads it, then
``I found the change!`` and ``Submit choice`` on the next two steps.

The agent keeps its own copy of the world in lock-step with the actions it sends; ``notes``
says when something unexpected happened, ``searches`` and ``states`` count the work.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..autumn import Frame
from ..tasks.models import CDTask, MFPTask, PlanningTask
from ..worlds import World
from ..worldtest.observation import EpisodeStart, Observation
from ..worldtest.programs import ProgramsRoot, modified_world, original_world
from .search import goal_distance

__all__ = ["SimulatorAgent", "Lookahead", "LookaheadResult", "lookahead", "PUBLISHED_DEPTH"]

PUBLISHED_DEPTH = 6
_MOVES = ("left", "right", "up", "down", "noop")
_FOUND, _SUBMIT = "I found the change!", "Submit choice"


@dataclass(frozen=True, slots=True)
class Lookahead:
    """How far the simulator looks: ``depth`` actions, ``max_states`` states per search."""

    depth: int = PUBLISHED_DEPTH
    max_states: int = 1000


@dataclass(frozen=True, slots=True)
class LookaheadResult:
    """``found``: the path to the first state that passed the test (None if none did);
    ``best``: the path to the best-ranked state generated (None if none was); ``states``:
    states generated."""

    found: tuple[str, ...] | None
    best: tuple[str, ...] | None
    states: int


def click_cells(frame: Frame, extra: Sequence[tuple[int, int]] = ()) -> list[str]:
    """Clicks on every non-background cell, its four neighbours and ``extra`` cells
    ((x, y)), row by row."""
    size, background = frame.size, frame.background
    cells = set(extra)
    for y, row in enumerate(frame.grid):
        for x, colour in enumerate(row):
            if colour != background:
                for cx, cy in ((x, y), (x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)):
                    if 0 <= cx < size and 0 <= cy < size:
                        cells.add((cx, cy))
    return [f"click {x} {y}" for x, y in sorted(cells, key=lambda c: (c[1], c[0]))]


def lookahead(world: World, depth: int, max_states: int,
              actions: Callable[[Frame], Sequence[str]],
              test: Callable[[World, Frame], bool],
              rank: Callable[[Frame, tuple, tuple[str, ...]], tuple]) -> LookaheadResult:
    """Breadth-first search with state hashing from ``world``'s current state (module
    docstring); the world is back in that state afterwards. A state is saved only when it is
    expanded (rebuilt from its parent's saved state and its last action)."""
    root = world.snapshot()
    seen = {world.state_key()}
    # (the parent's saved state, the path); the root's parent is the root itself
    layer: list[tuple[object, tuple[str, ...]]] = [(root, ())]
    best: tuple[tuple, tuple[str, ...]] | None = None
    states = 0
    try:
        for level in range(depth):
            following = []
            for parent, path in layer:
                world.restore(parent)
                if path:
                    world.step(path[-1])
                saved = world.snapshot() if path else root
                for action in actions(world.frame):
                    if states >= max_states:
                        return LookaheadResult(None, best and best[1], states)
                    world.restore(saved)
                    try:
                        frame, _, _, _, _ = world.step(action)
                        key = world.state_key()
                    except Exception:   # a program error ends this branch, not the agent
                        continue
                    states += 1
                    if key in seen:
                        continue
                    seen.add(key)
                    child = (*path, action)
                    if test(world, frame):
                        return LookaheadResult(child, child, states)
                    score = (*rank(frame, key, child), states)
                    if best is None or score < best[0]:
                        best = (score, child)
                    if level + 1 < depth:
                        following.append((saved, child))
            layer = following
            if not layer:
                break
        return LookaheadResult(None, best and best[1], states)
    finally:
        world.restore(root)


class SimulatorAgent:
    """Knows the program, looks ``limits.depth`` actions ahead; see the module docstring."""

    name = "simulator"

    def __init__(self, task: MFPTask | CDTask | PlanningTask, *,
                 programs_root: ProgramsRoot | None = None,
                 limits: Lookahead = Lookahead()) -> None:
        self.task = task
        self.programs_root = programs_root
        self.limits = limits
        self.notes: list[str] = []
        self.searches = 0
        self.states = 0
        self._reset_state()

    def _reset_state(self) -> None:
        self._world: World | None = None
        self._queue: deque[str] = deque()
        self._visited: set = set()
        self._played = 0           # world actions sent in the test phase
        self._change: int | None = None   # frame index where the CD condition first held
        self._finished = False

    def reset(self, start: EpisodeStart) -> None:
        self.notes = []
        self.searches = 0
        self.states = 0
        self._reset_state()

    # -- the phases ------------------------------------------------------------------------------
    def act(self, observation: Observation) -> str:
        harness = observation.text is not None
        match observation.phase:
            case "interaction":
                return "go-to-test"
            case "mfp":
                return self._mfp(observation, harness)
            case "planning":
                return self._planning(observation, harness)
            case "cd":
                return self._cd(observation, harness)
        raise ValueError(f"unknown phase {observation.phase!r}")

    def _mfp(self, observation: Observation, harness: bool) -> str:
        from .oracle import mfp_answer

        if harness and not any(a.startswith("choose_option_") for a in observation.offered):
            return "step"
        answer, misses = mfp_answer(self.task)
        if misses:
            self.notes.append(f"no option equals the simulated patch; option {answer} "
                              f"differs in {misses} cell(s)")
        return f"choose_option_{answer}" if harness else f"choose {answer}"

    def _start(self, world: World) -> None:
        world.reset()
        self._world = world
        self._visited = {world.state_key()}

    def _send(self, action: str) -> str:
        """Step the agent's own world with ``action`` (a world action) and return it."""
        world = self._world
        world.step(action)
        self._visited.add(world.state_key())
        self._played += 1
        return action

    def _in_step(self, observation: Observation) -> bool:
        """Whether the phase's frame is the agent's own world's (it should always be)."""
        if observation.frame.grid == self._world.frame.grid:
            return True
        self.notes.append(f"step {observation.step}: the world is not where the simulation "
                          "says; giving up")
        self._finished = True
        return False

    def _search(self, depth: int, extra_clicks, test, rank) -> LookaheadResult:
        result = lookahead(self._world, depth, self.limits.max_states,
                           lambda frame: (*_MOVES, *click_cells(frame, extra_clicks)),
                           test, rank)
        self.searches += 1
        self.states += result.states
        return result

    def _planning(self, observation: Observation, harness: bool) -> str:
        if self._world is None:
            self._start(original_world(self.task))
        quit_action = "quit"
        if self._finished or not self._in_step(observation):
            return quit_action
        if not self._queue:
            left = observation.budget_left
            depth = min(self.limits.depth, left)
            if depth < 1:
                return quit_action
            view = observation.planning
            goal = tuple(tuple(row) for row in view.goal.grid)
            cells = view.goal_cells

            def test(world: World, frame: Frame) -> bool:
                return goal_distance(frame, goal, cells) == 0

            def rank(frame: Frame, key: tuple, path: tuple[str, ...]) -> tuple:
                return goal_distance(frame, goal, cells), key in self._visited, len(path)

            result = self._search(depth, cells, test, rank)
            path = result.found or result.best
            if not path:
                self.notes.append("no action changes the world's state; quitting")
                self._finished = True
                return quit_action
            self._queue.extend(path)
        return self._send(self._queue.popleft())

    def _cd(self, observation: Observation, harness: bool) -> str:
        if self._world is None:
            self._start(modified_world(self.task, self.programs_root))
        hidden = self.task.hidden
        condition = (hidden.condition or hidden.trigger) if harness else hidden.condition
        if self._queue:
            action = self._queue.popleft()
            return self._send(action) if _is_world_action(action) else action
        if self._finished:
            return "noop" if not harness else "quit"
        if not self._in_step(observation):
            return "noop" if not harness else "quit"
        if self._change is not None:      # the condition holds: report it
            return self._report(observation, harness)
        depth = min(self.limits.depth, observation.budget_left - 2)   # room to answer
        if depth < 1:
            self.notes.append("no change found within the budget; not declaring")
            self._finished = True
            return "noop" if not harness else "quit"
        from .oracle_harness import _holds

        current = self._world.frame.grid

        def test(world: World, frame: Frame) -> bool:
            return _holds(world, condition, harness)

        def rank(frame: Frame, key: tuple, path: tuple[str, ...]) -> tuple:
            changed = sum(a != b for row_a, row_b in zip(frame.grid, current)
                          for a, b in zip(row_a, row_b))
            return key in self._visited, -changed, len(path)

        result = self._search(depth, (), test, rank)
        if result.found:
            self._queue.extend(result.found)
            self._change = self._played + len(result.found)
        elif result.best:
            self._queue.extend(result.best)
        else:
            self.notes.append("no action changes the world's state; not declaring")
            self._finished = True
            return "noop" if not harness else "quit"
        return self._send(self._queue.popleft())

    def _report(self, observation: Observation, harness: bool) -> str:
        """Declare and submit once the condition holds (the state the agent stands in)."""
        self._finished = True
        if harness:
            padding = ["noop"] * max(0, 2 - self._played)   # FOUND is accepted from step 3
            self._queue.extend([*padding, _FOUND, _SUBMIT])
        else:
            declare_after = observation.cd.declare_after
            padding = ["noop"] * max(0, declare_after - observation.cd.run_steps)
            self._queue.extend([*padding, "declare", f"submit {self._change}"])
        action = self._queue.popleft()
        return self._send(action) if _is_world_action(action) else action


def _is_world_action(action: str) -> bool:
    return action in _MOVES or action.startswith("click ")
