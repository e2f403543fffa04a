"""Reading Autumn text: s-expressions with source positions, and the first-token rule.

Stage 1 (``read``) turns text into nested ``SList``/``SAtom`` items (docs/spec/autumn.md 2.1).
Stage 2 (``first_tokens``) classifies an atom by the first token(s) of its text (2.2).
Where the reference crashes on malformed text, we raise ``AutumnSyntaxError`` instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import AutumnLimitError, AutumnSyntaxError

__all__ = ["SAtom", "SList", "Token", "read", "first_tokens", "INT_MAX", "MAX_TEXT_BYTES", "BOM"]

INT_MAX = 2147483647
#: The largest program (or any text the reader reads), in UTF-8 bytes: 35 times the largest
#: bundled world (7.4 KB), and small enough that ``autumn check`` of the worst such program
#: stays within seconds (docs/architecture.md, "Limits").
MAX_TEXT_BYTES = 262_144
#: A UTF-8 byte order mark, as a decoded text starts with when its file was saved with one. It
#: marks the file's encoding and is no part of the program, so the reader skips it (the reference
#: would read it as a symbol and refuse the program as "not a list of statements").
BOM = "\ufeff"
# One token of well-formed text at a time; anything else (a bad string) takes the slow path,
# which says exactly what is wrong and where.
_TOKEN = re.compile(r'(\n)|([ \t\r\f\v]+)|(;[^\n]*)|(\()|(\))'
                    r'|("(?:[^"\\\n]|\\[\'"?\\abfnrtv])*")|([^ \t\r\n\f\v()"][^ \t\r\n\f\v()]*)')
_ESCAPE = re.compile(r"\\(.)")
_WHITESPACE = " \t\r\n\f\v"
_ESCAPES = {"'": "'", '"': '"', "?": "?", "\\": "\\", "a": "\a", "b": "\b", "f": "\f",
            "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


@dataclass(frozen=True, slots=True)
class SAtom:
    """An atom; ``text`` of a string atom includes its quotes (escapes already resolved)."""

    text: str
    is_string: bool
    line: int
    column: int


@dataclass(frozen=True, slots=True)
class SList:
    items: tuple
    line: int
    column: int


def _check_size(text: str, path: str | None) -> None:
    if len(text) > MAX_TEXT_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_TEXT_BYTES:
        size = len(text.encode("utf-8", "surrogatepass"))
        raise AutumnLimitError(f"the text is {size:,} bytes; the most a program may have is "
                               f"{MAX_TEXT_BYTES:,} bytes (256 KiB)", line=1, column=1,
                               path=path)


def read(text: str, path: str | None = None) -> list:
    """Read every top-level item of ``text``; raises AutumnSyntaxError on malformed input and
    AutumnLimitError on a text over ``MAX_TEXT_BYTES``. A leading byte order mark is skipped."""
    if text.startswith(BOM):
        text = text[1:]
    _check_size(text, path)
    fast = _read_fast(text)
    return fast if fast is not None else _read_slow(text, path)


def _read_fast(text: str) -> list | None:
    """The items of well-formed text, or None if anything is malformed (the slow path then
    says what): a regular expression per token instead of a Python step per character."""
    items: list = []
    stack: list[tuple[list, int, int]] = []
    line, line_start = 1, 0
    pos, n = 0, len(text)
    match = _TOKEN.match
    while pos < n:
        m = match(text, pos)
        if m is None:
            return None
        kind = m.lastindex
        end = m.end()
        if kind == 1:
            line += 1
            line_start = end
        elif kind == 4:
            stack.append(([], line, pos - line_start + 1))
        elif kind == 5:
            if not stack:
                return None
            children, l0, c0 = stack.pop()
            (stack[-1][0] if stack else items).append(SList(tuple(children), l0, c0))
        elif kind == 6:
            raw = m.group(6)
            if "\\" in raw:
                raw = _ESCAPE.sub(lambda e: _ESCAPES[e.group(1)], raw)
            (stack[-1][0] if stack else items).append(
                SAtom(raw, True, line, pos - line_start + 1))
        elif kind == 7:
            (stack[-1][0] if stack else items).append(
                SAtom(m.group(7), False, line, pos - line_start + 1))
        pos = end
    if stack:
        return None
    return items


def _read_slow(text: str, path: str | None) -> list:
    """The reader a character at a time, for text the fast path found malformed."""
    items: list = []
    stack: list[tuple[list, int, int]] = []  # (items, line, column) of each open list
    i, n = 0, len(text)
    line, col = 1, 1

    def fail(message: str, at_line: int, at_col: int) -> AutumnSyntaxError:
        return AutumnSyntaxError(message, line=at_line, column=at_col, path=path)

    while i < n:
        c = text[i]
        if c == "\n":
            i += 1
            line += 1
            col = 1
            continue
        if c in _WHITESPACE:
            i += 1
            col += 1
            continue
        if c == ";":
            while i < n and text[i] != "\n":
                i += 1
            continue
        if c == "(":
            stack.append(([], line, col))
            i += 1
            col += 1
            continue
        if c == ")":
            if not stack:
                raise fail("unexpected ')': no list is open here", line, col)
            children, l0, c0 = stack.pop()
            node = SList(tuple(children), l0, c0)
            (stack[-1][0] if stack else items).append(node)
            i += 1
            col += 1
            continue
        start_line, start_col = line, col
        if c == '"':
            chars = ['"']
            i += 1
            col += 1
            while True:
                if i >= n:
                    raise fail("unterminated string: expected a closing '\"'",
                               start_line, start_col)
                ch = text[i]
                if ch == "\n":
                    raise fail("newline inside a string: expected a closing '\"' on the "
                               "same line", start_line, start_col)
                if ch == "\\":
                    if i + 1 >= n:
                        raise fail("unterminated string: expected a closing '\"'",
                                   start_line, start_col)
                    esc = text[i + 1]
                    if esc not in _ESCAPES:
                        raise fail(f"unknown escape '\\{esc}' in a string (expected one of "
                                   "\\' \\\" \\? \\\\ \\a \\b \\f \\n \\r \\t \\v)", line, col)
                    chars.append(_ESCAPES[esc])
                    i += 2
                    col += 2
                    continue
                chars.append(ch)
                i += 1
                col += 1
                if ch == '"':
                    break
            atom = SAtom("".join(chars), True, start_line, start_col)
        else:
            j = i
            while j < n and text[j] not in _WHITESPACE and text[j] not in "()":
                j += 1
            atom = SAtom(text[i:j], False, start_line, start_col)
            col += j - i
            i = j
        (stack[-1][0] if stack else items).append(atom)
    if stack:
        _, l0, c0 = stack[-1]
        raise fail("unclosed '(': expected a matching ')' before the end of the text", l0, c0)
    return items


@dataclass(frozen=True, slots=True)
class Token:
    """One token of an atom's text: kind is num, str, ident, op or bad."""

    kind: str
    text: str
    value: int | None = None


_TWO_CHAR = {"!=", "==", "<=", ">="}
_SINGLE_OPS = set("+/*%:&|!=<>,")


def _is_letter(c: str) -> bool:
    return c.isascii() and c.isalpha()


def first_tokens(text: str, limit: int = 2) -> list[Token]:
    """The first ``limit`` tokens of an atom's text (docs/spec/autumn.md 2.2); unknown characters skip."""
    out: list[Token] = []
    i, n = 0, len(text)
    while i < n and len(out) < limit:
        c = text[i]
        if c.isascii() and c.isdigit():
            j = i
            while j < n and text[j].isascii() and text[j].isdigit():
                j += 1
            int_part = text[i:j]
            # More significant digits than INT_MAX has can only overflow: say so without
            # converting (Python refuses to convert 4,300 digits or more)
            significant = int_part.lstrip("0")
            value = (INT_MAX + 1 if len(significant) > len(str(INT_MAX))
                     else int(significant or "0"))
            if j + 1 < n and text[j] == "." and text[j + 1].isascii() and text[j + 1].isdigit():
                j += 1
                while j < n and text[j].isascii() and text[j].isdigit():
                    j += 1
            out.append(Token("num", text[i:j], value))
            i = j
        elif _is_letter(c) or c == "_":
            j = i
            while j < n and (_is_letter(text[j]) or text[j] == "_"
                             or (text[j].isascii() and text[j].isdigit())):
                j += 1
            out.append(Token("ident", text[i:j]))
            i = j
        elif c == '"':
            j = text.find('"', i + 1)
            if j < 0:
                out.append(Token("bad", text[i:]))
                i = n
            else:
                out.append(Token("str", text[i:j + 1]))
                i = j + 1
        elif c == "-":
            if text.startswith("-->", i):
                out.append(Token("op", "-->"))
                i += 3
            else:
                out.append(Token("op", "-"))
                i += 1
        elif c == ".":
            if text.startswith("..", i):
                out.append(Token("op", ".."))
                i += 2
            else:
                out.append(Token("op", "."))
                i += 1
        elif text[i:i + 2] in _TWO_CHAR:
            out.append(Token("op", text[i:i + 2]))
            i += 2
        elif c in _SINGLE_OPS:
            out.append(Token("op", c))
            i += 1
        else:
            i += 1  # the reference reports "Unexpected character" and skips it
    return out
