"""What the openai and anthropic adapters share: one SDK client per event loop (with SDK
retries off) and the mapping of the SDKs' exceptions to our three verdicts.

Both SDKs (openai 3.x, anthropic 2.x) are built on httpx2 and share an exception shape:
``APIStatusError`` (``status_code``, ``response.headers``, ``body``: the error object, which the
openai SDK keeps as the inner ``error`` and the anthropic SDK whole; ``error_fields`` reads
both), ``APITimeoutError`` and ``APIConnectionError``, ``APIResponseValidationError``.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
from collections.abc import Callable
from typing import Any

from .classify import classify_status, error_fields, malformed, scrub
from .types import Fatal, ProviderError, Transient

__all__ = ["LoopClient", "http_client", "classify_sdk_error", "untransformed"]

# the fields that hold a conversation: sent as ``extra_body`` (``untransformed``)
_BULK: dict[str, list[Any] | None] = {"messages": [], "input": [], "tools": None,
                                      "system": None}


class LoopClient:
    """An SDK client made on first use in each event loop (pooled connections belong to a
    loop)."""

    def __init__(self, make: Callable[[], Any]) -> None:
        self._make = make
        self._client: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def get(self) -> Any:
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            self._client = self._make()
            self._loop = loop
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None


@functools.lru_cache(maxsize=1)
def _ssl_context() -> Any:
    import httpx2

    return httpx2.create_ssl_context()


def http_client(sdk: Any, options: dict[str, Any]) -> Any:
    """The ``http_client=`` option, else the SDK's default client on one TLS context shared
    by the process: building a context loads the CA bundle, about 30 ms of CPU, and
    ``LoopClient`` makes a client per event loop, so per job."""
    given = options.get("http_client")
    if given is not None:
        return given
    return sdk.DefaultAsyncHttpxClient(verify=_ssl_context())


def api_key(options: dict[str, Any], env: str, provider: str) -> str:
    """The key from ``api_key=`` or the environment; a missing key is fatal before any call."""
    key = options.get("api_key") or os.environ.get(options.get("api_key_env") or env)
    if not key:
        if options.get("base_url"):
            return "not-needed"  # local OpenAI-compatible servers ignore the key
        raise Fatal(f"auth: {options.get('api_key_env') or env} is not set", reason="auth",
                    provider=provider)
    return key


def classify_sdk_error(exc: BaseException, sdk: Any, provider: str) -> ProviderError | None:
    """Our verdict for an exception raised by ``sdk`` (the openai or anthropic module), or
    None if it is not an SDK or transport error (a bug: let it propagate)."""
    name = type(exc).__name__
    if isinstance(exc, sdk.APIStatusError):
        body = scrub(exc.body) if exc.body is not None else None
        message = exc.message
        if isinstance(body, dict):
            message = json.dumps(body, sort_keys=True)[:500]
        kind, code, _ = error_fields(body)
        return classify_status(exc.status_code, message, provider=provider,
                               headers=dict(exc.response.headers), error_class=name,
                               error_type=kind, error_code=code)
    if isinstance(exc, sdk.APITimeoutError):
        return Transient(f"timeout: {exc}", provider=provider, error_class=name)
    if isinstance(exc, sdk.APIConnectionError):
        return Transient(f"connection failed: {exc}", provider=provider, error_class=name)
    if isinstance(exc, (sdk.APIResponseValidationError, json.JSONDecodeError)):
        return malformed(provider, str(exc), error_class=name)
    return None


def untransformed(kwargs: dict[str, Any]) -> dict[str, Any]:
    """``kwargs`` for an SDK's ``create`` with the conversation (messages or input, tools,
    system) moved to ``extra_body``, which the SDK merges into the JSON body as it is.

    The OpenAI and Anthropic SDKs otherwise walk every request's whole payload with typing
    introspection (``_transform_recursive``), which changes nothing in these plain dicts and
    costs more than all else a call does: measured here, 126 ms of CPU per call at call 200 of
    a full-history episode, growing with the history (a known SDK issue: anthropic-sdk-python
    #1195). The body sent is the same JSON."""
    lean = {k: v for k, v in kwargs.items() if k not in _BULK}
    bulk = {k: kwargs[k] for k in _BULK if k in kwargs}
    for key in bulk:   # a required parameter keeps an empty stand-in, replaced on merging
        if _BULK[key] is not None:
            lean[key] = _BULK[key]
    return {**lean, "extra_body": {**kwargs.get("extra_body", {}), **bulk}}
