"""A fake model provider on 127.0.0.1, scripted per test.

It serves ``/v1/chat/completions``, ``/v1/responses`` and ``/v1/messages`` from a queue of
steps: a reply (a body in the provider's real shape) or a fault (``429`` with Retry-After,
``500``, ``503``, ``529``, ``timeout``: no answer for ``hang`` seconds, ``drop``: the
connection closed without an answer, ``malformed``: 200 with broken JSON, ``html``: 200 with an
HTML page, as a proxy's error or login page comes back), or an error answer of any status
and body (``error``: how a server refuses a request). Every request is kept (path, headers,
JSON body); once the script is exhausted a ``responder`` may answer instead. In a reply body, ``ECHO_KEY`` is replaced by the API key the request carried, as a
server that echoes a key back (in an error text, a debug field) would. Point an SDK at ``base_url`` (OpenAI: ``base_url + "/v1"``).
"""

from __future__ import annotations

import json
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

PATHS = ("/v1/chat/completions", "/v1/responses", "/v1/messages")
FAULTS = ("429", "500", "503", "529", "timeout", "drop", "malformed", "html")
ECHO_KEY = "<echo-key>"
HTML_PAGE = (b"<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head>"
             b"<body><h1>Bad Gateway</h1></body></html>")


@dataclass
class Step:
    fault: str | None = None
    body: dict | None = None
    retry_after: float = 2.0
    status: int = 200


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: Any
    answered: str = ""


def _error_body(path: str, status: int) -> dict:
    if path == "/v1/messages":
        kind = {429: "rate_limit_error", 529: "overloaded_error"}.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": f"fake {status}"}}
    return {"error": {"message": f"fake {status}", "type": "server_error", "param": None,
                      "code": None}}


@dataclass
class FakeProvider:
    hang: float = 2.0
    steps: list[Step] = field(default_factory=list)
    seen: list[Seen] = field(default_factory=list)
    # answers ``responder(path, body) -> (status, body)`` once the script is exhausted: a
    # fake model that plays whole episodes (cache_billing.py)
    responder: Callable[[str, Any], tuple[int, Any]] | None = None
    keep_bodies: bool = True   # False: ``seen`` keeps no request bodies (long episodes)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def setup(self) -> None:
                super().setup()
                # headers and body go out as two writes: without this, Nagle's algorithm holds
                # the body until the client's delayed ACK, 40 ms a call
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def do_POST(self) -> None:
                fake._handle(self)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        # shutdown() waits for the serving loop to look at its flag, which it does every
        # poll_interval (0.5 s by default: half a second at the end of every test using it)
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.02}, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def reply(self, body: Any) -> FakeProvider:
        """Answer 200 with ``body`` as JSON (any JSON value: a wrong shape is a test too)."""
        self.steps.append(Step(body=body))
        return self

    def error(self, status: int, body: Any) -> FakeProvider:
        """Answer ``status`` with ``body`` as JSON."""
        self.steps.append(Step(fault="error", body=body, status=status))
        return self

    def fault(self, kind: str, retry_after: float = 2.0) -> FakeProvider:
        assert kind in FAULTS, kind
        self.steps.append(Step(fault=kind, retry_after=retry_after))
        return self

    def __enter__(self) -> FakeProvider:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()

    # --- the server side ----------------------------------------------------------------------

    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        length = int(h.headers.get("content-length") or 0)
        raw = h.rfile.read(length)
        try:
            body = json.loads(raw)
        except json.JSONDecodeError:
            body = raw.decode("utf-8", "replace")
        seen = Seen(h.path, dict(h.headers.items()), body if self.keep_bodies else None)
        with self._lock:
            self.seen.append(seen)
            step = self.steps.pop(0) if self.steps else None
        path = h.path.split("?")[0]
        if path not in PATHS:
            return self._send(h, 404, {"error": {"message": f"no route {path}"}}, seen)
        if step is None and self.responder is not None:
            status, answer = self.responder(path, body)
            return self._send(h, status, answer, seen)
        if step is None:
            return self._send(h, 500, {"error": {"message": "fake provider: script exhausted"}},
                              seen)
        match step.fault:
            case None:
                body = json.dumps(step.body)
                if ECHO_KEY in body:
                    key = h.headers.get("x-api-key") or \
                        (h.headers.get("authorization") or "").removeprefix("Bearer ")
                    body = body.replace(ECHO_KEY, key)
                self._send(h, 200, body.encode(), seen)
            case "429" | "529":
                status = int(step.fault)
                self._send(h, status, _error_body(path, status), seen,
                           {"retry-after": str(step.retry_after)})
            case "500" | "503":
                status = int(step.fault)
                self._send(h, status, _error_body(path, status), seen)
            case "timeout":
                seen.answered = "timeout"
                time.sleep(self.hang)
                h.close_connection = True
            case "drop":
                seen.answered = "drop"
                h.close_connection = True
                try:
                    h.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            case "malformed":
                self._send(h, 200, b'{"id": "broken", "choices": [', seen)
            case "html":
                self._send(h, 200, HTML_PAGE, seen, content_type="text/html; charset=utf-8")
            case "error":
                self._send(h, step.status, step.body, seen)

    @staticmethod
    def _send(h: BaseHTTPRequestHandler, status: int, body: Any, seen: Seen,
              headers: dict[str, str] | None = None,
              content_type: str = "application/json") -> None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        seen.answered = str(status)
        try:
            h.send_response(status)
            h.send_header("content-type", content_type)
            h.send_header("content-length", str(len(data)))
            for k, v in (headers or {}).items():
                h.send_header(k, v)
            h.end_headers()
            h.wfile.write(data)
        except OSError:
            pass
