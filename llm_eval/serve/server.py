"""How ``llm-eval serve`` runs its application under uvicorn: one place for the settings the
command and the tests use, so the tests load the server people get.

Every request is answered, or refused with a status, never dropped. What dropped them: an
idle keep-alive connection was closed after uvicorn's default 5 s; a client sending its next
request just then (common under load, when the server's event loop runs late and the close
runs after the request had reached the socket but before the loop read it) had the
connection closed under it, the request reset unanswered (3-15 of 500 clients' requests in
20 s). So:

- ``KEEP_ALIVE_S`` (75 s, above the browsers' own idle limits for a used connection and
  above what a person waits between actions) keeps idle connections open; the page's next
  action reuses its connection instead of racing the close.
- ``KeepAliveProtocol`` does not close an idle connection at the keep-alive deadline when
  bytes (or the client's own close) are already waiting in its socket: the loop reads them
  first and the request is answered; the deadline starts again.
- ``LIMIT_CONCURRENCY`` connections and requests at once at most: beyond, uvicorn answers
  ``503 Service Unavailable`` (a status, not a dropped connection, and never out of file
  descriptors: the soft limit is raised to cover it, ``raise_file_limit``).
- ``BACKLOG``: connections the kernel queues for the server to accept.

Shutdown (``ServeServer``): the episodes are stopped first (every request waiting on an
episode is answered at once: the episode has ended), then uvicorn drains the connections,
then the lifespan closes the store. A request never waits for a person through a shutdown,
and nothing is cancelled mid-request (a cancelled request logs a ``CancelledError``
traceback).
"""

from __future__ import annotations

import select
from typing import Any

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["KEEP_ALIVE_S", "LIMIT_CONCURRENCY", "BACKLOG", "KeepAliveProtocol",
           "ServeServer", "serve_config", "raise_file_limit"]

KEEP_ALIVE_S = 75
LIMIT_CONCURRENCY = 4000
BACKLOG = 2048
_FILES_BESIDE = 1200   # descriptors beside the connections: episodes' transcripts, the store


class KeepAliveProtocol(H11Protocol):
    """uvicorn's h11 protocol whose keep-alive deadline never closes a connection with a
    request already waiting in its socket (module docstring)."""

    def timeout_keep_alive_handler(self) -> None:
        if not self.transport.is_closing() and _waiting(self.transport):
            self.timeout_keep_alive_task = self.loop.call_later(
                self.timeout_keep_alive, self.timeout_keep_alive_handler)
            return
        super().timeout_keep_alive_handler()


def _waiting(transport) -> bool:
    """Whether the transport's socket has bytes (or an end) the loop has not read yet."""
    sock = transport.get_extra_info("socket")
    if sock is None:
        return False
    try:
        poller = select.poll()
        poller.register(sock.fileno(), select.POLLIN)
        return bool(poller.poll(0))
    except (OSError, ValueError):   # closed meanwhile: nothing to wait for
        return False


class ServeServer(uvicorn.Server):
    """uvicorn's server that stops the episodes before it drains its connections (module
    docstring)."""

    async def shutdown(self, sockets=None) -> None:
        app = _starlette(self.config.loaded_app)
        episodes = getattr(app.state, "episodes", None) if app is not None else None
        if episodes is not None:
            from starlette.concurrency import run_in_threadpool

            await run_in_threadpool(episodes.stop_waiting)
        await super().shutdown(sockets=sockets)


def _starlette(app) -> Any:
    """The Starlette application under uvicorn's wrappers (``config.loaded_app``)."""
    for _ in range(8):
        if hasattr(app, "state") and hasattr(app, "router"):
            return app
        app = getattr(app, "app", None)
        if app is None:
            return None
    return None


def raise_file_limit(needed: int = LIMIT_CONCURRENCY + _FILES_BESIDE) -> int:
    """Raise this process's soft limit of open files towards ``needed`` (never above the
    hard limit) and return the soft limit now (``resource.RLIM_INFINITY``: none)."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
    if soft != resource.RLIM_INFINITY and soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
        soft = want
    return soft


def serve_config(app, *, host: str, port: int, **overrides) -> uvicorn.Config:
    """The uvicorn settings of ``llm-eval serve`` (module docstring)."""
    import resource

    files = raise_file_limit()
    limit = LIMIT_CONCURRENCY if files == resource.RLIM_INFINITY else \
        max(64, min(LIMIT_CONCURRENCY, files - _FILES_BESIDE))
    settings: dict[str, Any] = dict(host=host, port=port, log_level="warning", access_log=False,
                    server_header=False, http=KeepAliveProtocol, ws="none",
                    timeout_keep_alive=KEEP_ALIVE_S, limit_concurrency=limit,
                    backlog=BACKLOG)
    settings.update(overrides)
    return uvicorn.Config(app, **settings)
