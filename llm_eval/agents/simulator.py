"""The simulator agent: a difficulty reference from the published study (docs/spec/worldtest.md 6).

It knows the true program and the current state, as a perfect world-model learner could, but
not the random draws still to come, and it looks only ``depth`` actions ahead (6, as in the
published study, where such an agent scored 0.186 on planning and 0.450 overall). Where the
oracle (which knows everything, dice included) searches until it finds a plan, the simulator
searches a bounded tree against a sampled future and commits to what it saw while the world
behaves as sampled:

- **Its own dice** (docs/suite-v2.md): before every search it gives its copy of the world a
  generator state of its own (``tasks.dice.redraw``), drawn from a ``random.Random`` seeded
  by the task's id, so every search sees one sampled future, never the real draws; its copy
  then goes back to the real state. The agent is deterministic for a task (its own seeded
  draws, counted work, no clock). In a deterministic world the sampled future is the future,
  so it behaves as before.
- **Lookahead** (``lookahead``): breadth-first search with state hashing
  (``World.state_key``) from the current state to depth ``min(depth, actions left)``, over the
  arrows, ``noop`` and clicks on every cell holding a non-background colour and on its four
  neighbours (plus, in planning, on the masked goal cells), in that order. Every state it
  generates is tested as it is made; a state already seen in this search is dropped. At most
  ``max_states`` states are generated per search (a count, not a time: the agent is
  deterministic at any load); a branch whose step raises a program error is dropped.
- **Replanning**: the path found is played while each real frame is the one the sampled
  future predicted; the first frame that differs (the draws went otherwise) drops the rest of
  the path, and the agent searches again from the state it now stands in.
- **interaction**: ``go-to-test`` at once (it needs no experience).
- **MFP**: replays the recorded actions up to the last shown frame (it knows that state),
  samples ``mfp_samples`` futures of the masked steps with its own draws and picks the option
  produced most often (the lowest index among ties; when no sample equals any option, the
  option closest to the samples cell by cell). Depth does not limit it.
- **planning** (receding horizon): search; if a state whose masked cells equal the goal is
  found, play the path to it. Otherwise play the path to the best state generated, ranked by
  goal distance (``search.goal_distance``), then by whether this episode already stood in that
  state (unvisited first; states compared without the generator), then by depth (shallower
  first), then by order of generation; then search again, until the goal is reached or the
  horizon runs out (it never quits early). A plan longer than ``depth`` is found only if the
  goal distance leads to it.
- **CD** (the modified program and the task's observational condition, which the oracle
  knows too): search for a state where the condition holds in the sampled future; play the
  path to it, evaluating the condition on the real state after every action. Once it holds,
  pad with ``noop`` until ``declare`` is allowed, declare and submit the frame at which it
  first held (T). Without a state where it holds, play the path to the generated state that
  this episode has not stood in, with the most cells differing from the current frame (an
  exploration rule: go where things change), then by depth and order, and search again. It
  never resets and never declares a change it has not seen (out of budget it scores 0, not
  -1).

Under the ``autumnbench`` protocol (observations with ``text`` and ``offered``) it plays the
harness's strings as the oracle does (``oracle.autumnbench``): ``go-to-test``; ``step`` through the
MFP recording, then ``choose_option_K``; the same planning search (the harness's budget as the
horizon); in CD the same search with the condition read as the harness reads it, then
``I found the change!`` and ``Submit choice`` on the next two steps.

The agent keeps its own copy of the world in lock-step with the actions it sends (that is how
it knows the current state); ``notes`` says when something unexpected happened, ``searches``
and ``states`` count the work.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..autumn import Frame
from ..tasks.dice import RNG_MODULUS, mfp_patches, redraw, stream_seed
from ..tasks.models import CDTask, MFPTask, PlanningTask
from ..worlds import World
from ..worlds.world import WorldSnapshot
from ..worldtest.observation import EpisodeStart, Observation
from ..worldtest.programs import ProgramsRoot, modified_world, original_world
from ..worldtest.protocols import protocol as protocol_profile
from .search import goal_distance

__all__ = ["SimulatorAgent", "Lookahead", "LookaheadResult", "lookahead", "PUBLISHED_DEPTH"]

PUBLISHED_DEPTH = 6
_MOVES = ("left", "right", "up", "down", "noop")
_FOUND, _SUBMIT = "I found the change!", "Submit choice"


@dataclass(frozen=True, slots=True)
class Lookahead:
    """How far the simulator looks: ``depth`` actions, ``max_states`` states per search;
    ``mfp_samples`` sampled futures for an MFP answer."""

    depth: int = PUBLISHED_DEPTH
    max_states: int = 1000
    mfp_samples: int = 100


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
    layer: list[tuple[WorldSnapshot, tuple[str, ...]]] = [(root, ())]
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


def _without_dice(key: tuple) -> tuple:
    """A state's key (``World.state_key``: the generator's state, then the program's values)
    without the generator, so that a state the agent stood in is recognised in a search that
    runs on its own draws."""
    return key[1:]


class Planner:
    """The search-and-commit loop of the simulator on ``world`` (the agent's copy, which it
    steps with every action it sends): searches on its own draws (``dice``), plans of
    ``(action, predicted grid)`` dropped when a real frame differs from the prediction.
    Validation runs it too (``tasks.validate``: planning without the dice)."""

    def __init__(self, world: World, limits: Lookahead, dice: random.Random) -> None:
        self.world = world
        self.limits = limits
        self.dice = dice
        # each action with the grid it is expected to give (None: not known)
        self.plan: deque[tuple[str, tuple[tuple[str, ...], ...] | None]] = deque()
        self.visited = {_without_dice(world.state_key())}
        self.played = 0
        self.searches = 0
        self.states = 0

    def search(self, depth: int, extra_clicks, test, rank) -> LookaheadResult:
        """``lookahead`` from the current state against one sampled future; the path found
        (or the best one) becomes the plan, with the frames the sample predicts."""
        world = self.world
        real = world.snapshot()
        redraw(world, self.dice.randrange(1, RNG_MODULUS))
        try:
            result = lookahead(world, depth, self.limits.max_states,
                               lambda frame: (*_MOVES, *click_cells(frame, extra_clicks)),
                               test, rank)
            path = result.found or result.best or ()
            predicted = []
            for action in path:        # the sampled future along the path
                frame, _, _, _, _ = world.step(action)
                predicted.append(frame.grid)
        finally:
            world.restore(real)
        self.searches += 1
        self.states += result.states
        self.plan = deque(zip(path, predicted))
        return result

    def send(self) -> str:
        """Play the plan's next action on the agent's world; a frame other than the predicted
        one drops the rest of the plan."""
        action, expected = self.plan.popleft()
        frame, _, _, _, _ = self.world.step(action)
        self.visited.add(_without_dice(self.world.state_key()))
        self.played += 1
        if expected is not None and frame.grid != expected:
            self.plan.clear()
        return action

    def planning_action(self, budget_left: int, goal, cells) -> str | None:
        """The next action towards ``goal`` on ``cells``, or None (nothing left to try)."""
        if not self.plan:
            depth = min(self.limits.depth, budget_left)
            if depth < 1:
                return None

            def test(world: World, frame: Frame) -> bool:
                return goal_distance(frame, goal, cells) == 0

            def rank(frame: Frame, key: tuple, path: tuple[str, ...]) -> tuple:
                return (goal_distance(frame, goal, cells), _without_dice(key) in self.visited,
                        len(path))

            self.search(depth, cells, test, rank)
            if not self.plan:
                return None
        return self.send()


class SimulatorAgent:
    """Knows the program and the current state, not the dice; looks ``limits.depth`` actions
    ahead; see the module docstring."""

    name = "simulator"

    def __init__(self, task: MFPTask | CDTask | PlanningTask, *,
                 programs_root: ProgramsRoot | None = None,
                 limits: Lookahead = Lookahead()) -> None:
        self.task = task
        self.programs_root = programs_root
        self.limits = limits
        self.notes: list[str] = []
        self._autumnbench = False   # the episode's protocol shows the harness's text (reset)
        self._searches = 0
        self._states = 0
        self._reset_state()

    @property
    def searches(self) -> int:
        return self._searches + (self._planner.searches if self._planner else 0)

    @property
    def states(self) -> int:
        return self._states + (self._planner.states if self._planner else 0)

    def _reset_state(self) -> None:
        self._dice = random.Random(stream_seed(self.task.id, "simulator"))
        self._planner: Planner | None = None
        self._queue: deque[str] = deque()      # the answer: padding, declare and submit
        self._change: int | None = None   # frame index where the CD condition first held
        self._finished = False

    def reset(self, start: EpisodeStart) -> None:
        self._autumnbench = protocol_profile(start.protocol).shows_harness_text
        self.notes = []
        self._searches = 0
        self._states = 0
        self._reset_state()

    # -- the phases ------------------------------------------------------------------------------
    def act(self, observation: Observation) -> str:
        autumnbench = self._autumnbench
        match observation.phase:
            case "interaction":
                return "go-to-test"
            case "mfp":
                return self._mfp(observation, autumnbench)
            case "planning":
                return self._planning(observation, autumnbench)
            case "cd":
                return self._cd(observation, autumnbench)
        raise ValueError(f"unknown phase {observation.phase!r}")

    def _mfp(self, observation: Observation, autumnbench: bool) -> str:
        if autumnbench and not any(a.startswith("choose_option_") for a in observation.offered):
            return "step"
        answer = self.mfp_answer()
        return f"choose_option_{answer}" if autumnbench else f"choose {answer}"

    def mfp_answer(self) -> int:
        """The option most often produced by ``mfp_samples`` futures on the agent's own
        draws (module docstring)."""
        task = self.task
        if not isinstance(task, MFPTask):
            raise ValueError(f"task {task.id!r} is not a masked-frame task")
        world = original_world(task)
        world.reset()
        states = [self._dice.randrange(1, RNG_MODULUS) for _ in range(self.limits.mfp_samples)]
        samples = mfp_patches(task, states, world)
        options = task.public.options
        counts = [sum(s == o for s in samples) for o in options]
        if max(counts) > 0:
            return max(range(len(options)), key=lambda i: (counts[i], -i))
        misses = [sum(a != b for s in samples for row_s, row_o in zip(s, o)
                      for a, b in zip(row_s, row_o)) for o in options]
        self.notes.append("no sampled future equals an option; answering the closest")
        return min(range(len(options)), key=lambda i: (misses[i], i))

    def _start(self, world: World) -> Planner:
        world.reset()
        self._planner = Planner(world, self.limits, self._dice)
        return self._planner

    def _require_planner(self) -> Planner:
        """The planner of the agent's own world (started by the test phase's first action)."""
        if self._planner is None:
            raise RuntimeError("the simulator's world is not started: no test phase has begun")
        return self._planner

    def _in_step(self, observation: Observation) -> bool:
        """Whether the phase's frame is the agent's own world's (it should always be)."""
        if observation.frame.grid == self._require_planner().world.frame.grid:
            return True
        self.notes.append(f"step {observation.step}: the world is not where the simulation "
                          "says; giving up")
        self._finished = True
        return False

    def _planning(self, observation: Observation, autumnbench: bool) -> str:
        planner = self._planner or self._start(original_world(self.task))
        quit_action = "quit"
        if self._finished or not self._in_step(observation):
            return quit_action
        view = observation.planning_view
        goal = tuple(tuple(row) for row in view.goal.grid)
        action = planner.planning_action(observation.budget_left, goal, view.goal_cells)
        if action is None:
            if observation.budget_left >= 1:
                self.notes.append("no action changes the world's state; quitting")
            self._finished = True
            return quit_action
        return action

    def _cd(self, observation: Observation, autumnbench: bool) -> str:
        task = self.task
        if not isinstance(task, CDTask):
            raise ValueError(f"task {task.id!r} is not a change-detection task")
        planner = self._planner or self._start(modified_world(task, self.programs_root))
        hidden = task.hidden
        condition = (hidden.condition or hidden.trigger) if autumnbench else hidden.condition
        if condition is None:   # the test phase refuses such a task before it asks an action
            raise ValueError(f"task {task.id!r} has no condition (hidden.condition)")
        if self._queue:
            action = self._queue.popleft()
            return self._step(action) if _is_world_action(action) else action
        if self._finished:
            return "noop" if not autumnbench else "quit"
        if not self._in_step(observation):
            return "noop" if not autumnbench else "quit"
        if self._change is not None:      # the condition holds: report it
            return self._report(observation, autumnbench)
        from .oracle.solver import condition_met as _holds

        if not planner.plan:
            depth = min(self.limits.depth, observation.budget_left - 2)   # room to answer
            if depth < 1:
                self.notes.append("no change found within the budget; not declaring")
                self._finished = True
                return "noop" if not autumnbench else "quit"
            current = planner.world.frame.grid

            def test(world: World, frame: Frame) -> bool:
                return _holds(world, condition, autumnbench)

            def rank(frame: Frame, key: tuple, path: tuple[str, ...]) -> tuple:
                changed = sum(a != b for row_a, row_b in zip(frame.grid, current)
                              for a, b in zip(row_a, row_b))
                return _without_dice(key) in planner.visited, -changed, len(path)

            planner.search(depth, (), test, rank)
            if not planner.plan:
                self.notes.append("no action changes the world's state; not declaring")
                self._finished = True
                return "noop" if not autumnbench else "quit"
        action = planner.send()
        if _holds(planner.world, condition, autumnbench):   # seen on the real state
            self._change = planner.played
            planner.plan.clear()
        return action

    def _step(self, action: str) -> str:
        """A world action of the answer (padding): stepped on the agent's world too."""
        planner = self._require_planner()
        planner.plan = deque([(action, None)])
        return planner.send()

    def _report(self, observation: Observation, autumnbench: bool) -> str:
        """Declare and submit once the condition holds (the state the agent stands in)."""
        self._finished = True
        played = self._require_planner().played
        if autumnbench:
            padding = ["noop"] * max(0, 2 - played)   # FOUND is accepted from step 3
            self._queue.extend([*padding, _FOUND, _SUBMIT])
        else:
            view = observation.cd_view
            padding = ["noop"] * max(0, view.declare_after - view.run_steps)
            self._queue.extend([*padding, "declare", f"submit {self._change}"])
        action = self._queue.popleft()
        return self._step(action) if _is_world_action(action) else action


def _is_world_action(action: str) -> bool:
    return action in _MOVES or action.startswith("click ")
