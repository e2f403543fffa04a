"""Studies: tasks assigned to participants, reached through unguessable links.

A study spec (YAML, ``llm-eval serve RUN_DIR --study SPEC.yaml``)::

    name: pilot                  # participants are human/pilot-001, human/pilot-002, ...
    participants: 40             # how many links to make
    tasks_per_participant: 3
    tasks: [gravity/planning, easel/mfp, garden/cd]   # or: all (every shipped task)
    seed: 7                      # the assignment and each participant's order
    episode_seed: 1              # the worlds' seed, as a sweep's seeds (pairs with models)
    protocol: worldtest          # or autumnbench
    interaction_steps: null      # default: each task's budget
    consent: |
      The consent text, shown before the first task (blank lines separate paragraphs).

``assign(spec)`` is deterministic: the tasks in an order shuffled by ``seed``, read as a
circle; participant i takes the ``tasks_per_participant`` tasks from position
``i * tasks_per_participant`` on, so over all participants every task is given the same
number of times, give or take one, and no participant gets a task twice; each participant's
own order is then shuffled by ``(seed, i)``.

``Study`` keeps the state in ``RUN_DIR/study-<name>.json`` (written atomically, readable only
by its owner): each participant's link token, their tasks, when they consented, how many
tasks they finished and the job of the task under way; and the operator's token, which
downloads the results (``results()``: one row per task of every participant, from the run
store). The links are written to ``RUN_DIR/study-<name>-links.txt`` (owner only). Tokens are
``secrets.token_urlsafe`` values: a participant can reach only their own pages and episodes.
"""

from __future__ import annotations

import random
import re
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from ..atomic import write_atomic
from ..bounded_yaml import load_bounded, read_bounded
from ..errors import LlmEvalError
from ..worldtest.protocols import ProtocolName
from .security import new_token, same_token

__all__ = ["StudySpec", "StudyError", "Study", "assign", "load_study_spec"]

_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,31}")


class StudyError(LlmEvalError):
    """A study spec that cannot be read or does not validate (names the file and field), or a
    state file that does not belong to it."""


class StudySpec(BaseModel):
    """A study (module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    participants: int = Field(ge=1, le=10_000)
    tasks_per_participant: int = Field(ge=1)
    tasks: list[str] | Literal["all"] = Field(min_length=1)
    seed: int = 1
    episode_seed: int = 1
    protocol: ProtocolName = "worldtest"
    interaction_steps: int | None = Field(default=None, ge=1)
    consent: str = Field(min_length=1, max_length=20_000)

    @field_validator("name")
    @classmethod
    def _name(cls, name: str) -> str:
        if not _NAME.fullmatch(name):
            raise ValueError(f"{name!r}: 1 to 32 lower-case letters, digits or '-', starting "
                             f"with a letter or digit")
        return name

    @field_validator("tasks")
    @classmethod
    def _tasks(cls, tasks: list[str] | str) -> list[str]:
        from ..tasks.store import all_tasks

        known = [f"{t.world}/{t.family}" for t in all_tasks()]
        if tasks == "all":
            return known
        for task in tasks:
            if task not in known:
                import difflib

                close = difflib.get_close_matches(task, known, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise ValueError(f"unknown task {task!r} (tasks are world/family){hint}")
        if len(set(tasks)) != len(tasks):
            raise ValueError("a task is listed twice")
        return list(tasks)

    @model_validator(mode="after")
    def _enough_tasks(self) -> "StudySpec":
        if self.tasks_per_participant > len(self.tasks):
            raise ValueError(f"tasks_per_participant: {self.tasks_per_participant} is more "
                             f"than the {len(self.tasks)} tasks listed")
        return self

    def participant(self, index: int) -> str:
        """The participant's name (``human/<name>`` is their agent): ``<study>-<NNN>``."""
        width = max(3, len(str(self.participants)))
        return f"{self.name}-{index + 1:0{width}d}"


def load_study_spec(path: str | Path) -> StudySpec:
    """Read and validate a study spec (``StudyError`` naming the file and field)."""
    path = Path(path)
    try:
        data, _ = load_bounded(read_bounded(path))
    except OSError as exc:
        raise StudyError(f"{path}: cannot read the study spec: {exc.strerror or exc}") from None
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise StudyError(f"{path}: not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise StudyError(f"{path}: a study spec is a mapping of settings")
    try:
        return StudySpec.model_validate(data)
    except ValidationError as exc:
        lines = [f"{path}: {'.'.join(map(str, e['loc'])) or '(spec)'}: "
                 f"{e['msg'].removeprefix('Value error, ')}" for e in exc.errors()]
        raise StudyError("\n".join(lines)) from None


def assign(spec: StudySpec) -> list[list[tuple[str, str]]]:
    """Each participant's tasks, in their order (module docstring)."""
    circle = list(spec.tasks)
    random.Random(spec.seed).shuffle(circle)
    k, n = spec.tasks_per_participant, len(circle)
    plans = []
    for i in range(spec.participants):
        mine = [circle[(i * k + j) % n] for j in range(k)]
        random.Random(f"{spec.seed}:{i}").shuffle(mine)
        plans.append([_world_family(task) for task in mine])
    return plans


def _world_family(task: str) -> tuple[str, str]:
    """``(world, family)`` of a task named ``world/family`` (``StudySpec`` checks the names)."""
    world, family = task.split("/", 1)
    return world, family


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class Study:
    """A study's participants and their progress, kept in the run directory (module
    docstring). Methods are safe to call from several threads."""

    def __init__(self, spec: StudySpec, run_dir: str | Path) -> None:
        import json

        self.spec = spec
        self.run_dir = Path(run_dir)
        self.path = self.run_dir / f"study-{spec.name}.json"
        self.links_path = self.run_dir / f"study-{spec.name}-links.txt"
        self._lock = threading.Lock()
        plans = assign(spec)
        if self.path.is_file():
            state = json.loads(self.path.read_text(encoding="utf-8"))
            if state.get("spec") != spec.model_dump(mode="json"):
                raise StudyError(f"{self.path}: this run directory holds study {spec.name!r} "
                                 f"with other settings; give the study another name or "
                                 f"another run directory")
        else:
            state = {"spec": spec.model_dump(mode="json"), "operator": new_token(),
                     "participants": [
                         {"name": spec.participant(i), "token": new_token(18),
                          "tasks": [f"{w}/{f}" for w, f in plan], "consented_at": None,
                          "finished": 0, "job": None}
                         for i, plan in enumerate(plans)]}
        self.state = state
        self._by_token = {p["token"]: p for p in state["participants"]}
        self._save()

    def _save(self) -> None:
        import json

        self.run_dir.mkdir(parents=True, exist_ok=True)
        write_atomic(self.path, json.dumps(self.state, indent=1), private=True)
        links = [f"{p['name']}\t/p/{p['token']}" for p in self.state["participants"]]
        write_atomic(self.links_path, "\n".join(links) + "\n", private=True)

    # -- participants ---------------------------------------------------------------------------
    def participant(self, token: str) -> dict[str, Any] | None:
        """The participant whose link token is ``token`` (a copy), or None."""
        with self._lock:
            found = next((p for t, p in self._by_token.items() if same_token(token, t)), None)
            return dict(found) if found is not None else None

    def consent(self, token: str) -> None:
        with self._lock:
            person = self._by_token[token]
            if person["consented_at"] is None:
                person["consented_at"] = _now()
                self._save()

    def next_task(self, token: str) -> tuple[str, str] | None:
        """The participant's next task (world, family), or None when all are done."""
        with self._lock:
            person = self._by_token[token]
            if person["finished"] >= len(person["tasks"]):
                return None
            world, family = person["tasks"][person["finished"]].split("/", 1)
            return world, family

    def started(self, token: str, job_id: str) -> None:
        with self._lock:
            self._by_token[token]["job"] = job_id
            self._save()

    def finished(self, token: str, job_id: str) -> None:
        """The participant's episode of job ``job_id`` ended: on to their next task."""
        with self._lock:
            person = self._by_token[token]
            if person["job"] == job_id:
                person["job"] = None
                person["finished"] += 1
                self._save()

    # -- the operator ---------------------------------------------------------------------------
    def is_operator(self, token: str) -> bool:
        return same_token(token, self.state["operator"])

    def results(self, store) -> list[dict[str, Any]]:
        """One row per assigned task of every participant: its order, and, once played, the
        job's id, status, score, raw reward and times (from ``store``)."""
        by_model: dict[tuple[str, str, str], Any] = {}
        for run in store.runs():
            for row in store.jobs(run["id"]):
                s = row.settings
                key = (s["model"], s["world"], s["family"])
                if s.get("model", "").startswith("human/") and (
                        key not in by_model or row.status == "done"):
                    by_model[key] = row
        rows = []
        with self._lock:
            people = [dict(p) for p in self.state["participants"]]
        for person in people:
            for order, task in enumerate(person["tasks"]):
                world, family = task.split("/", 1)
                row = by_model.get((f"human/{person['name']}", world, family))
                rows.append({"participant": person["name"], "order": order, "task": task,
                             "consented_at": person["consented_at"],
                             "job": row.id if row else None,
                             "status": row.status if row else "not started",
                             "score": row.score if row else None,
                             "raw_reward": row.raw_reward if row else None,
                             "started_at": row.started_at if row else None,
                             "finished_at": row.finished_at if row else None})
        return rows
