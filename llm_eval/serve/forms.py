"""What the server reads from a request, checked: JSON bodies, forms and their CSRF token.

Bodies are read up to ``MAX_BODY_BYTES`` and refused beyond, before they are parsed (a large
body is never held whole). ``json_body`` wants a JSON object; ``form_body`` an urlencoded
form with each field once; ``checked_form`` a state-changing form from the server's own
pages (same origin, its ``csrf`` field equal to the CSRF cookie), answering with the error
page otherwise; ``with_csrf_cookie`` sets that cookie on a page holding a form.
"""

from __future__ import annotations

import json
from typing import Any, Callable
from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from .pages import message_page
from .security import CSRF_COOKIE, check_origin, new_token, same_token

__all__ = ["MAX_BODY_BYTES", "json_error", "json_body", "form_body", "checked_form",
           "with_csrf_cookie"]

MAX_BODY_BYTES = 4096


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


async def checked_form(request: Request) -> dict[str, str] | Response:
    """A state-changing form from this server's pages, or the error page to answer with
    (module docstring)."""
    refused = check_origin(request)
    if refused:
        return HTMLResponse(message_page("Refused", refused), status_code=403)
    try:
        form = await form_body(request)
    except ValueError as exc:
        return HTMLResponse(message_page("Refused", str(exc)), status_code=400)
    cookie = request.cookies.get(CSRF_COOKIE)
    if not cookie or not same_token(form.get("csrf"), cookie):
        return HTMLResponse(message_page("Refused", "the form's token does not match: reload "
                                         "the page and try again"), status_code=403)
    return form


def with_csrf_cookie(request: Request, page: Callable[[str], str]) -> HTMLResponse:
    """``page(token)`` as a response that sets the form CSRF cookie (kept if present)."""
    token = request.cookies.get(CSRF_COOKIE) or new_token()
    response = HTMLResponse(page(token))
    response.set_cookie(CSRF_COOKIE, token, httponly=True, samesite="strict")
    return response
