"""How many tokens a request costs, estimated offline the same way everywhere.

No provider's tokenizer ships with its SDK (OpenAI's needs a download, Anthropic's is a paid
API call), so one estimate serves every route: ``--history auto`` keeps requests under a share
of the context window by it, and ``llm-eval run --estimate`` bills by it.

The text rule approximates a byte-pair tokenizer and errs a little high: a run of letters
counts one token per seven letters, a run of digits one per three, a run of one repeated
symbol one per eight (a grid row of `.` is a token or two, as in GPT and Claude vocabularies),
other symbols one per three, and a single space joins the word or number after it (`` the``
is one token). Measured here: the prompts' prose about 3.7 characters per token, a compact
16x16 frame 110 tokens for 402 characters, its JSON 1,024 for 2,339. An image counts
``width * height / 750`` tokens (Anthropic's published rule; OpenAI's tile rule lands near it
for our renderings), at most 1,600.

``blocks(request)`` is the request as a provider caches it: a list of content blocks in the
order they are sent (tools, the system prompt, then every part of every message), each with
its token estimate and a chained digest of everything up to it, so two requests share a prefix
of k blocks exactly when their k-th digests are equal.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import operator
import re
import struct
from dataclasses import dataclass

from .types import ImagePart, Part, Request, TextPart, ToolCallPart, ToolResultPart

__all__ = ["estimate_text", "estimate_image", "estimate_request", "Block", "blocks",
           "MESSAGE_OVERHEAD", "IMAGE_MAX_TOKENS"]

MESSAGE_OVERHEAD = 4          # role and separators around each message
IMAGE_MAX_TOKENS = 1600
_PIECE = re.compile(r" ?[A-Za-z]{1,7}| ?[0-9]{1,3}|\s+|([^\sA-Za-z0-9])\1{1,7}"
                    r"|[^\sA-Za-z0-9]{1,3}")


@functools.lru_cache(maxsize=4096)
def estimate_text(text: str) -> int:
    """The estimated token count of ``text`` (module docstring)."""
    return sum(1 for _ in _PIECE.finditer(text))


def estimate_image(part: ImagePart) -> int:
    """``width * height / 750`` of a PNG (its header read), at most ``IMAGE_MAX_TOKENS``; an
    image whose size cannot be read counts the most."""
    return _image_tokens(part.data[:44])


@functools.lru_cache(maxsize=1024)
def _image_tokens(head: str) -> int:
    try:
        raw = base64.b64decode(head + "=" * (-len(head) % 4))
        if raw[:8] != b"\x89PNG\r\n\x1a\n":
            return IMAGE_MAX_TOKENS
        width: int
        height: int
        width, height = struct.unpack(">II", raw[16:24])
    except (ValueError, struct.error):
        return IMAGE_MAX_TOKENS
    return max(1, min(IMAGE_MAX_TOKENS, -(-width * height // 750)))


# where a block is: ("tools",), ("system",) or (message index, part index, role)
Where = tuple[str] | tuple[int, int, str]


@dataclass(frozen=True, slots=True)
class Block:
    """One cacheable unit of a request: ``where`` is ``("tools",)``, ``("system",)`` or
    ``(message index, part index)``; ``digest`` covers every block up to and including this
    one; ``end`` is the tokens of every block up to and including this one; ``image`` marks an
    image part."""

    where: Where
    tokens: int
    digest: bytes
    end: int
    image: bool = False


def _part_text(part: Part) -> tuple[str, bool]:
    match part:
        case TextPart():
            return part.text, False
        case ImagePart():
            return part.data, True
        case ToolCallPart():
            return f"{part.name} {json.dumps(part.arguments, sort_keys=True)}", False
        case ToolResultPart():
            return f"{part.call_id} {part.text}", False
    raise TypeError(f"unknown part {part!r}")


def _tools_text(request: Request) -> str:
    return json.dumps([t.model_dump(mode="json") for t in request.tools], sort_keys=True)


def blocks(request: Request, previous: tuple[Request, list[Block]] | None = None,
           ) -> list[Block]:
    """The request's blocks in the order a provider reads them (module docstring).
    ``previous``, the last request and its blocks: the messages this request shares with it
    (the same objects, as an agent's history keeps them) are not read again."""
    out: list[Block] = []
    start = 0
    if previous is not None and previous[0].tools == request.tools:
        before, known = previous
        same = list(map(operator.is_, request.messages, before.messages))
        shared = same.index(False) if False in same else len(same)
        if shared:   # the system prompt is the first message
            cut = len(known)   # the known blocks are in order: the unshared messages' last
            while cut:
                first = known[cut - 1].where[0]
                if not (isinstance(first, int) and first >= shared):
                    break
                cut -= 1
            out = known[:cut]
            start = shared

    def add(where: Where, text: str, tokens: int, image: bool = False) -> None:
        link = hashlib.sha256(out[-1].digest if out else b"")
        link.update(repr(where).encode() + b"\0" + text.encode())
        out.append(Block(where, tokens, link.digest(), tokens + (out[-1].end if out else 0),
                         image))

    if request.tools and not out:
        text = _tools_text(request)
        add(("tools",), text, estimate_text(text))
    for m in range(start, len(request.messages)):
        message = request.messages[m]
        if message.role == "system":
            text = "\n\n".join(p.text for p in message.parts if isinstance(p, TextPart))
            add(("system",), text, estimate_text(text) + MESSAGE_OVERHEAD)
            continue
        for p, part in enumerate(message.parts):
            text, image = _part_text(part)
            tokens = estimate_image(part) if isinstance(part, ImagePart) else \
                estimate_text(text)   # an image part is the one image
            add((m, p, message.role), text, tokens + (MESSAGE_OVERHEAD if p == 0 else 0),
                image)
    return out


def estimate_request(request: Request) -> int:
    """The estimated input tokens of ``request``: every block's estimate summed."""
    found = blocks(request)
    return found[-1].end if found else 0
