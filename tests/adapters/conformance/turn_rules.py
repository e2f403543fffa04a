"""The multi-turn rules the providers document, checked on a recorded sequence of requests
(``bodies[k]``, the k-th request sent) and the replies that answered them (``replies[k]``).
Each rule returns the list of its violations, ``"request k: what"``; empty means it held.

- ``calls_answered``: every tool call of reply k is answered in request k+1 by a tool result
  carrying its id, placed where the API requires it (Anthropic: ``tool_result`` blocks at the
  start of the user turn right after the assistant turn; Chat: ``tool`` messages right after
  the assistant message; Responses: a ``function_call_output`` after the ``function_call``);
- ``no_empty_ids``: no call id or tool-result id is empty;
- ``thinking_replayed``: Anthropic thinking and redacted thinking blocks of reply k come back
  in request k+1 unmodified, in order, first in the assistant turn;
- ``reasoning_paired``: on the Responses route with ``store: false``, a reasoning item goes
  back followed by the items it came with, as returned: each with its ``id`` (``fc_``,
  ``msg_``) and a message with its ``phase``;
- ``no_forced_tool_with_thinking``: a request with thinking enabled never forces a tool
  (Anthropic: "Thinking may not be enabled when tool_choice forces tool use");
- ``thinking_within_max_tokens``: a thinking budget is at least 1,024 tokens and below
  ``max_tokens`` (Anthropic: "`max_tokens` must be greater than `thinking.budget_tokens`");
- ``provider_fields_kept``: a Chat tool call's provider fields (Gemini's
  ``extra_content.google.thought_signature``) go back on the same call.
"""

from __future__ import annotations

from typing import Any

__all__ = ["calls_answered", "no_empty_ids", "thinking_replayed", "reasoning_paired",
           "no_forced_tool_with_thinking", "thinking_within_max_tokens",
           "provider_fields_kept", "reply_calls", "RULES"]


def reply_calls(api: str, reply: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool calls of a reply body, in the provider's own shape."""
    if api == "responses":
        return [i for i in reply["output"] if i["type"] == "function_call"]
    if api == "chat":
        return list(reply["choices"][0]["message"].get("tool_calls") or ())
    return [b for b in reply["content"] if b["type"] == "tool_use"]


def _call_id(api: str, call: dict[str, Any]) -> Any:
    return call.get("call_id") if api == "responses" else call.get("id")


def _results(api: str, body: dict[str, Any]) -> list[Any]:
    """The ids every tool result of ``body`` answers."""
    if api == "responses":
        return [i.get("call_id") for i in body["input"]
                if i.get("type") == "function_call_output"]
    if api == "chat":
        return [m.get("tool_call_id") for m in body["messages"] if m["role"] == "tool"]
    return [b.get("tool_use_id") for m in body["messages"] if isinstance(m["content"], list)
            for b in m["content"] if b.get("type") == "tool_result"]


def _assistant_calls(api: str, body: dict[str, Any]) -> list[tuple[int, list[Any]]]:
    """(position, call ids) of each assistant turn's calls in ``body``."""
    out = []
    if api == "responses":
        for i, item in enumerate(body["input"]):
            if item.get("type") == "function_call":
                out.append((i, [item.get("call_id")]))
    elif api == "chat":
        for i, m in enumerate(body["messages"]):
            if m["role"] == "assistant" and m.get("tool_calls"):
                out.append((i, [c.get("id") for c in m["tool_calls"]]))
    else:
        for i, m in enumerate(body["messages"]):
            if m["role"] == "assistant" and isinstance(m["content"], list):
                ids = [b.get("id") for b in m["content"] if b.get("type") == "tool_use"]
                if ids:
                    out.append((i, ids))
    return out


def calls_answered(api: str, bodies: list[dict], replies: list[dict]) -> list[str]:
    problems = []
    for k, reply in enumerate(replies[:-1]):
        answered = _results(api, bodies[k + 1])
        calls, back = reply_calls(api, reply), _sent_back(api, bodies[k + 1], reply)
        if len(back) != len(calls):
            problems.append(f"request {k + 1}: reply {k} made {len(calls)} call(s), "
                            f"{len(back)} went back")
        for call, sent in zip(calls, back):
            cid = _call_id(api, call)
            if cid and sent != cid:
                problems.append(f"request {k + 1}: call {cid!r} of reply {k} went back as "
                                f"{sent!r}")
            if sent not in answered:
                problems.append(f"request {k + 1}: call {sent!r} (reply {k}'s {cid!r}, "
                                f"{_name(api, call)}) has no tool result (results: {answered})")
    for k, body in enumerate(bodies):
        problems.extend(f"request {k}: {p}" for p in _placed(api, body))
    return problems


def _name(api: str, call: dict[str, Any]) -> Any:
    return call["function"]["name"] if api == "chat" else call.get("name")


def _sent_back(api: str, body: dict[str, Any], reply: dict[str, Any]) -> list[Any]:
    """The ids under which ``reply``'s calls went back in ``body``: on Responses its items
    by call id; on Chat and Messages the calls of the last assistant turn, in order (a call
    the provider gave no id must go back under an id of our own)."""
    if api == "responses":
        sent = {i.get("call_id") for i in body["input"] if i.get("type") == "function_call"}
        return [c["call_id"] if c["call_id"] in sent else None
                for c in reply_calls(api, reply)]
    turn = _last_assistant(body) or {}
    if api == "chat":
        return [c.get("id") for c in turn.get("tool_calls") or ()]
    content = turn.get("content") if isinstance(turn.get("content"), list) else []
    return [b.get("id") for b in content if b.get("type") == "tool_use"]


def _placed(api: str, body: dict[str, Any]) -> list[str]:
    """Within one request: each assistant turn's calls answered where the API wants them."""
    problems = []
    for at, ids in _assistant_calls(api, body):
        if api == "responses":
            later = [i.get("call_id") for i in body["input"][at + 1:]
                     if i.get("type") == "function_call_output"]
            problems.extend(f"function_call {c!r} has no later function_call_output"
                            for c in ids if c not in later)
        elif api == "chat":
            following = []
            for m in body["messages"][at + 1:]:
                if m["role"] != "tool":
                    break
                following.append(m.get("tool_call_id"))
            problems.extend(f"tool call {c!r} not answered by the tool messages right after it"
                            f" (got {following})" for c in ids if c not in following)
        else:
            nxt = body["messages"][at + 1] if at + 1 < len(body["messages"]) else None
            blocks = nxt["content"] if nxt and isinstance(nxt["content"], list) else []
            lead = []
            for b in blocks:
                if b.get("type") != "tool_result":
                    break
                lead.append(b.get("tool_use_id"))
            problems.extend(f"tool_use {c!r} not answered by a tool_result at the start of "
                            f"the next user turn (got {lead})" for c in ids if c not in lead)
    return problems


def no_empty_ids(api: str, bodies: list[dict], replies: list[dict]) -> list[str]:
    problems = []
    for k, body in enumerate(bodies):
        ids = [i for _, group in _assistant_calls(api, body) for i in group]
        for cid in [*ids, *_results(api, body)]:
            if not isinstance(cid, str) or not cid.strip():
                problems.append(f"request {k}: an empty tool call id {cid!r}")
    return problems


def _last_assistant(body: dict[str, Any]) -> dict[str, Any] | None:
    return next((m for m in reversed(body["messages"]) if m["role"] == "assistant"), None)


def thinking_replayed(api: str, bodies: list[dict], replies: list[dict]) -> list[str]:
    if api != "messages":
        return []
    problems = []
    for k, reply in enumerate(replies[:-1]):
        blocks = [b for b in reply["content"] if b["type"] in ("thinking", "redacted_thinking")]
        if not blocks:
            continue
        turn = _last_assistant(bodies[k + 1])
        sent = turn["content"] if turn and isinstance(turn["content"], list) else []
        if sent[:len(blocks)] != blocks:
            problems.append(f"request {k + 1}: the assistant turn does not start with reply "
                            f"{k}'s thinking blocks as returned: sent {sent[:len(blocks)]!r:.300}")
    return problems


def reasoning_paired(api: str, bodies: list[dict], replies: list[dict]) -> list[str]:
    if api != "responses":
        return []
    problems = []
    for k, reply in enumerate(replies):
        first = next((i for i, o in enumerate(reply["output"]) if o["type"] == "reasoning"),
                     None)
        if first is None:
            continue
        output = reply["output"][first:]
        for j in range(k + 1, len(bodies)):   # every later request that carries it back
            if bodies[j].get("store"):
                continue
            items = bodies[j]["input"]
            start = next((i for i, item in enumerate(items) if item.get("type") == "reasoning"
                          and item.get("id") == output[0]["id"]), None)
            if start is None:
                if j == k + 1:
                    problems.append(f"request {j}: reply {k}'s reasoning item is not sent back")
                continue
            sent = items[start:start + len(output)]
            for want, got in zip(output, sent + [{}] * (len(output) - len(sent))):
                for key in ("type", "id", "call_id", "phase", "encrypted_content"):
                    if key in want and got.get(key) != want[key]:
                        problems.append(f"request {j}: after reply {k}'s reasoning item, the "
                                        f"{want['type']} {want.get('id')!r} goes back with "
                                        f"{key} {got.get(key)!r}, not {want[key]!r}")
    return problems


def no_forced_tool_with_thinking(api: str, bodies: list[dict], replies: list[dict]) -> list[str]:
    problems = []
    for k, body in enumerate(bodies):
        thinking = body.get("thinking")
        if not (isinstance(thinking, dict) and thinking.get("type") in ("enabled", "adaptive")):
            continue
        choice = body.get("tool_choice")
        kind = choice.get("type") if isinstance(choice, dict) else choice
        if kind in ("any", "tool", "required", "function"):
            problems.append(f"request {k}: thinking is on and tool_choice forces a tool "
                            f"({choice})")
    return problems


def thinking_within_max_tokens(api: str, bodies: list[dict], replies: list[dict]) -> list[str]:
    problems = []
    for k, body in enumerate(bodies):
        thinking = body.get("thinking")
        if not (isinstance(thinking, dict) and thinking.get("type") == "enabled"):
            continue
        budget, cap = thinking.get("budget_tokens"), body.get("max_tokens")
        if not (isinstance(budget, int) and budget >= 1024):
            problems.append(f"request {k}: thinking budget_tokens {budget!r} is under 1024")
        elif not (isinstance(cap, int) and budget < cap):
            problems.append(f"request {k}: thinking budget_tokens {budget} is not below "
                            f"max_tokens {cap!r}")
    return problems


def provider_fields_kept(api: str, bodies: list[dict], replies: list[dict]) -> list[str]:
    if api != "chat":
        return []
    problems = []
    for k, reply in enumerate(replies[:-1]):
        turn = _last_assistant(bodies[k + 1]) or {}
        sent = turn.get("tool_calls") or []
        for i, call in enumerate(reply_calls(api, reply)):
            extra = {key: v for key, v in call.items() if key not in ("id", "type", "function")}
            back = sent[i] if i < len(sent) else {}
            for key, value in extra.items():
                if back.get(key) != value:
                    problems.append(f"request {k + 1}: tool call {i} of reply {k} goes back "
                                    f"without its {key} {value!r:.80}")
    return problems


RULES = {f.__name__: f for f in (calls_answered, no_empty_ids, thinking_replayed,
                                  reasoning_paired, no_forced_tool_with_thinking,
                                  thinking_within_max_tokens, provider_fields_kept)}
