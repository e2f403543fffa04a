"""What protects the server's participants: tokens, CSRF checks and response headers.

- Addresses and episodes' CSRF tokens are ``secrets.token_urlsafe`` values, compared in
  constant time (``same_token``).
- A state change (``POST``) must come from the server's own pages: ``check_origin`` refuses a
  request whose ``Origin`` is another site or whose ``Sec-Fetch-Site`` says cross-site, and the
  caller checks a CSRF token the other site cannot read or make (a form: ``FormTokens``; an
  episode's actions: its own token in the ``X-CSRF-Token`` header).
- A form's token is not a copy of its cookie: cookies are not separated by port, so a page on
  another port of 127.0.0.1 can set the cookie and post a field equal to it. The cookie holds
  the browser's session (any value); the form's token is an HMAC of the server's own secret
  over that session and the form's scope (the start page, or one participant's link), which
  only this server can compute and which it checks itself.
- ``SecurityHeaders`` adds to every response a Content-Security-Policy that runs only the
  server's own scripts (no inline script, images only from the server or ``data:``), no
  framing, no MIME sniffing, no referrer to other sites (the address of an episode is its
  key; to its own site the browser then sends a true ``Origin``, not ``null``) and no caching
  of the JSON views.
- The host check (Starlette's ``TrustedHostMiddleware``, set up by ``app``) refuses a
  ``Host`` the server was not started for, so a page on another site that renames itself to
  127.0.0.1 (DNS rebinding) cannot talk to it.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from urllib.parse import urlsplit

from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["new_token", "same_token", "check_origin", "SecurityHeaders", "FormTokens",
           "CSRF_COOKIE", "CSRF_HEADER"]

CSRF_COOKIE = "llm_eval_csrf"
CSRF_HEADER = "x-csrf-token"
_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")


def new_token(nbytes: int = 24) -> str:
    return secrets.token_urlsafe(nbytes)


def same_token(given: object, expected: str) -> bool:
    """Whether ``given`` is ``expected``, compared in constant time."""
    return isinstance(given, str) and bool(given) and \
        hmac.compare_digest(given.encode("utf-8", "replace"), expected.encode("utf-8"))


_SESSION = re.compile(r"[A-Za-z0-9_-]{16,64}")


class FormTokens:
    """The CSRF tokens of the server's forms, bound to its own ``secret`` (module docstring).

    ``session(cookie)`` is the browser's session: the cookie's value when it is one this
    scheme could have made, else a new one (the caller sets it). ``token(session, scope)`` is
    the form's hidden field; ``valid(given, session, scope)`` checks one in constant time. A
    token made for one scope (the start form, a participant's link) is refused in another.
    """

    def __init__(self, secret: bytes | None = None) -> None:
        self._secret = secret if secret is not None else secrets.token_bytes(32)

    @staticmethod
    def session(cookie: str | None) -> str:
        return cookie if cookie and _SESSION.fullmatch(cookie) else new_token()

    def token(self, session: str, scope: str) -> str:
        mac = hmac.new(self._secret, f"form\0{scope}\0{session}".encode("utf-8"),
                       hashlib.sha256)
        return mac.hexdigest()

    def valid(self, given: object, session: str | None, scope: str) -> bool:
        if not session or not _SESSION.fullmatch(session):
            return False
        return same_token(given, self.token(session, scope))


def check_origin(request: Request) -> str | None:
    """Why ``request`` cannot be a state change from this server's pages, or None."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return f"refused: a {site} request"
    origin = request.headers.get("origin")
    if origin is not None:
        host = request.headers.get("host", "")
        if origin == "null" or urlsplit(origin).netloc != host:
            return "refused: the request comes from another site"
    return None


class SecurityHeaders:
    """ASGI middleware adding the headers of the module docstring to every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        api = scope.get("path", "").startswith("/api/")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                if "content-security-policy" not in headers:   # a route may set its own
                    headers["content-security-policy"] = _CSP
                headers["x-frame-options"] = "DENY"
                headers["x-content-type-options"] = "nosniff"
                headers["referrer-policy"] = "same-origin"
                headers["cross-origin-opener-policy"] = "same-origin"
                if api or headers.get("content-type", "").startswith("text/html"):
                    headers["cache-control"] = "no-store"
            await send(message)

        await self.app(scope, receive, send_with_headers)
