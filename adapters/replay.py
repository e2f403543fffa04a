"""Replay (``replay/<path>``): answer each request from a recording, keyed by the request's
canonical hash, and fail loudly on a request that was never recorded.

The recording is a JSON file::

    {"version": 1, "calls": {"<sha256>": [<Response as JSON>, ...], ...}}

``RecordingAdapter`` wraps a live adapter and writes this file, so any run can be replayed.
A request asked several times gets its answers in recorded order (a list under the hash).

A recording is provider traffic written to disk, so it passes the same scrubbing as
transcripts and ``--calls`` (``classify.scrub``): a key the server echoes back is stored as
``[redacted]``. The key of an answer is therefore the hash of the *scrubbed* request
(``recording_key``), which is what the replayed run sends once an earlier answer came back
redacted; for a request with nothing to scrub it is ``Request.canonical_hash``.

A recording that cannot be read (not UTF-8, not JSON, not a version-1 recording, an answer that
is not a response) is a ``RecordingError`` naming the file and the line, when the adapter is
made, before any episode starts.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from llm_eval.atomic import write_atomic

from .base import Adapter
from .classify import scrub
from .types import Fatal, Request, Response

__all__ = ["ReplayAdapter", "RecordingAdapter", "RecordingError", "recording_key",
           "RECORDING_VERSION"]

RECORDING_VERSION = 1


class RecordingError(Fatal):
    """A recording file that cannot be replayed; names the file and, where known, the line."""

    def __init__(self, path: Path, line: int | None, message: str) -> None:
        self.path = path
        self.line = line
        where = f"{path}:{line}" if line is not None else str(path)
        super().__init__(f"{where}: {message}", reason="replay_file", provider="replay")


def recording_key(request: Request, secrets: tuple[str, ...] = ()) -> str:
    """The hash an answer to ``request`` is recorded under: the canonical request, scrubbed."""
    text = json.dumps(scrub(request.canonical(), secrets), sort_keys=True,
                      separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ReplayAdapter(Adapter):
    provider = "replay"

    def __init__(self, model: str, **options: Any) -> None:
        super().__init__(model, **options)
        self.path = Path(model)
        self._calls = _load(self.path)
        self._used: dict[str, int] = {}

    async def complete(self, request: Request) -> Response:
        key = recording_key(request)
        answers = self._calls.get(key)
        if not answers:   # recorded before keys were scrubbed, a request with something to scrub
            answers = self._calls.get(request.canonical_hash())
        if not answers:
            raise Fatal(f"replay mismatch: request {key[:16]}... is not in {self.path} "
                        f"({len(self._calls)} recorded requests); the prompt, tools or "
                        f"settings differ from the recorded run", reason="replay_mismatch",
                        provider=self.provider)
        n = self._used.get(key, 0)
        self._used[key] = n + 1
        return answers[min(n, len(answers) - 1)]


class RecordingAdapter(Adapter):
    """Passes calls to ``inner`` and keeps every answer, scrubbed, for ``save``."""

    def __init__(self, inner: Adapter, path: str | Path) -> None:
        super().__init__(inner.model)
        self.inner = inner
        self.provider = inner.provider
        self.path = Path(path)
        self.calls: dict[str, list[dict[str, Any]]] = {}
        key = inner.options.get("api_key")
        self._secrets = (key,) if isinstance(key, str) and key != "not-needed" else ()

    async def complete(self, request: Request) -> Response:
        response = await self.inner.complete(request)
        self.calls.setdefault(recording_key(request, self._secrets), []).append(
            scrub(response.model_dump(mode="json"), self._secrets))
        return response

    def save(self) -> Path:
        return write_atomic(self.path, json.dumps({"version": RECORDING_VERSION,
                                                   "calls": self.calls}, indent=1,
                                                  sort_keys=True))

    async def aclose(self) -> None:
        await self.inner.aclose()


def _load(path: Path) -> dict[str, list[Response]]:
    """Every recorded answer, validated, by request hash (``RecordingError`` otherwise)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise RecordingError(path, None, f"cannot read recording: "
                                         f"{exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise RecordingError(path, line, f"not a recording: not UTF-8 text (byte {exc.start}: "
                                         f"{data[exc.start:exc.start + 1]!r})") from None
    try:
        recording = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordingError(path, exc.lineno, f"not a recording: not JSON ({exc.msg} at "
                                               f"column {exc.colno})") from None
    if not isinstance(recording, dict) or recording.get("version") != RECORDING_VERSION:
        raise RecordingError(path, _line_of(text, "version") if isinstance(recording, dict)
                             else None,
                             f"not a version-{RECORDING_VERSION} recording (expected "
                             f'{{"version": {RECORDING_VERSION}, "calls": {{...}}}})')
    calls = recording.get("calls", {})
    if not isinstance(calls, dict):
        raise RecordingError(path, _line_of(text, "calls"),
                             f"calls: expected an object of request hashes, got "
                             f"{type(calls).__name__}")
    out: dict[str, list[Response]] = {}
    for key, answers in calls.items():
        answers = answers if isinstance(answers, list) else [answers]
        try:
            out[key] = [Response.model_validate(a) for a in answers]
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "(answer)"
            raise RecordingError(path, _line_of(text, key),
                                 f"the answer to request {key[:16]}... is not a response: "
                                 f"{where}: {first['msg']}") from None
        if not out[key]:
            raise RecordingError(path, _line_of(text, key),
                                 f"request {key[:16]}... has no recorded answer")
    return out


def _line_of(text: str, key: str) -> int | None:
    """The line where the JSON key ``key`` first appears in ``text``, if it does."""
    at = text.find(json.dumps(key) + ":")
    if at < 0:
        at = text.find(json.dumps(key))
    return text.count("\n", 0, at) + 1 if at >= 0 else None
