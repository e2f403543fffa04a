"""Task files: one WorldTest task (a world x a test family), versioned and validated on load.

A task file has two halves that are never mixed (docs/spec/worldtest.md 4):

- ``public``: what an agent may be shown (the MFP trajectory with its masked cells and the six
  options; the planning goal, mask and horizon). Everything that builds an agent's
  observation reads only this half and the frames the environment produces.
- ``hidden``: what only the environment and the scorer may see (the MFP answer and how each
  distractor was made; the CD modified program and its trigger; the planning witness).

``Task.agent_view()`` is the one door to the public half; tests check for every shipped task
that nothing from ``hidden`` can be found in it.

Imported tasks (``llm-eval tasks import autumnbench``) use four optional fields that shipped
tasks leave out (and ``dump_task`` omits when unset, so shipped files and their digests do not
change): ``program``, the world's program as a path relative to the task file (the task is not
a bundled world); ``source``, where the task came from with the sha256 of every source file;
``seed`` None, meaning the run gives the seed (as the published harness does); and
``ticks_per_action``, the interaction phase's ticks per action (default 1). Their MFP tasks may
have any number of options (at least 2), their CD tasks no witness, and their planning tasks
no horizon (the test-step budget, or the protocol's cap, bounds them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Final, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from ..errors import TaskFileError
from ..seeds import is_degenerate_seed
from ..vocabulary import FAMILIES, Family

__all__ = [
    "TASK_SCHEMA_VERSION", "FAMILIES", "Family", "Grid", "Rect", "Budgets",
    "MFPPublic", "MFPHidden", "MFPTask", "CDPublic", "CDHidden", "CDTask",
    "PlanningPublic", "PlanningHidden", "PlanningTask", "Task", "TaskSource", "parse_task",
    "TaskFileError",
]

TASK_SCHEMA_VERSION: Final = 1

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


class TaskSource(_Model):
    """Where an imported task came from: the format, the directory as given at import, and the
    sha256 of each source file read (paths relative to that directory)."""

    format: str
    data_dir: str
    files: dict[str, str]
    notes: list[str] = Field(default_factory=list)


class Budgets(_Model):
    """Step budgets of the two phases (docs/spec/worldtest.md 1 and 3). ``test_steps`` bounds the
    actions of an MFP or CD test phase (watching frames included); planning uses its horizon."""

    interaction_steps: int = Field(default=200, ge=1)
    test_steps: int = Field(default=200, ge=1)


def _check_relative(path: str) -> None:
    parts = path.replace("\\", "/").split("/")
    if not path or path.startswith(("/", "\\")) or ".." in parts or ":" in parts[0]:
        raise ValueError(f"{path!r} must be a path relative to the task file, without '..'")


def _check_seed(seed: int) -> int:
    if seed <= 0 or is_degenerate_seed(seed):
        raise ValueError(f"seed {seed} is refused: seeds must be positive and never 0 mod 2**32")
    return seed


class _TaskBase(_Model):
    schema_version: Literal[1] = TASK_SCHEMA_VERSION
    id: str = Field(pattern=r"^[a-z][a-z0-9_-]*$")
    world: str
    seed: int | None = None          # None: the run gives the seed (imported tasks)
    budgets: Budgets = Budgets()
    # imported tasks only (module docstring); None is left out of the file
    program: str | None = None
    ticks_per_action: int | None = Field(default=None, ge=1)
    source: TaskSource | None = None
    # the directory relative program paths are resolved against (set when a file is loaded)
    _root: str | None = PrivateAttr(default=None)

    if TYPE_CHECKING:   # each family's model declares them (as pydantic fields)
        family: Family
        public: _Model

    @property
    def fixed_seed(self) -> int:
        """``seed`` of a task whose file fixes it (``TaskFileError`` for an imported task,
        which takes the run's)."""
        if self.seed is None:
            raise TaskFileError(f"task {self.id!r} takes its seed from the run")
        return self.seed

    @field_validator("seed")
    @classmethod
    def _seed(cls, seed: int | None) -> int | None:
        return None if seed is None else _check_seed(seed)

    @field_validator("program")
    @classmethod
    def _program(cls, program: str | None) -> str | None:
        if program is not None:
            _check_relative(program)
        return program

    @property
    def root(self) -> str | None:
        """The directory of the task file (where ``program`` paths are resolved), if known."""
        return self._root

    def located(self, root: str | None):
        """This task, remembering ``root`` as the directory of its file."""
        copy = self.model_copy()
        copy._root = root
        return copy

    def agent_view(self) -> dict:
        """Everything about this task an agent may be told: world name is *not* included
        (agents never learn which bundled world they are in), only the family's public data."""
        return {"family": self.family, "budgets": self.budgets.model_dump(),
                "public": self.public.model_dump()}


# -- masked-frame prediction ---------------------------------------------------------------------
class MFPPublic(_Model):
    """The recorded trajectory as shown: ``actions[i]`` led from frame i to frame i+1; the frames
    from ``masked_from`` on have the cells of ``mask`` hidden (None). ``options`` are the
    candidate patches for the mask of the final frame (each ``mask.height`` rows of
    ``mask.width`` colours): six in every task we make (validation checks it), any number
    from 2 in an imported one."""

    actions: list[str]
    frames: list[MaskedGrid]
    mask: Rect
    masked_from: int = Field(ge=1)
    options: list[Grid] = Field(min_length=2)

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
    answer: int = Field(ge=0)
    # how each option was made ("truth", "one step earlier", "object shifted left", ...);
    # None for imported tasks, whose source does not say
    option_sources: list[str] | None = None


class MFPTask(_TaskBase):
    family: Literal["mfp"] = "mfp"
    public: MFPPublic
    hidden: MFPHidden

    @model_validator(mode="after")
    def _answer(self) -> "MFPTask":
        count = len(self.public.options)
        if self.hidden.answer >= count:
            raise ValueError(f"hidden.answer {self.hidden.answer} is not an option index "
                             f"(0..{count - 1})")
        sources = self.hidden.option_sources
        if sources is not None and len(sources) != count:
            raise ValueError(f"hidden.option_sources has {len(sources)} entries for {count} "
                             "options")
        return self


# -- change detection -----------------------------------------------------------------------------
class CDPublic(_Model):
    """Nothing about the change is public: the agent only plays the modified world."""

    min_steps_before_declare: int = Field(default=3, ge=0)


class CDHidden(_Model):
    """The modified program and two expressions in the host syntax (docs/spec/autumn.md 14.2):
    ``trigger``, evaluated at the start of every tick into ``SpecialConditionTriggered`` (an
    authoring aid the modified program may read), and ``condition``, the *observational* change
    condition: true on a state once the changed behaviour is visible. The scored ``T`` is the
    first frame of a run whose state satisfies ``condition`` (docs/spec/worldtest.md 3.2). ``change`` says
    in words what changes.

    ``program`` is relative to the bundled programs directory for shipped tasks
    (``changes/gravity.sexp``) and to the task file for imported ones."""

    program: str
    trigger: str
    condition: str | None = None
    change: str
    # an action sequence (from the initial state) under which the condition comes to hold;
    # validation replays it; None for imported tasks (validation searches for one)
    witness: list[str] | None = Field(default=None, min_length=1)

    @property
    def witness_actions(self) -> list[str]:
        """``witness`` of a shipped task (``TaskFileError`` for an imported one: it has none)."""
        if self.witness is None:
            raise TaskFileError("an imported task has no witness")
        return self.witness


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
    # None (imported tasks): no horizon of its own; the test-step budget (worldtest) or the
    # total step cap (autumnbench) bounds the test
    horizon: int | None = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _shape(self) -> "PlanningPublic":
        if len(self.mask) != len(self.goal) or any(
                len(m) != len(g) for m, g in zip(self.mask, self.goal)):
            raise ValueError("mask and goal must have the same shape")
        if not any(any(row) for row in self.mask):
            raise ValueError("the mask selects no cell")
        return self


class PlanningHidden(_Model):
    # None for imported tasks (validation searches for a plan)
    witness: list[str] | None = Field(default=None, min_length=1)
    # the source's own reference figure, kept verbatim (AutumnBench's optimal_actions_count,
    # whose unit the source does not state)
    reference_length: int | None = None

    @property
    def witness_actions(self) -> list[str]:
        """``witness`` of a shipped task (``TaskFileError`` for an imported one: it has none)."""
        if self.witness is None:
            raise TaskFileError("an imported task has no witness")
        return self.witness


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
