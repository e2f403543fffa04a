"""A World: one Autumn program as a Gymnasium-style environment.

::

    world = World(program_text, seed=7)
    frame, info = world.reset()                    # or reset(seed=8)
    frame, reward, terminated, truncated, info = world.step("click 3 4")

- The observation is the ``Frame`` (``frame.grid[y][x]`` colour names); renderers are applied
  by callers, or by ``render()`` in the render mode chosen at construction.
- ``info`` holds ``frame``, ``step`` (ticks since reset), ``coverage`` (which on-clauses have
  fired: rule coverage), ``action`` (the action taken, as text), ``invalid_actions`` (count
  since construction), ``triggered`` (the trigger condition, when one is set), and ``frames``
  (every intermediate frame) when ``ticks_per_action`` > 1.
- An invalid action (unparsable text, a click off the grid) is never raised: ``step`` returns
  the unchanged observation, does not tick, sets ``info["invalid_action"]`` to a message for
  the agent and counts it.
- Worlds are reward-free and never terminate (docs/spec/worldtest.md 1): reward is 0.0, ``terminated``
  is False, and so is ``truncated``: budgets belong to the WorldTest phases that play a world
  (``worldtest.phase``).
- ``reset`` starts the program again, with the new seed if one is given, else the current one:
  the first reset (and one with another seed) loads it in a new interpreter (parsing is
  cached); a later one with the same seed restores the state that load produced, in the same
  interpreter (``Interpreter.restore``), which is the same state without compiling again. The
  same seed and actions give the same frames.

What the *program* gets wrong (an error while loading or ticking) is raised as the
interpreter's typed ``AutumnError``; the world is then broken until the next ``reset``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..actions import Action, apply_action
from ..autumn import Frame, Interpreter
from ..errors import ActionSyntaxError
from .errors import WorldMetadataError, WorldStateError
from .spaces import ActionSpace

__all__ = ["World", "RuleCoverage", "RENDER_MODES", "DEFAULT_SEED"]

RENDER_MODES = (None, "json", "compact", "diff", "png", "ansi")
DEFAULT_SEED = 1


@dataclass(frozen=True, slots=True)
class RuleCoverage:
    """Which on-clauses have fired since reset: ``fired[i]`` for the i-th clause in source
    order, at ``lines[i]`` of the program."""

    covered: int
    total: int
    fired: tuple[bool, ...]
    lines: tuple[int, ...]

    @property
    def fraction(self) -> float:
        return self.covered / self.total if self.total else 1.0


@dataclass(frozen=True, slots=True)
class WorldSnapshot:
    """A saved World state (see ``World.snapshot``)."""

    interpreter: Interpreter
    state: object
    frame: Frame
    previous: Frame | None
    steps: int


class World:
    """One Autumn program as an environment; see the module docstring for the contract."""

    metadata = {"render_modes": [m for m in RENDER_MODES if m is not None]}

    def __init__(self, program: str, *, name: str = "<program>", path: str | None = None,
                 seed: int = DEFAULT_SEED, render_mode: str | None = None,
                 ticks_per_action: int = 1, trigger: str = "",
                 expected_size: int | None = None, metadata_path: str | None = None,
                 allow_degenerate_seed: bool = False) -> None:
        if render_mode not in RENDER_MODES:
            from ..render import check_format

            check_format(str(render_mode), tuple(m for m in RENDER_MODES if m))
        if not isinstance(ticks_per_action, int) or ticks_per_action < 1:
            raise ValueError(f"ticks_per_action must be a positive integer, got "
                             f"{ticks_per_action!r}")
        self.program = program
        self.name = name
        self.path = path if path is not None else name
        self.render_mode = render_mode
        self.ticks_per_action = ticks_per_action
        self.trigger = trigger
        self._seed = seed
        self.allow_degenerate_seed = allow_degenerate_seed
        self._expected_size = expected_size
        self._metadata_path = metadata_path
        self._interpreter: Interpreter | None = None
        # (program, trigger, seed, degenerate seed allowed), the interpreter that loaded it,
        # and its state right after loading: a reset with the same four restores that state
        self._loaded: tuple | None = None
        self._frame: Frame | None = None
        self._previous: Frame | None = None
        self._steps = 0
        self._resets = 0
        self._invalid_actions = 0
        self._closed = False
        self._coverage: tuple | None = None   # (interpreter, fired, RuleCoverage)

    # -- Gymnasium contract ---------------------------------------------------------------------
    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[Frame, dict[str, Any]]:
        """Reload the program (with ``seed`` if given, else the current seed); returns the
        initial frame and info."""
        if self._closed:
            raise WorldStateError(f"world {self.name!r} is closed")
        if seed is not None:
            self._seed = seed
        load = (self.program, self.trigger, self._seed, self.allow_degenerate_seed)
        if self._loaded is not None and self._loaded[0] == load:
            # the same program and seed again: go back to the state it loaded into (compiled
            # once; loading is most of a short run's time)
            interpreter, initial = self._loaded[1], self._loaded[2]
            interpreter.restore(initial)
        else:
            interpreter = Interpreter()
            interpreter.run_script(self.program, seed=self._seed, path=self.path,
                                   trigger=self.trigger,
                                   allow_degenerate_seed=self.allow_degenerate_seed)
            self._loaded = (load, interpreter, interpreter.snapshot())
        frame = interpreter.render_frame()
        if self._expected_size is not None and frame.size != self._expected_size:
            raise WorldMetadataError(
                f"says {self._expected_size} but the program's grid is {frame.size}x{frame.size}",
                path=self._metadata_path or self.path, field="size")
        self._interpreter = interpreter
        self._frame = frame
        self._previous = None
        self._steps = 0
        self._resets += 1
        return frame, self._info(None)

    def step(self, action: Action | str) -> tuple[Frame, float, bool, bool, dict[str, Any]]:
        """Apply one action and tick (``ticks_per_action`` times); invalid actions do not tick."""
        interpreter = self._require_reset()
        try:
            action = self.action_space.validate(action)
        except ActionSyntaxError as exc:
            self._invalid_actions += 1
            info = self._info(None)
            info["invalid_action"] = exc.message
            return self._require_frame(), 0.0, False, False, info
        frames = []
        apply_action(interpreter, action)
        for _ in range(self.ticks_per_action):
            interpreter.step()
            frames.append(interpreter.render_frame())
        self._steps += 1
        self._previous, self._frame = self._frame, frames[-1]
        info = self._info(str(action))
        if self.ticks_per_action > 1:
            info["frames"] = tuple(frames)
        return self._frame, 0.0, False, False, info

    def tick(self, action: Action | None, ticks: int = 1) -> tuple[Frame, ...]:
        """Register ``action`` as the next tick's input *without* validating it (a click may be
        off the grid, as the published harness allows), tick ``ticks`` times (the input only in
        the first), and return every frame. Counts as one step. For protocol profiles that
        reproduce another harness; agents' actions go through ``step``."""
        interpreter = self._require_reset()
        if action is not None:
            apply_action(interpreter, action)
        frames = []
        for _ in range(ticks):
            interpreter.step()
            frames.append(interpreter.render_frame())
        self._steps += 1
        self._previous, self._frame = self._frame, frames[-1]
        return tuple(frames)

    def render(self) -> str | bytes | None:
        """The current frame in the render mode chosen at construction (None: no rendering).

        ``diff`` renders the change made by the last step (the compact grid after a reset);
        ``png`` gives PNG bytes; ``ansi`` gives terminal text with 24-bit colours.
        """
        frame = self._frame
        if self.render_mode is None or frame is None:
            return None
        from .. import render as R

        match self.render_mode:
            case "png":
                return R.render_png(frame)
            case "ansi":
                return "\n".join(R.render_ansi(frame))
            case "diff":
                if self._previous is None:
                    return R.render_compact(frame)
                return R.render_diff(frame, self._previous)
            case fmt:
                return R.render_text(frame, fmt)

    def close(self) -> None:
        self._interpreter = None
        self._loaded = None
        self._closed = True

    # -- state ----------------------------------------------------------------------------------
    @property
    def unwrapped(self) -> World:
        """The world itself, as in Gymnasium (where a wrapper returns the world it wraps)."""
        return self

    @property
    def seed(self) -> int:
        return self._seed

    @property
    def frame(self) -> Frame:
        """The current observation."""
        return self._require_frame()

    @property
    def size(self) -> int:
        return self.frame.size

    @property
    def action_space(self) -> ActionSpace:
        return ActionSpace(self.frame.size)

    @property
    def steps(self) -> int:
        """Valid actions taken since the last reset."""
        return self._steps

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def resets(self) -> int:
        return self._resets

    @property
    def invalid_actions(self) -> int:
        """Invalid actions since the world was made (resets do not clear it)."""
        return self._invalid_actions

    @property
    def interpreter(self) -> Interpreter:
        """The live interpreter (for oracles and task checkers; agents never see it)."""
        return self._require_reset()

    def coverage(self) -> RuleCoverage:
        interpreter = self._require_reset()
        fired = interpreter.fired()
        kept = self._coverage   # every step's info has it: made again only when it changed
        if kept is not None and kept[0] is interpreter and kept[1] == fired:
            return kept[2]
        lines = tuple(c[1] for c in interpreter.coverage().clauses)
        coverage = RuleCoverage(sum(fired), len(fired), fired, lines)
        self._coverage = (interpreter, fired, coverage)
        return coverage

    # -- saving and restoring (searches and rollouts; agents never get these) ----------------------
    def snapshot(self) -> "WorldSnapshot":
        """The world's whole state (program state, frame, step count), to ``restore`` later."""
        interpreter = self._require_reset()
        return WorldSnapshot(interpreter, interpreter.snapshot(), self._require_frame(),
                             self._previous, self._steps)

    def restore(self, saved: "WorldSnapshot") -> Frame:
        """Go back to a saved state (also after a reset); returns its frame. Reset and
        invalid-action counts are not rewound."""
        if self._closed:
            raise WorldStateError(f"world {self.name!r} is closed")
        saved.interpreter.restore(saved.state)
        self._interpreter = saved.interpreter
        self._frame, self._previous, self._steps = saved.frame, saved.previous, saved.steps
        return saved.frame

    def state_key(self) -> tuple:
        """A hashable fingerprint of the program state (equal keys, equal futures)."""
        return self._require_reset().state_key()

    def _require_reset(self) -> Interpreter:
        if self._closed:
            raise WorldStateError(f"world {self.name!r} is closed")
        if self._interpreter is None:
            raise WorldStateError(f"world {self.name!r} has not been reset: call reset() "
                                  "before step()")
        return self._interpreter

    def _require_frame(self) -> Frame:
        """The current frame (``WorldStateError`` before ``reset``, like ``_require_reset``)."""
        self._require_reset()
        if self._frame is None:   # unreachable: reset() sets the frame with the interpreter
            raise WorldStateError(f"world {self.name!r} has not been reset: call reset() first")
        return self._frame

    def _info(self, action: str | None) -> dict[str, Any]:
        info: dict[str, Any] = {
            "frame": self._frame,
            "step": self._steps,
            "coverage": self.coverage(),
            "action": action,
            "invalid_actions": self._invalid_actions,
        }
        if self.trigger:
            info["triggered"] = self._require_reset().get_trigger_state()
        return info

    def __repr__(self) -> str:
        return f"World({self.name!r}, seed={self._seed}, steps={self._steps})"

