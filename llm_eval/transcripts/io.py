"""Writing and reading transcripts: JSON lines, flushed per event, images by content hash.

``TranscriptWriter(path)`` appends one JSON line per event and flushes it (``fsync=True``
also forces it to disk), so a transcript is readable after a crash. Images are written once,
to ``images/<sha256>.png`` beside the transcript (shared by every transcript in the
directory), and referenced by their hash. ``read_transcript(path)`` returns the events and
tolerates a torn last line (the one a crash can leave, possibly cut inside a multi-byte
character), which it reports; any other bad line (not UTF-8, not JSON, not a valid event) is a
``TranscriptError`` naming the file and line.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from ..errors import LlmEvalError
from .events import SCHEMA_VERSION, parse_event

__all__ = ["TranscriptWriter", "TranscriptError", "Transcript", "read_transcript",
           "IMAGES_DIR"]

IMAGES_DIR = "images"


class TranscriptError(LlmEvalError):
    """A transcript line that is not a valid event (names the file and line, also kept as
    ``path`` and ``line``)."""

    def __init__(self, path: Path, line: int, message: str) -> None:
        self.path = path
        self.line = line
        super().__init__(f"{path}:{line}: {message}")


class TranscriptWriter:
    """Append-only writer of one episode's events (see the module docstring)."""

    def __init__(self, path: str | Path, *, fsync: bool = False) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.images_dir = self.path.parent / IMAGES_DIR
        self.fsync = fsync
        self.events = 0
        self._file = open(self.path, "w", encoding="utf-8")

    def write(self, event: BaseModel) -> None:
        """Append ``event`` as one line and flush it."""
        line = json.dumps(event.model_dump(mode="json"), ensure_ascii=False,
                          separators=(",", ":"))
        self._file.write(line + "\n")
        self._file.flush()
        if self.fsync:
            os.fsync(self._file.fileno())
        self.events += 1

    def image(self, data: bytes, suffix: str = ".png") -> str:
        """Store ``data`` once under its sha256 beside the transcript; returns the hash."""
        digest = hashlib.sha256(data).hexdigest()
        target = self.images_dir / f"{digest}{suffix}"
        if not target.exists():
            self.images_dir.mkdir(parents=True, exist_ok=True)
            partial = target.with_name(f".{digest}.{os.getpid()}.{id(self)}.part")
            partial.write_bytes(data)
            os.replace(partial, target)   # atomic: a reader never sees half an image
        return digest

    def close(self) -> None:
        if not self._file.closed:
            self._file.close()

    def __enter__(self) -> TranscriptWriter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


@dataclass(frozen=True, slots=True)
class Transcript:
    """The events of one transcript; ``torn`` is the line number of a torn last line, if any."""

    path: Path
    events: tuple
    torn: int | None = None

    def of_type(self, kind: str) -> list:
        return [e for e in self.events if e.type == kind]

    @property
    def header(self):
        return self.events[0] if self.events and self.events[0].type == "header" else None

    @property
    def complete(self) -> bool:
        return bool(self.events) and self.events[-1].type == "end"


def read_transcript(path: str | Path) -> Transcript:
    """The events of the transcript at ``path`` (module docstring)."""
    path = Path(path)
    lines = path.read_bytes().split(b"\n")
    torn: int | None = None
    if lines and lines[-1] == b"":
        lines.pop()
    elif lines:   # no final newline: the last write may have been cut off
        torn = len(lines)
    events = []
    for number, raw in enumerate(lines, start=1):
        last_torn = number == len(lines) and torn is not None
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            if last_torn:   # cut inside a multi-byte character
                break
            raise TranscriptError(path, number, f"not UTF-8 text: byte "
                                  f"0x{raw[exc.start]:02x} at column {exc.start + 1} "
                                  f"({exc.reason})") from None
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            if last_torn:
                break
            raise TranscriptError(path, number, f"not a JSON line: {exc.msg}") from None
        if last_torn:
            torn = None   # complete JSON without the newline: keep it
        version = data.get("schema_version") if isinstance(data, dict) else None
        if version != SCHEMA_VERSION:
            raise TranscriptError(path, number, f"schema_version {version!r} is not supported "
                                  f"(this program reads {SCHEMA_VERSION})")
        try:
            events.append(parse_event(data))
        except ValidationError as exc:
            first = exc.errors()[0]
            loc = list(first["loc"])
            if loc and loc[0] == data.get("type"):   # the union's tag, not a field
                loc.pop(0)
            where = ".".join(str(p) for p in loc) or "(event)"
            raise TranscriptError(path, number, f"invalid {data.get('type')!r} event: "
                                  f"{where}: {first['msg']}") from None
    return Transcript(path=path, events=tuple(events), torn=torn)
