"""Task files: one WorldTest task (a world x a test family), versioned and validated on load.

A task file has two halves that are never mixed (WORLDTEST.md 4):

- ``public``: what an agent may be shown (the MFP trajectory with its masked cells and the six
  options; the planning goal, mask and horizon). Everything that builds an agent's
  observation reads only this half and the frames the environment produces.
- ``hidden``: what only the environment and the scorer may see (the MFP answer and how each
  distractor was made; the CD modified program and its trigger; the planning witness).

``Task.agent_view()`` is the one door to the public half; tests check for every shipped task
that nothing from ``hidden`` can be found in it.
"""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ..errors import TaskFileError

__all__ = [
    "TASK_SCHEMA_VERSION", "FAMILIES", "Family", "Grid", "Rect", "Budgets",
    "MFPPublic", "MFPHidden", "MFPTask", "CDPublic", "CDHidden", "CDTask",
    "PlanningPublic", "PlanningHidden", "PlanningTask", "Task", "parse_task", "TaskFileError",
]

TASK_SCHEMA_VERSION = 1
FAMILIES = ("mfp", "cd", "planning")
Family = Literal["mfp", "cd", "planning"]

# A grid of colour names, grid[y][x]; a masked cell of a shown frame is None.
Grid = list[list[str]]
MaskedGrid = list[list[str | None]]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Rect(_Model):
    """A rectangle of cells: columns x .. x+width-1, rows y .. y+height-1."""

    x: int = Field(ge=0)
    y: int = Field(ge=0)
    width: int = Field(ge=1)
    height: int = Field(ge=1)

    def cells(self) -> list[tuple[int, int]]:
        return [(cx, cy) for cy in range(self.y, self.y + self.height)
                for cx in range(self.x, self.x + self.width)]


class Budgets(_Model):
    """Step budgets of the two phases (WORLDTEST.md 1 and 3). ``test_steps`` bounds the
    actions of an MFP or CD test phase (watching frames included); planning uses its horizon."""

    interaction_steps: int = Field(default=200, ge=1)
    test_steps: int = Field(default=200, ge=1)


def _check_seed(seed: int) -> int:
    if seed <= 0 or seed % 2 ** 32 == 0:
        raise ValueError(f"seed {seed} is refused: seeds must be positive and never 0 mod 2**32")
    return seed


class _TaskBase(_Model):
    schema_version: Literal[1] = TASK_SCHEMA_VERSION
    id: str = Field(pattern=r"^[a-z][a-z0-9_-]*$")
    world: str
    seed: int
    budgets: Budgets = Budgets()

    @field_validator("seed")
    @classmethod
    def _seed(cls, seed: int) -> int:
        return _check_seed(seed)

    def agent_view(self) -> dict:
        """Everything about this task an agent may be told: world name is *not* included
        (agents never learn which bundled world they are in), only the family's public data."""
        return {"family": self.family, "budgets": self.budgets.model_dump(),
                "public": self.public.model_dump()}


# -- masked-frame prediction ---------------------------------------------------------------------
class MFPPublic(_Model):
    """The recorded trajectory as shown: ``actions[i]`` led from frame i to frame i+1; the frames
    from ``masked_from`` on have the cells of ``mask`` hidden (None). ``options`` are the six
    candidate patches for the mask of the final frame (each ``mask.height`` rows of
    ``mask.width`` colours)."""

    actions: list[str]
    frames: list[MaskedGrid]
    mask: Rect
    masked_from: int = Field(ge=1)
    options: list[Grid] = Field(min_length=6, max_length=6)

    @model_validator(mode="after")
    def _shape(self) -> "MFPPublic":
        if len(self.frames) != len(self.actions) + 1:
            raise ValueError(f"{len(self.frames)} frames for {len(self.actions)} actions: "
                             "expected one more frame than actions")
        if self.masked_from >= len(self.frames):
            raise ValueError("masked_from must name a frame of the trajectory")
        for i, opt in enumerate(self.options):
            if len(opt) != self.mask.height or any(len(r) != self.mask.width for r in opt):
                raise ValueError(f"option {i} is not {self.mask.height}x{self.mask.width}")
        for t, frame in enumerate(self.frames):
            hidden = {(x, y) for y, row in enumerate(frame) for x, c in enumerate(row)
                      if c is None}
            want = set(self.mask.cells()) if t >= self.masked_from else set()
            if hidden != want:
                raise ValueError(f"frame {t}: the hidden cells must be exactly the mask "
                                 f"{'from masked_from on' if want else '(none before masked_from)'}")
        return self


class MFPHidden(_Model):
    answer: int = Field(ge=0, le=5)
    # how each option was made ("truth", "one step earlier", "object shifted left", ...)
    option_sources: list[str] = Field(min_length=6, max_length=6)


class MFPTask(_TaskBase):
    family: Literal["mfp"] = "mfp"
    public: MFPPublic
    hidden: MFPHidden


# -- change detection -----------------------------------------------------------------------------
class CDPublic(_Model):
    """Nothing about the change is public: the agent only plays the modified world."""

    min_steps_before_declare: int = Field(default=3, ge=0)


class CDHidden(_Model):
    """The modified program (file beside the world's program) and the trigger condition in the
    host expression syntax (AUTUMN.md 14.2); ``change`` says in words what changes."""

    program: str            # path relative to llm_eval/worlds/programs/, e.g. changes/gravity.sexp
    trigger: str
    change: str
    # an action sequence (from the initial state) under which the trigger fires and the
    # change becomes visible; validation replays it, the oracle agent plays it
    witness: list[str] = Field(min_length=1)


class CDTask(_TaskBase):
    family: Literal["cd"] = "cd"
    public: CDPublic = CDPublic()
    hidden: CDHidden


# -- planning --------------------------------------------------------------------------------------
class PlanningPublic(_Model):
    """Reach a frame whose masked cells (``mask`` True) equal ``goal``'s, within ``horizon``
    steps, from the program's initial state with the task's seed; no reset."""

    goal: Grid
    mask: list[list[bool]]
    horizon: int = Field(ge=1)

    @model_validator(mode="after")
    def _shape(self) -> "PlanningPublic":
        if len(self.mask) != len(self.goal) or any(
                len(m) != len(g) for m, g in zip(self.mask, self.goal)):
            raise ValueError("mask and goal must have the same shape")
        if not any(any(row) for row in self.mask):
            raise ValueError("the mask selects no cell")
        return self


class PlanningHidden(_Model):
    witness: list[str] = Field(min_length=1)


class PlanningTask(_TaskBase):
    family: Literal["planning"] = "planning"
    public: PlanningPublic
    hidden: PlanningHidden


Task = Annotated[Union[MFPTask, CDTask, PlanningTask], Field(discriminator="family")]


def parse_task(data: dict | str, *, source: str = "<task>"):
    """Validate a task (a dict or JSON text); errors name the source and the field at fault."""
    from pydantic import TypeAdapter, ValidationError

    adapter = TypeAdapter(Task)
    try:
        if isinstance(data, str):
            return adapter.validate_json(data)
        return adapter.validate_python(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise TaskFileError(f"{source}: {where}: {first['msg']}") from None
