"""Replay (``replay/<path>``): answer each request from a recording, keyed by the request's
canonical hash (``Request.canonical_hash``: sorted-keys JSON of the request without its
volatile ``metadata``), and fail loudly on a request that was never recorded.

The recording is a JSON file::

    {"version": 1, "calls": {"<sha256>": <Response as JSON>, ...}}

``RecordingAdapter`` wraps a live adapter and writes this file, so any run can be replayed.
A request asked several times gets its answers in recorded order (a list under the hash).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from llm_eval.atomic import write_atomic

from .base import Adapter
from .types import Fatal, Request, Response

__all__ = ["ReplayAdapter", "RecordingAdapter", "RECORDING_VERSION"]

RECORDING_VERSION = 1


class ReplayAdapter(Adapter):
    provider = "replay"

    def __init__(self, model: str, **options: Any) -> None:
        super().__init__(model, **options)
        self.path = Path(model)
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise Fatal(f"replay: cannot read recording {self.path}: {exc}",
                        reason="replay_file", provider=self.provider) from exc
        if not isinstance(data, dict) or data.get("version") != RECORDING_VERSION:
            raise Fatal(f"replay: {self.path} is not a version-{RECORDING_VERSION} recording",
                        reason="replay_file", provider=self.provider)
        self._calls: dict[str, list[dict]] = {
            h: (v if isinstance(v, list) else [v]) for h, v in data.get("calls", {}).items()}
        self._used: dict[str, int] = {}

    async def complete(self, request: Request) -> Response:
        key = request.canonical_hash()
        answers = self._calls.get(key)
        if not answers:
            raise Fatal(f"replay mismatch: request {key[:16]}... is not in {self.path} "
                        f"({len(self._calls)} recorded requests); the prompt, tools or "
                        f"settings differ from the recorded run", reason="replay_mismatch",
                        provider=self.provider)
        n = self._used.get(key, 0)
        self._used[key] = n + 1
        return Response.model_validate(answers[min(n, len(answers) - 1)])


class RecordingAdapter(Adapter):
    """Passes calls to ``inner`` and keeps every answer for ``save``."""

    def __init__(self, inner: Adapter, path: str | Path) -> None:
        super().__init__(inner.model)
        self.inner = inner
        self.provider = inner.provider
        self.path = Path(path)
        self.calls: dict[str, list[dict]] = {}

    async def complete(self, request: Request) -> Response:
        response = await self.inner.complete(request)
        self.calls.setdefault(request.canonical_hash(), []).append(
            response.model_dump(mode="json"))
        return response

    def save(self) -> Path:
        return write_atomic(self.path, json.dumps({"version": RECORDING_VERSION,
                                                   "calls": self.calls}, indent=1,
                                                  sort_keys=True))

    async def aclose(self) -> None:
        await self.inner.aclose()
