"""What the server reads from a request, checked: JSON bodies, forms and their CSRF token.

Bodies are read up to ``MAX_BODY_BYTES`` and refused beyond, before they are parsed (a large
body is never held whole). ``json_body`` wants a JSON object; ``form_body`` an urlencoded
form with each field once; ``checked_form`` a state-changing form from the server's own
pages (same origin, its ``csrf`` field the server's token for the browser's session cookie
and the form's scope, ``security.FormTokens``), answering with the error page otherwise;
``with_csrf_cookie`` sets the session cookie on a page holding a form and gives the page its
token. The ``FormTokens`` are the application's (``app.state.form_tokens``).
"""

from __future__ import annotations

import json
from typing import Any, Callable
from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from .pages import message_page
from .security import CSRF_COOKIE, FormTokens, check_origin

__all__ = ["MAX_BODY_BYTES", "json_error", "json_body", "form_body", "checked_form",
           "form_token", "with_csrf_cookie", "START_FORM"]

MAX_BODY_BYTES = 4096
START_FORM = "start"   # the scope of the start page's form (a study's: the participant's link)


def json_error(status: int, message: str) -> JSONResponse:
    """The API's error answer: ``{"error": message}``."""
    return JSONResponse({"error": message}, status_code=status)


async def _body(request: Request, what: str) -> bytes:
    """The body, refused (``ValueError``) past ``MAX_BODY_BYTES`` without reading the rest."""
    declared = request.headers.get("content-length", "0")
    if not declared.isdigit() or int(declared) > MAX_BODY_BYTES:
        raise ValueError(f"the {what} is over {MAX_BODY_BYTES} bytes")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise ValueError(f"the {what} is over {MAX_BODY_BYTES} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


async def json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object (``ValueError`` saying what is wrong)."""
    if not request.headers.get("content-type", "").startswith("application/json"):
        raise ValueError("the request body must be application/json")
    body = await _body(request, "request body")
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise ValueError("the request body is not JSON") from None
    except RecursionError:   # nested deeper than the parser goes: the body is at fault
        raise ValueError("the request body is nested too deeply") from None
    if not isinstance(data, dict):
        raise ValueError("the request body must be a JSON object")
    return data


async def form_body(request: Request) -> dict[str, str]:
    """An urlencoded form, each field given once (``ValueError`` otherwise)."""
    if not request.headers.get("content-type", "").startswith(
            "application/x-www-form-urlencoded"):
        raise ValueError("the form must be application/x-www-form-urlencoded")
    body = await _body(request, "form")
    try:
        fields = parse_qs(body.decode("ascii"), keep_blank_values=True, max_num_fields=16)
    except (UnicodeDecodeError, ValueError):
        raise ValueError("the form cannot be read") from None
    if any(len(values) != 1 for values in fields.values()):
        raise ValueError("a field of the form is given twice")
    return {key: values[0] for key, values in fields.items()}


def _tokens(request: Request) -> FormTokens:
    return request.app.state.form_tokens


async def checked_form(request: Request, scope: str) -> dict[str, str] | Response:
    """A state-changing form of ``scope`` from this server's pages, or the error page to
    answer with (module docstring)."""
    refused = check_origin(request)
    if refused:
        return HTMLResponse(message_page("Refused", refused), status_code=403)
    try:
        form = await form_body(request)
    except ValueError as exc:
        return HTMLResponse(message_page("Refused", str(exc)), status_code=400)
    if not _tokens(request).valid(form.get("csrf"), request.cookies.get(CSRF_COOKIE), scope):
        return HTMLResponse(message_page("Refused", "the form's token does not match: reload "
                                         "the page and try again"), status_code=403)
    return form


def form_token(request: Request, scope: str) -> str | None:
    """The token of a ``scope`` form for the session the request's cookie holds (None when it
    holds none: a page that needs one is made by ``with_csrf_cookie``)."""
    cookie = request.cookies.get(CSRF_COOKIE)
    if cookie is None or FormTokens.session(cookie) != cookie:
        return None
    return _tokens(request).token(cookie, scope)


def with_csrf_cookie(request: Request, page: Callable[[str], str], scope: str) -> HTMLResponse:
    """``page(token)`` as a response that sets the session cookie (kept if it is one) and
    gives the page the token of a ``scope`` form for it."""
    session = FormTokens.session(request.cookies.get(CSRF_COOKIE))
    response = HTMLResponse(page(_tokens(request).token(session, scope)))
    response.set_cookie(CSRF_COOKIE, session, httponly=True, samesite="strict")
    return response
