"""The one async interface every provider adapter implements."""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from typing import Any

from .types import ImagePart, Request, Response

__all__ = ["Adapter", "image_placeholder", "Stopwatch"]


class Adapter(ABC):
    """Turns one ``Request`` into one ``Response``; raises only ``RateLimited``, ``Transient``
    or ``Fatal`` (classified). No retries here: the core (``llm_eval.calls``) owns them, so SDK
    retries are switched off."""

    provider: str = ""

    def __init__(self, model: str, **options: Any) -> None:
        self.model = model
        self.options = options

    @property
    def name(self) -> str:
        return f"{self.provider}/{self.model}"

    @abstractmethod
    async def complete(self, request: Request) -> Response:
        """Send one request; return the normalised response."""

    async def aclose(self) -> None:  # noqa: B027 (optional: not every adapter has a client)
        """Release the SDK client (connections)."""


def image_placeholder(part: ImagePart) -> str:
    """How an image appears in a recorded raw request: by content hash, stored once elsewhere
    (the Request keeps the bytes)."""
    return f"<image sha256={part.sha256()}>"


class Stopwatch:
    def __init__(self) -> None:
        self.start = time.perf_counter()

    def elapsed(self) -> float:
        return time.perf_counter() - self.start
