"""The registry of bundled worlds: ``programs/<name>.sexp`` with metadata ``programs/<name>.yaml``.

The metadata file holds ``name`` (the file stem), ``size`` (the program's grid size),
``stochastic`` (whether the world draws random numbers that change what is seen), ``mechanics``
(a few words), ``description`` (one line for people, never shown to agents) and ``notes`` (the
author's notes). It is validated with pydantic when the registry loads; a bad file raises
``WorldMetadataError`` naming the file and the field. The programs are package data, found via
``importlib.resources``, so a non-editable install finds them too.

``make_world(name, seed=...)`` builds a ``World``; an unknown name raises ``UnknownWorldError``
with a "did you mean". That the size matches the program is checked at every ``reset``.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .errors import UnknownWorldError, WorldMetadataError
from .world import World

__all__ = ["WorldSpec", "WorldMetadata", "WorldRegistry", "default_registry", "make_world",
           "world_names", "world_spec", "PROGRAMS_PACKAGE"]

PROGRAMS_PACKAGE = "llm_eval.worlds"
PROGRAMS_DIR = "programs"


class WorldMetadata(BaseModel):
    """The schema of ``programs/<name>.yaml``."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    name: str = Field(pattern=r"^[a-z][a-z0-9_-]*$")
    size: int = Field(ge=3, le=25)
    stochastic: bool
    mechanics: str = Field(min_length=1)
    description: str = Field(min_length=1)
    notes: str = ""

    @field_validator("description", "mechanics")
    @classmethod
    def _one_line(cls, value: str) -> str:
        value = value.strip()
        if not value or "\n" in value:
            raise ValueError("must be a single non-empty line")
        return value


@dataclass(frozen=True, slots=True)
class WorldSpec:
    """A registered world: its metadata and where its files are."""

    name: str
    size: int
    stochastic: bool
    mechanics: str
    description: str
    notes: str
    program_path: str
    metadata_path: str
    _program: Traversable

    def program_text(self) -> str:
        return self._program.read_text(encoding="utf-8")

    def make(self, **kwargs: Any) -> World:
        """A new ``World`` for this program (keyword arguments go to ``World``)."""
        return World(self.program_text(), name=self.name, path=self.program_path,
                     expected_size=self.size, metadata_path=self.metadata_path, **kwargs)

    def summary(self) -> dict[str, Any]:
        """What ``llm-eval worlds --json`` prints for this world."""
        return {"name": self.name, "size": self.size, "stochastic": self.stochastic,
                "mechanics": self.mechanics, "description": self.description}


def _display(root: Traversable, file_name: str) -> str:
    """A readable path: the real file system path when there is one."""
    try:
        return str(root / file_name)
    except TypeError:  # pragma: no cover - exotic resource readers
        return f"{PROGRAMS_PACKAGE}/{PROGRAMS_DIR}/{file_name}"


# PyYAML's safe loader in C (libyaml, in PyPI's wheels) reads the same data as the pure-Python
# one, ten times faster: the 43 metadata files took 0.37 s of every command's first world
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _load_metadata(file: Traversable, display: str, stem: str) -> WorldMetadata:
    try:
        raw = yaml.load(file.read_text(encoding="utf-8"), Loader=_SAFE_LOADER)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise WorldMetadataError(f"not valid YAML: {getattr(exc, 'problem', exc)}",
                                 path=display, line=None if mark is None else mark.line + 1
                                 ) from None
    if not isinstance(raw, dict):
        raise WorldMetadataError("expected a mapping of name, size, stochastic, mechanics, "
                                 "description, notes", path=display)
    try:
        meta = WorldMetadata.model_validate(raw)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = ".".join(str(p) for p in error["loc"]) or None
        raise WorldMetadataError(error["msg"], path=display, field=field) from None
    if meta.name != stem:
        raise WorldMetadataError(f"is {meta.name!r} but the file is {stem}.yaml", path=display,
                                 field="name")
    return meta


class WorldRegistry:
    """The worlds found in one directory of ``<name>.sexp`` + ``<name>.yaml`` pairs."""

    def __init__(self, root: Traversable) -> None:
        self.root = root
        entries = {e.name: e for e in root.iterdir() if e.is_file()} if root.is_dir() else {}
        stems = sorted({n.rsplit(".", 1)[0] for n in entries if n.endswith((".sexp", ".yaml"))})
        specs: dict[str, WorldSpec] = {}
        for stem in stems:
            program, metadata = f"{stem}.sexp", f"{stem}.yaml"
            if program not in entries:
                raise WorldMetadataError(f"has no program {program} beside it",
                                         path=_display(root, metadata))
            if metadata not in entries:
                raise WorldMetadataError("is missing: every bundled program needs its metadata",
                                         path=_display(root, metadata))
            meta = _load_metadata(entries[metadata], _display(root, metadata), stem)
            specs[stem] = WorldSpec(
                name=meta.name, size=meta.size, stochastic=meta.stochastic,
                mechanics=meta.mechanics, description=meta.description, notes=meta.notes,
                program_path=_display(root, program), metadata_path=_display(root, metadata),
                _program=entries[program])
        self._specs = specs

    def names(self) -> list[str]:
        return list(self._specs)

    def specs(self) -> list[WorldSpec]:
        return list(self._specs.values())

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    def __len__(self) -> int:
        return len(self._specs)

    def get(self, name: str) -> WorldSpec:
        """The spec of ``name``; raises UnknownWorldError with the closest names."""
        spec = self._specs.get(name)
        if spec is None:
            close = difflib.get_close_matches(name, list(self._specs), n=3, cutoff=0.5)
            raise UnknownWorldError(name, self.names(), close)
        return spec

    def make(self, name: str, **kwargs: Any) -> World:
        return self.get(name).make(**kwargs)


@lru_cache(maxsize=1)
def default_registry() -> WorldRegistry:
    """The bundled worlds (package data of ``llm_eval.worlds``)."""
    return WorldRegistry(resources.files(PROGRAMS_PACKAGE) / PROGRAMS_DIR)


def world_names() -> list[str]:
    return default_registry().names()


def world_spec(name: str) -> WorldSpec:
    return default_registry().get(name)


def make_world(name: str, **kwargs: Any) -> World:
    """A ``World`` for the bundled world ``name`` (``seed=``, ``render_mode=``, ...)."""
    return default_registry().make(name, **kwargs)
