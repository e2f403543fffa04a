"""The one door to HTML: every string becomes escaped text unless it is ``Markup`` built here.

``tag("td", value, class_="num")`` escapes ``value`` (``html.escape`` with ``quote=True``)
and every attribute value; tag and attribute names must be plain identifiers written in our
code. ``Markup`` marks a fragment already built by ``tag``/``join``; nothing else in the report
creates it from outside text, so text from a transcript, a model, settings or a file name can
only reach the page escaped. Images enter as ``data:`` URIs built from bytes (``png_uri``).
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Iterable

__all__ = ["Markup", "escape", "tag", "join", "png_uri", "VOID_TAGS"]

VOID_TAGS = frozenset({"br", "hr", "img", "meta", "col", "wbr"})
_NAME = re.compile(r"^[a-z][a-z0-9-]*$")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


class Markup(str):
    """A fragment of HTML that is safe to insert as is (built by ``tag``/``join``)."""

    __slots__ = ()


def escape(value: object) -> Markup:
    """``value`` as HTML text: ``Markup`` passes through, anything else is ``str()`` escaped."""
    if isinstance(value, Markup):
        return value
    if value is None:
        return Markup("")
    return Markup(html.escape(str(value), quote=True))


def join(parts: Iterable[object], separator: str = "") -> Markup:
    """The parts (escaped unless ``Markup``) one after the other."""
    return Markup(escape(separator).join(escape(p) for p in parts))


def _attribute_name(name: str) -> str:
    name = name.rstrip("_").replace("_", "-")
    if not _NAME.match(name) or name.startswith("on"):
        raise ValueError(f"not an attribute the report writes: {name!r}")
    return name


def tag(name: str, /, *children: object, **attributes: object) -> Markup:
    """``<name attributes>children</name>``; children and attribute values are escaped.

    An attribute whose value is ``None`` or ``False`` is left out; ``True`` writes it bare.
    Event-handler attributes (``on...``) are refused: the page has no script.
    """
    if not _NAME.match(name) or name in ("script", "iframe", "object", "embed"):
        raise ValueError(f"not a tag the report writes: {name!r}")
    parts = [name]
    for key, value in attributes.items():
        if value is None or value is False:
            continue
        attribute = _attribute_name(key)
        if value is True:
            parts.append(attribute)
        else:
            # always escaped, even Markup: an attribute value is text, never a fragment
            parts.append(f'{attribute}="{html.escape(str(value), quote=True)}"')
    opening = "<" + " ".join(parts) + ">"
    if name in VOID_TAGS:
        if children:
            raise ValueError(f"<{name}> takes no children")
        return Markup(opening)
    return Markup(opening + join(children) + f"</{name}>")


def png_uri(data: bytes) -> str:
    """A ``data:image/png;base64,...`` URI for PNG bytes (``ValueError`` if they are not PNG)."""
    if not data.startswith(PNG_SIGNATURE):
        raise ValueError("not PNG data")
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")
