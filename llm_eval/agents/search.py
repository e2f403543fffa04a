"""The oracle's planner: best-first search over world actions with state hashing.

``search_plan(world, goal, mask, horizon)`` starts from the world's current state (the planning
test's initial state) and looks for an action sequence of at most ``horizon`` actions after
which every masked cell equals the goal. It never changes the world's state for good (it
restores the start before returning).

- **States** are recognised by ``World.state_key()`` (a fingerprint of the whole program state,
  random generator included), so a state reached twice is expanded once, from its shortest
  path. States are saved with ``World.snapshot()`` only when they are expanded; a child is
  rebuilt from its parent's snapshot when its turn comes.
- **Priority** (best-first width search): first the *novelty* of a state's frame among the
  states with the same h (1: it shows a changed cell, i.e. a (cell, colour) differing from
  the start, never seen before; 2: a new pair of changed cells; 3: neither), then h, then g
  (actions so far). h is the sum over masked cells that do not match of the Manhattan
  distance to the nearest cell that already has the goal colour (``2 * size`` when none
  has), which rewards moving the right thing towards the right place, not only getting
  cells right. Novelty carries the search across plateaus of h (a crate that must be pushed
  before any masked cell changes).
- **Actions** grow in stages, because clicks multiply the branching factor: (1) the arrows,
  ``noop`` and the macro "wait" (noops until the state stops changing, checking the goal on
  the way); (2) also clicks on the masked cells; (3) also clicks on every cell holding a
  non-background colour and on its four neighbours (in the state being expanded). The three
  stages are separate searches run side by side, the one that has simulated the fewest
  ticks expanding next, so a goal that needs clicks does not wait for the move-only search to give
  up.
- **Shared transitions**: the three stages start from the same state and all try the moves
  (stages 2 and 3 also the mask clicks), so they meet the same (state, action) pairs. What a
  pair gives (the child's state hash, its h and its changed cells) is kept once for all stages
  (``_Transitions``) and a stage that meets the pair again takes it from there instead of
  restoring the parent and stepping: the same children, the same order, the same plan, with a
  fraction of the simulation. The world is restored only when it is not already in the parent's
  state. Each pair still counts one simulated tick for the balancing of the stages, so which
  stage expands next is as before.
- **Clicks no query catches**: the noop of each expanded state is probed
  (``Interpreter.begin_click_probe``); a click outside the cells its ``clicked`` queries
  render to ticks as the noop did (the same frame and state key), so its child is the noop's,
  taken without restoring and stepping. The same children in the same order: the same plan and
  counts.
- **Limits** (``SearchLimits``): states expanded, over all stages (a count, never a time, so
  a search gives the same result on every machine and at any load); saved states kept at
  once (older ones are dropped and rebuilt by replay when needed).

Measured on the 12 shipped planning tasks: every one solved, the hardest (warehouse) after
449 expansions, in about 4 s of CPU; the default budget of 5,000 expansions is 11 times that,
and a search that cannot succeed gives up after one to a few minutes of CPU. The search is
deterministic for a world, seed and goal: stages are balanced on simulated ticks, and it
stops on the expansion count.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from ..autumn import Frame
from ..worlds import World
from ..worlds.world import WorldSnapshot

__all__ = ["SearchLimits", "SearchResult", "search_plan", "goal_distance", "STAGES"]

STAGES = ("moves", "mask clicks", "all clicks")
_MOVES = ("left", "right", "up", "down", "noop")
# pairs of changed cells are tracked only for frames with at most this many changed cells
_MAX_PAIR_ATOMS = 40
# the longest "wait" macro action (noops in a row)
_MAX_WAIT = 12
_WAIT_TRIALS = 20


@dataclass(frozen=True, slots=True)
class SearchLimits:
    """Bounds of one search: states expanded (over all stages) and saved states kept. Both
    are counts, so where a search stops does not depend on the machine or its load."""

    max_expanded: int = 5_000
    max_snapshots: int = 3_000


@dataclass(frozen=True, slots=True)
class SearchResult:
    """A plan (None when none was found within the limits) and what the search cost."""

    plan: tuple[str, ...] | None
    stage: str | None
    expanded: int
    generated: int
    shared: int = 0      # children taken from another stage's transitions (not simulated)

    @property
    def found(self) -> bool:
        return self.plan is not None


def goal_distance(frame: Frame, goal: Sequence[Sequence[str]],
                  cells: Sequence[tuple[int, int]]) -> int:
    """The heuristic h: 0 exactly when every cell in ``cells`` matches ``goal``."""
    grid = frame.grid
    size = len(grid)
    wrong = [(x, y) for x, y in cells if grid[y][x] != goal[y][x]]
    if not wrong:
        return 0
    wanted = {goal[y][x] for x, y in wrong}
    where: dict[str, list[tuple[int, int]]] = {c: [] for c in wanted}
    for y, row in enumerate(grid):
        for x, colour in enumerate(row):
            bucket = where.get(colour)
            if bucket is not None:
                bucket.append((x, y))
    total = 0
    for x, y in wrong:
        spots = where[goal[y][x]]
        total += min((abs(px - x) + abs(py - y) for px, py in spots), default=2 * size)
    return total


def _clicks(frame: Frame, stage: int, mask_cells: tuple[tuple[int, int], ...]) -> list[str]:
    if stage == 0:
        return []
    cells = set(mask_cells)
    if stage == 2:
        size, background = frame.size, frame.background
        for y, row in enumerate(frame.grid):
            for x, colour in enumerate(row):
                if colour != background:
                    for nx, ny in ((x, y), (x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                        if 0 <= nx < size and 0 <= ny < size:
                            cells.add((nx, ny))
    return [f"click {x} {y}" for x, y in sorted(cells, key=lambda c: (c[1], c[0]))]


def _caught_nowhere(catching: frozenset[tuple[int, int]] | None, action: str) -> bool:
    """Whether a click (``action``) lands outside ``catching``, the cells where a click can
    change its state's tick (None: it may anywhere)."""
    if catching is None:
        return False
    _, x, y = action.split()
    return (int(x), int(y)) not in catching


class _Snapshots:
    """Saved states of expanded nodes, at most ``cap`` of them (oldest dropped first; the root
    is kept). A node without one is rebuilt by replaying actions from its nearest saved
    ancestor."""

    __slots__ = ("world", "saved", "cap", "parents", "actions")

    def __init__(self, world: World, root: WorldSnapshot, cap: int, parents: list[int],
                 actions: list[tuple[str, ...]]) -> None:
        self.world = world
        self.saved: dict[int, WorldSnapshot] = {0: root}
        self.cap = cap
        self.parents = parents
        self.actions = actions

    def load(self, node: int) -> Frame:
        """Put the world in ``node``'s state (saving it); returns its frame."""
        saved = self.saved.get(node)
        if saved is not None:
            return self.world.restore(saved)
        path: list[str] = []
        ancestor = node
        while ancestor not in self.saved:
            path[:0] = self.actions[ancestor]
            ancestor = self.parents[ancestor]
        frame = self.world.restore(self.saved[ancestor])
        for action in path:
            frame, _, _, _, _ = self.world.step(action)
        self.saved[node] = self.world.snapshot()
        if len(self.saved) > self.cap:
            oldest = next(k for k in self.saved if k != 0)
            del self.saved[oldest]
        return frame


def _changed_cells(grid, root) -> tuple[tuple[int, int, str], ...]:
    """The (x, y, colour) of every cell of ``grid`` whose colour differs from ``root``'s."""
    return tuple((x, y, colour) for y, (row, base) in enumerate(zip(grid, root))
                 if row != base for x, colour in enumerate(row) if colour != base[x])


class _Transitions:
    """What each (state, action) pair met by a search gives, shared by its stages: the
    child's state hash, its h and its changed cells (a small tuple, not the frame). Only
    the actions more than one stage tries are kept (the moves and the mask clicks)."""

    __slots__ = ("known", "hits", "shared", "quiet")

    def __init__(self, shared: frozenset[str]) -> None:
        self.known: dict[tuple[int, str], tuple[int, int, tuple]] = {}
        self.hits = 0
        self.shared = shared
        # per state hash, the cells where a click can change its tick (None: any click may),
        # from its noop's probe (Interpreter.end_click_probe)
        self.quiet: dict[int, frozenset[tuple[int, int]] | None] = {}


class _StageSearch:
    """Best-first width search with one stage's actions; ``expand`` does one expansion."""

    def __init__(self, world: World, root, goal, cells, horizon: int, stage: int,
                 max_snapshots: int, transitions: _Transitions | None = None) -> None:
        self.world = world
        self.goal = goal
        self.cells = cells
        self.horizon = horizon
        self.stage = stage
        self.parents: list[int] = [-1]
        self.actions: list[tuple[str, ...]] = [()]
        self.depth: list[int] = [0]
        self.snapshots = _Snapshots(world, root, max_snapshots, self.parents, self.actions)
        frame = world.restore(root)
        root_key = hash(world.state_key())
        self.seen: dict[int, int] = {root_key: 0}
        self.keys: list[int] = [root_key]     # each node's state hash
        self.transitions = transitions or _Transitions(frozenset())
        h = goal_distance(frame, goal, cells)
        self.root_grid = frame.grid
        self.atoms: dict[int, tuple[set, set]] = {}
        self.frontier: list[tuple[int, int, int, int]] = [(1, h, 0, 0)]
        self.expanded = 0
        self.generated = 0
        self.work = 0          # world ticks simulated: what the stages are balanced on
        self.plan: tuple[str, ...] | None = None
        self.settled_waits = 0
        self.unsettled_waits = 0

    @property
    def exhausted(self) -> bool:
        return not self.frontier

    def _novelty(self, atoms: tuple[tuple[int, int, str], ...], h: int) -> int:
        """1 if a frame's changed cells ``atoms`` (cells whose colour differs from the start)
        hold one never seen among states with the same h, 2 if they hold a new pair of
        changed cells, else 3 (width-based novelty, as in best-first width search)."""
        singles, pairs = self.atoms.setdefault(h, (set(), set()))
        before = len(singles)
        singles.update(atoms)
        if len(singles) > before:
            novelty = 1
        else:
            novelty = 3
        if len(atoms) <= _MAX_PAIR_ATOMS:
            before = len(pairs)
            pairs.update(combinations(atoms, 2))
            if novelty == 3 and len(pairs) > before:
                novelty = 2
        return novelty

    def _plan_of(self, node: int) -> tuple[str, ...]:
        out: list[str] = []
        while node > 0:
            out[:0] = self.actions[node]
            node = self.parents[node]
        return tuple(out)

    def expand(self) -> None:
        """Pop the best node and generate its children; sets ``plan`` on success."""
        world, depth = self.world, self.depth
        while self.frontier:
            _, _, g, node = heapq.heappop(self.frontier)
            if g == depth[node] and g < self.horizon:
                break
        else:
            return
        frame = self.snapshots.load(node)
        saved = self.snapshots.saved.get(node) or world.snapshot()
        self.expanded += 1
        transitions = self.transitions
        known, shared, parent = transitions.known, transitions.shared, self.keys[node]
        at_parent = True           # the world is in the node's state until it steps
        interpreter = world.interpreter
        for action in (*_MOVES, *_clicks(frame, self.stage, self.cells)):
            self.work += 1
            child: tuple[int, int, tuple] | tuple[int, Frame] | None = known.get((parent, action))
            if child is not None:
                transitions.hits += 1
            elif action[0] == "c" and _caught_nowhere(transitions.quiet.get(parent), action):
                # a click no `clicked` query catches ticks as the noop did (the noop, a move,
                # came first: its child is known)
                child = known[(parent, "noop")]
                if action in shared:
                    known[(parent, action)] = child
            else:
                if not at_parent:
                    world.restore(saved)
                if action == "noop":
                    interpreter.begin_click_probe()
                    child_frame, _, _, _, _ = world.step(action)
                    transitions.quiet[parent] = interpreter.end_click_probe()
                else:
                    child_frame, _, _, _, _ = world.step(action)
                at_parent = False
                key = hash(world.state_key())
                if action in shared:
                    child = (key, goal_distance(child_frame, self.goal, self.cells),
                             _changed_cells(child_frame.grid, self.root_grid))
                    known[(parent, action)] = child
                else:        # h and the changed cells only if the state is new (in _add)
                    child = (key, child_frame)
            if self._add(node, (action,), g + 1, *child):
                return
        last = self.actions[node]
        if self.stage == 0 and g + 2 <= self.horizon and last[-1:] != ("noop",):
            self._wait(node, saved, g)

    def _wait(self, node: int, saved, g: int) -> None:
        """The macro action "wait": noops until the state stops changing (nothing more will
        happen without input), checking the goal on the way; bounded by ``_MAX_WAIT`` and the
        horizon. The settled state becomes a child. In a world that never settles (a clock, a
        marching army) waits stop being tried after ``_WAIT_TRIALS`` unsettled ones."""
        if self.unsettled_waits >= _WAIT_TRIALS and not self.settled_waits:
            return
        world = self.world
        world.restore(saved)
        key = world.state_key()
        steps = 0
        settled = False
        last = None        # the frame of the state ``key`` is the key of
        while steps < _MAX_WAIT and g + steps < self.horizon:
            frame, _, _, _, _ = world.step("noop")
            steps += 1
            self.work += 1
            if goal_distance(frame, self.goal, self.cells) == 0:
                self.plan = self._plan_of(node) + ("noop",) * steps
                return
            new_key = world.state_key()
            if new_key == key:
                steps -= 1   # the last noop changed nothing
                settled = True
                break
            key, last = new_key, frame
        if not settled:
            self.unsettled_waits += 1
            return
        self.settled_waits += 1
        if steps >= 2:
            # the settled state is the one after ``steps`` noops: its key and frame were met
            # on the way (the child is rebuilt from its actions when its turn comes)
            assert last is not None
            self._add(node, ("noop",) * steps, g + steps, hash(key), last)

    def _add(self, node: int, actions: tuple[str, ...], g: int, key: int,
             frame_or_h: Frame | int, atoms: tuple | None = None) -> bool:
        """Record a child of ``node``: its state hash ``key``, and its frame, or its heuristic
        h and changed cells ``atoms`` when known; True if it is the goal."""
        self.generated += 1
        known = self.seen.get(key)
        if known is not None and self.depth[known] <= g:
            return False
        if isinstance(frame_or_h, Frame):   # atoms is None: h and the cells are not known yet
            h = goal_distance(frame_or_h, self.goal, self.cells)
            atoms = _changed_cells(frame_or_h.grid, self.root_grid)
        else:
            h = frame_or_h
            assert atoms is not None   # given with h
        child = len(self.parents)
        self.parents.append(node)
        self.actions.append(actions)
        self.depth.append(g)
        self.keys.append(key)
        self.seen[key] = child
        if h == 0:
            self.plan = self._plan_of(child)
            return True
        heapq.heappush(self.frontier, (self._novelty(atoms, h), h, g, child))
        return False


def search_plan(world: World, goal: Sequence[Sequence[str]], mask: Sequence[Sequence[bool]],
                horizon: int, limits: SearchLimits = SearchLimits()) -> SearchResult:
    """A plan of at most ``horizon`` actions from the world's current state to the masked goal
    (see the module docstring); the world is back in its current state afterwards."""
    cells = tuple((x, y) for y, row in enumerate(mask) for x, m in enumerate(row) if m)
    goal = tuple(tuple(row) for row in goal)
    root = world.snapshot()
    per_stage = max(1, limits.max_snapshots // len(STAGES))
    transitions = _Transitions(frozenset(_MOVES) | frozenset(
        f"click {x} {y}" for x, y in cells))
    searches = [_StageSearch(world, root, goal, cells, horizon, stage, per_stage, transitions)
                for stage in range(len(STAGES))]

    def result(plan, stage) -> SearchResult:
        return SearchResult(plan, stage, sum(s.expanded for s in searches),
                            sum(s.generated for s in searches), transitions.hits)

    try:
        while True:
            active = [s for s in searches if not s.exhausted]
            expanded = sum(s.expanded for s in searches)
            if not active or expanded >= limits.max_expanded:
                return result(None, None)
            # the stage that has simulated the fewest ticks goes next (deterministic)
            search = min(active, key=lambda s: (s.work, s.stage))
            search.expand()
            if search.plan is not None:
                return result(search.plan, STAGES[search.stage])
    finally:
        world.restore(root)
