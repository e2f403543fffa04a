"""What an agent is shown at every step of every phase: one frozen ``Observation``.

One type serves all phases so that one agent interface (``act(observation) -> action``) drives
them all. Common fields: the phase and (in a test phase) the task family, the number of valid
actions taken in
this phase, the budget left, the frame the agent is looking at, the action forms valid *now*,
and the message about the agent's last action if it was invalid. Each test phase adds its
payload:

- ``mfp`` (``MFPView``): the recorded trajectory as the task makes it public (the actions,
  every frame with its masked cells, the mask rectangle, the six options) and which frame is
  being watched;
- ``cd`` (``CDView``): the current run (its number, steps, whether ``declare`` is allowed yet),
  and after ``declare`` the frames of that run for browsing;
- ``planning`` (``PlanningView``): the goal grid, the mask of the cells that matter, the
  horizon.

Under the ``autumnbench`` protocol an observation also carries ``text``, the published
harness's observation text exactly as it would send it, and ``offered``, its list of offered
action strings (``click [0-15] [0-15]``, ``I found the change!``, ...); ``actions`` is then
empty. With ``ticks_per_action`` > 1 the interaction phase's observation carries ``frames``,
every intermediate frame of the last action (its last is ``frame``).

Masked cells of a shown frame hold ``MASK_COLOUR`` (``"transparent"``, the name the renderers
parse a hidden cell back to) and are listed in ``masked``, so a renderer can hatch them.
Nothing in an observation is ever taken from a task's hidden half; ``to_dict`` is the JSON
form (tests serialise it and search it for hidden text).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..autumn import Frame
from ..render.palette import MASK_COLOUR
from ..vocabulary import FAMILIES, PhaseName, ProtocolName
from .commands import ActionForm

__all__ = ["Observation", "Picture", "MFPView", "CDView", "PlanningView", "EpisodeStart",
           "MASK_COLOUR", "PHASES"]

PHASES = ("interaction", "mfp", "cd", "planning")

Cell = tuple[int, int]


def _rows(frame: Frame) -> list[list[str]]:
    return frame.to_rows()


@dataclass(frozen=True, slots=True)
class EpisodeStart:
    """What an agent is told before the interaction phase: its budget and the protocol. Never
    the test family: the interaction phase must not reveal which test follows (docs/spec/worldtest.md
    1)."""

    interaction_steps: int
    protocol: ProtocolName = "worldtest"


@dataclass(frozen=True, slots=True)
class MFPView:
    """The recorded trajectory: ``actions[i]`` led from ``frames[i]`` to ``frames[i + 1]``;
    frames from ``masked_from`` on hide the rectangle ``mask`` = (x, y, width, height).
    ``options[k]`` is candidate patch k (``height`` rows of ``width`` colours), k = 0..5."""

    actions: tuple[str, ...]
    frames: tuple[Frame, ...]
    mask: tuple[int, int, int, int]
    masked_from: int
    options: tuple[tuple[tuple[str, ...], ...], ...]
    watching: int

    def to_dict(self) -> dict:
        return {"actions": list(self.actions), "frames": [_rows(f) for f in self.frames],
                "mask": dict(zip(("x", "y", "width", "height"), self.mask)),
                "masked_from": self.masked_from,
                "options": [[list(r) for r in o] for o in self.options],
                "watching": self.watching}


@dataclass(frozen=True, slots=True)
class CDView:
    """The change-detection run: ``run`` counts runs (1 + resets), ``run_steps`` the actions of
    this run; ``declare`` is allowed once ``run_steps >= declare_after``. After declaring,
    ``frames`` holds the frames of this run (frame 0 = its start) and ``watching`` the one
    shown; before, ``frames`` is empty and ``watching`` None."""

    run: int
    run_steps: int
    declare_after: int
    declared: bool
    frames: tuple[Frame, ...] = ()
    watching: int | None = None

    def to_dict(self) -> dict:
        return {"run": self.run, "run_steps": self.run_steps,
                "declare_after": self.declare_after, "declared": self.declared,
                "frames": [_rows(f) for f in self.frames], "watching": self.watching}


@dataclass(frozen=True, slots=True)
class PlanningView:
    """Reach a frame whose cells in ``goal_cells`` (``mask[y][x]`` True) equal ``goal``'s
    within ``horizon`` steps."""

    goal: Frame
    mask: tuple[tuple[bool, ...], ...]
    horizon: int

    @property
    def goal_cells(self) -> tuple[Cell, ...]:
        return tuple((x, y) for y, row in enumerate(self.mask) for x, m in enumerate(row) if m)

    def to_dict(self) -> dict:
        return {"goal": _rows(self.goal), "mask": [list(r) for r in self.mask],
                "horizon": self.horizon}


@dataclass(frozen=True, slots=True)
class Picture:
    """An image the published harness sends in its image mode (``autumnbench`` protocol, R2):
    ``rows`` of colour names, drawn with ``fill`` where a name is not a colour, ``mask``
    cells marked with a cross when ``crosses`` (``render.harness_jpeg``)."""

    rows: tuple[tuple[str, ...], ...]
    fill: str = "black"
    crosses: bool = False

    def to_dict(self) -> dict:
        return {"rows": [list(r) for r in self.rows], "fill": self.fill,
                "crosses": self.crosses}


@dataclass(frozen=True, slots=True)
class Observation:
    """One step's view of the episode (see the module docstring)."""

    phase: PhaseName
    family: str | None          # None in the interaction phase: the test is not revealed
    step: int
    budget_left: int
    frame: Frame
    actions: tuple[ActionForm, ...]
    invalid: str | None = None
    message: str | None = None
    masked: tuple[Cell, ...] = ()
    mfp: MFPView | None = None
    cd: CDView | None = None
    planning: PlanningView | None = None
    text: str | None = None
    offered: tuple[str, ...] = ()
    frames: tuple[Frame, ...] = ()
    # the autumnbench protocol's image mode: the images this observation sends (none for a
    # text-only answer such as an invalid action's)
    image_mode: bool = False
    pictures: tuple[Picture, ...] = ()

    @property
    def mfp_view(self) -> MFPView:
        """``mfp``, the view of a masked-frame test (``ValueError`` in another phase)."""
        if self.mfp is None:
            raise ValueError(f"the {self.phase} phase's observation has no masked-frame view")
        return self.mfp

    @property
    def cd_view(self) -> CDView:
        """``cd``, the view of a change-detection test (``ValueError`` in another phase)."""
        if self.cd is None:
            raise ValueError(f"the {self.phase} phase's observation has no change-detection "
                             "view")
        return self.cd

    @property
    def planning_view(self) -> PlanningView:
        """``planning``, the view of a planning test (``ValueError`` in another phase)."""
        if self.planning is None:
            raise ValueError(f"the {self.phase} phase's observation has no planning view")
        return self.planning

    @property
    def valid_actions(self) -> tuple[str, ...]:
        """The valid action forms as text, e.g. ``("click X Y (0 <= X <= 6, ...)", "left")``."""
        return tuple(form.text() for form in self.actions)

    def form(self, kind: str) -> ActionForm | None:
        return next((f for f in self.actions if f.kind == kind), None)

    def to_dict(self) -> dict:
        data: dict[str, Any] = {"phase": self.phase, "family": self.family, "step": self.step,
                "budget_left": self.budget_left, "frame": _rows(self.frame),
                "background": self.frame.background,
                "actions": [form.to_dict() for form in self.actions],
                "invalid": self.invalid, "message": self.message,
                "masked": [list(c) for c in self.masked]}
        for name in FAMILIES:   # each family's view, under its name
            view = getattr(self, name)
            if view is not None:
                data[name] = view.to_dict()
        # only when set, so that worldtest observations keep their recorded form
        if self.text is not None:
            data["text"] = self.text
            data["offered"] = list(self.offered)
        if self.frames:
            data["frames"] = [_rows(f) for f in self.frames]
        if self.image_mode:
            data["image_mode"] = True
            data["pictures"] = [p.to_dict() for p in self.pictures]
        return data

    def summary(self) -> dict:
        """A short record for episode logs: no grids, only where the agent was."""
        data: dict[str, Any] = {"phase": self.phase, "step": self.step,
                                "budget_left": self.budget_left}
        if self.invalid:
            data["invalid"] = self.invalid
        if self.message:
            data["message"] = self.message
        if self.text is not None:
            data["text"] = self.text
        if self.mfp is not None:
            data["watching"] = self.mfp.watching
        if self.cd is not None:
            data.update(run=self.cd.run, run_steps=self.cd.run_steps,
                        declared=self.cd.declared)
            if self.cd.watching is not None:
                data["watching"] = self.cd.watching
        return data
