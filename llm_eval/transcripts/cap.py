"""The cap on stored text: no string in a stored model call is longer than ``CAP_CHARS``.

A model can answer with megabytes of text, and that text comes back in the provider's raw
response and in every later request. A stored string longer than ``CAP_CHARS`` (65,536
characters; what the rendered prompts send is far below it, so in practice only model replies
and what re-sends them are cut) keeps its first ``HEAD_CHARS`` and its end, with a line
between them that says it was cut and gives the original length and the sha256 of its UTF-8
bytes::

    <head>
    [llm-eval: 10420224 characters cut here; the text had 10485760 characters, sha256 ...]
    <tail>

The result is at most ``CAP_CHARS`` long, so capping is idempotent: a replay answers with
the capped reply, and the requests that re-send it match the recording's stored (capped)
requests (``llm_eval.replay``).
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

__all__ = ["CAP_CHARS", "HEAD_CHARS", "cap_text", "cap_strings", "is_capped", "holds_capped"]

CAP_CHARS = 65_536
HEAD_CHARS = 49_152
_MARK = ("\n[llm-eval: {cut} characters cut here; the text had {length} characters, "
         "sha256 {digest}]\n")
_MARK_RE = re.compile(r"\n\[llm-eval: \d+ characters cut here; the text had (\d+) characters, "
                      r"sha256 ([0-9a-f]{64})\]\n")


def cap_text(text: str) -> tuple[str, dict[str, Any] | None]:
    """``text`` capped (module docstring), and what was cut (``length``, ``sha256``) or None."""
    if len(text) <= CAP_CHARS:
        return text, None
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    mark_len = len(_MARK.format(cut=len(text), length=len(text), digest=digest))
    tail = CAP_CHARS - HEAD_CHARS - mark_len
    cut = len(text) - HEAD_CHARS - tail
    capped = text[:HEAD_CHARS] + _MARK.format(cut=cut, length=len(text), digest=digest) + \
        text[len(text) - tail:]
    return capped, {"length": len(text), "sha256": digest}


def is_capped(text: str) -> dict[str, Any] | None:
    """The original ``length`` and ``sha256`` of a capped string, or None."""
    if len(text) < CAP_CHARS - 1_000:
        return None
    found = _MARK_RE.search(text, HEAD_CHARS, HEAD_CHARS + 200)
    return {"length": int(found[1]), "sha256": found[2]} if found else None


def cap_strings(value: Any, cuts: list[dict[str, Any]], where: str = "") -> Any:
    """``value`` (JSON data) with every string capped; each cut is appended to ``cuts`` with
    its ``path`` (``where`` then the keys and indexes down to it). Returns ``value`` itself
    when nothing was cut."""
    kind = type(value)
    if kind is str:
        capped, cut = cap_text(value)
        if cut is None:   # short enough
            return value
        cuts.append({"path": where, **cut})
        return capped
    if kind is dict:
        out = None
        for key, item in value.items():
            new = cap_strings(item, cuts, f"{where}.{key}" if where else str(key))
            if new is not item:
                out = dict(value) if out is None else out
                out[key] = new
        return value if out is None else out
    if kind is list:
        out_list = None
        for i, item in enumerate(value):
            new = cap_strings(item, cuts, f"{where}[{i}]")
            if new is not item:
                out_list = list(value) if out_list is None else out_list
                out_list[i] = new
        return value if out_list is None else out_list
    return value


def holds_capped(value: Any) -> bool:
    """Whether any string in ``value`` (JSON data) was capped."""
    kind = type(value)
    if kind is str:
        return is_capped(value) is not None
    if kind is dict:
        return any(holds_capped(v) for v in value.values())
    if kind is list:
        return any(holds_capped(v) for v in value)
    return False
