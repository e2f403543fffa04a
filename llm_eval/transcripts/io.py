"""Writing and reading transcripts: JSON lines, compressed, flushed per event, read as streams.

``TranscriptWriter(path)`` appends one JSON line per event and flushes it (``fsync=True``
also forces it to disk), so a transcript is readable after a crash. A path ending in ``.gz``
(``TRANSCRIPT_SUFFIX``, what runs write) is a gzip stream flushed with ``Z_SYNC_FLUSH`` after
every event: each event is decodable as soon as it is written, and the compressor keeps its
window across events. Any other path is plain JSON lines. Images are written once, to
``images/<sha256>.png`` beside the transcript (shared by every transcript in the directory),
and referenced by their hash.

``TranscriptStream(path)`` reads the events one at a time, plain or gzip whatever the name
(a gzip stream cut short by a crash reads up to the cut), and by default gives each model
call whole (``callstore.CallExpander``: requests stored as patches are rebuilt; only the
previous call is kept); ``expand=False`` gives them as stored. It tolerates a torn last line
(the one a crash can leave, possibly cut inside a multi-byte character), which it reports in
``torn``; any other bad line (not UTF-8, not JSON, not a valid event, a patch that does not
fit) is a ``TranscriptError`` naming the file and line. ``read_transcript(path)`` reads a
whole transcript into a ``Transcript`` (for small ones and tests: everything else streams).
"""

from __future__ import annotations

import hashlib
import json
import os
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from pydantic import BaseModel, ValidationError

from ..errors import LlmEvalError
from .callstore import CallExpander, PatchError
from .events import READ_VERSIONS, Header, parse_event

__all__ = ["TranscriptWriter", "TranscriptError", "Transcript", "TranscriptStream",
           "read_transcript", "transcript_files", "transcript_name", "job_of",
           "IMAGES_DIR", "TRANSCRIPT_SUFFIX", "TRANSCRIPT_SUFFIXES"]

IMAGES_DIR = "images"
TRANSCRIPT_SUFFIX = ".jsonl.gz"                  # what runs write
TRANSCRIPT_SUFFIXES = (".jsonl.gz", ".jsonl")    # what a directory of transcripts may hold
GZIP_LEVEL = 6
_GZIP_MAGIC = b"\x1f\x8b"
_CHUNK = 1 << 16


class TranscriptError(LlmEvalError):
    """A transcript line that is not a valid event (names the file and line, also kept as
    ``path`` and ``line``)."""

    def __init__(self, path: Path, line: int, message: str) -> None:
        self.path = path
        self.line = line
        super().__init__(f"{path}:{line}: {message}")


def transcript_name(job_id: str) -> str:
    """The file name of a job's transcript."""
    return f"{job_id}{TRANSCRIPT_SUFFIX}"


def job_of(path: str | Path) -> str:
    """The name of a transcript file without its suffix (the job id, for a run's)."""
    name = Path(path).name
    for suffix in TRANSCRIPT_SUFFIXES:
        if name.endswith(suffix):
            return name[:-len(suffix)]
    return Path(path).stem


def transcript_files(folder: str | Path) -> list[Path]:
    """The transcripts in ``folder`` (not in its subdirectories), sorted by path."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir()
                  if p.name.endswith(TRANSCRIPT_SUFFIXES) and p.is_file())


class TranscriptWriter:
    """Append-only writer of one episode's events (see the module docstring)."""

    def __init__(self, path: str | Path, *, fsync: bool = False) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.images_dir = self.path.parent / IMAGES_DIR
        self.fsync = fsync
        self.events = 0
        self._file = open(self.path, "wb")
        self._gzip = (zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, 31)
                      if self.path.name.endswith(".gz") else None)

    def write(self, event: BaseModel) -> None:
        """Append ``event`` as one line and flush it."""
        line = json.dumps(event.model_dump(mode="json"), ensure_ascii=False,
                          separators=(",", ":"))
        data = (line + "\n").encode("utf-8")
        if self._gzip is not None:
            data = self._gzip.compress(data) + self._gzip.flush(zlib.Z_SYNC_FLUSH)
        self._file.write(data)
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
            try:
                if self._gzip is not None:
                    self._file.write(self._gzip.flush(zlib.Z_FINISH))
            finally:
                self._file.close()

    def __enter__(self) -> TranscriptWriter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class _BadStream(Exception):
    """The compressed stream is corrupt (not merely cut short)."""


def _chunks(file: IO[bytes]) -> Iterator[bytes]:
    """The bytes of ``file``, decompressed if it is gzip (a stream cut short ends early)."""
    head = file.read(2)
    if head != _GZIP_MAGIC:
        yield head
        while chunk := file.read(_CHUNK):
            yield chunk
        return
    inflate = zlib.decompressobj(31)
    pending = head
    while True:
        data = pending + file.read(_CHUNK)
        pending = b""
        if not data:
            return
        while data:
            try:
                out = inflate.decompress(data)
            except zlib.error as exc:
                raise _BadStream(f"not a valid gzip stream ({exc})") from None
            if out:
                yield out
            if inflate.eof:   # one member done; another may follow (or trailing bytes)
                data = inflate.unused_data
                inflate = zlib.decompressobj(31)
            else:
                data = b""


def _lines(path: Path, file: IO[bytes]) -> Iterator[tuple[int, bytes, bool]]:
    """(line number, line without its newline, whether the newline was there)."""
    number = 0
    parts: list[bytes] = []
    chunks = _chunks(file)
    while True:
        try:
            chunk = next(chunks, None)
        except _BadStream as exc:
            raise TranscriptError(path, number + 1, str(exc)) from None
        if chunk is None:
            break
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            parts.append(chunk[start:end])
            number += 1
            yield number, b"".join(parts), True
            parts = []
            start = end + 1
        if start < len(chunk):
            parts.append(chunk[start:])
    if parts:
        yield number + 1, b"".join(parts), False


class TranscriptStream:
    """The events of the transcript at ``path``, read as they are iterated (module
    docstring). Each iteration reads the file again; after one, ``torn`` is the number of a
    torn last line (or None) and ``lines`` the number of lines read."""

    def __init__(self, path: str | Path, *, expand: bool = True) -> None:
        self.path = Path(path)
        self.expand = expand
        self.torn: int | None = None
        self.lines = 0

    def __iter__(self) -> Iterator[Any]:
        self.torn = None
        expander = CallExpander() if self.expand else None
        with open(self.path, "rb") as file:
            for number, raw, terminated in _lines(self.path, file):
                self.lines = number
                event = self._event(number, raw, terminated)
                if event is None:
                    continue
                if event is _TORN:
                    self.torn = number
                    return
                if expander is not None and event.type == "model_call":
                    event = self._expanded(expander, event, number)
                yield event

    def first(self) -> Any:
        """The first event (the header, in a transcript), or None if there is none."""
        return next(iter(TranscriptStream(self.path, expand=False)), None)

    def _event(self, number: int, raw: bytes, terminated: bool) -> Any:
        path = self.path
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            if not terminated:   # cut inside a multi-byte character
                return _TORN
            raise TranscriptError(path, number, f"not UTF-8 text: byte "
                                  f"0x{raw[exc.start]:02x} at column {exc.start + 1} "
                                  f"({exc.reason})") from None
        if not line.strip():
            return None
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            if not terminated:
                return _TORN
            raise TranscriptError(path, number, f"not a JSON line: {exc.msg}") from None
        version = data.get("schema_version") if isinstance(data, dict) else None
        if version not in READ_VERSIONS:
            readable = " and ".join(str(v) for v in READ_VERSIONS)
            raise TranscriptError(path, number, f"schema_version {version!r} is not supported "
                                  f"(this program reads {readable})")
        try:
            return parse_event(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            loc = list(first["loc"])
            if loc and loc[0] == data.get("type"):   # the union's tag, not a field
                loc.pop(0)
            where = ".".join(str(p) for p in loc) or "(event)"
            raise TranscriptError(path, number, f"invalid {data.get('type')!r} event: "
                                  f"{where}: {first['msg']}") from None

    def _expanded(self, expander: CallExpander, call: Any, number: int) -> Any:
        try:
            request, response = expander.expand(call.index, call.request, call.request_patch,
                                                call.response, call.raw_request_patch)
        except PatchError as exc:
            raise TranscriptError(self.path, number, f"invalid 'model_call' event: {exc}") \
                from None
        return call.model_copy(update={"request": request, "request_patch": None,
                                       "response": response, "raw_request_patch": None})


_TORN = object()


@dataclass(frozen=True, slots=True)
class Transcript:
    """The events of one transcript; ``torn`` is the line number of a torn last line, if any."""

    path: Path
    events: tuple[Any, ...]   # each one of events.Event (read by its type, as of_type does)
    torn: int | None = None

    def of_type(self, kind: str) -> list[Any]:
        """The events of type ``kind`` (each of that type's event class)."""
        return [e for e in self.events if e.type == kind]

    @property
    def header(self) -> Header | None:
        first = self.events[0] if self.events else None
        return first if isinstance(first, Header) else None

    @property
    def complete(self) -> bool:
        return bool(self.events) and self.events[-1].type == "end"


def read_transcript(path: str | Path, *, expand: bool = True) -> Transcript:
    """The whole transcript at ``path`` in memory (module docstring)."""
    stream = TranscriptStream(path, expand=expand)
    events = tuple(stream)
    return Transcript(path=stream.path, events=events, torn=stream.torn)
