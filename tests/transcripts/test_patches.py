"""How a model call is stored: patches rebuild each value exactly (any shared slice, JSON
equality), strings are capped with their length and hash, secrets are scrubbed in what a
patch adds, and a patch that does not fit its base is an error."""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from llm_eval.transcripts.callstore import CallEncoder, CallExpander, PatchError, expand_calls
from llm_eval.transcripts.cap import CAP_CHARS, cap_strings, cap_text, holds_capped, is_capped
from llm_eval.transcripts.patch import PatchChain, apply


def chain_round_trip(values: list) -> list:
    """Each value encoded on the one before, then rebuilt; the patches."""
    chain, patches, base = PatchChain(), [], None
    for value in values:
        patch = chain.encode(value)
        rebuilt = value if patch is None else apply(base, patch)
        assert json.dumps(rebuilt) == json.dumps(value)
        base = rebuilt
        patches.append(patch)
    return patches


def message(i: int) -> dict:
    return {"role": "user" if i % 2 else "assistant", "parts": [{"type": "text", "text": f"t{i}"}]}


def test_a_growing_history_is_one_copy_and_the_new_messages():
    requests = [{"messages": [message(j) for j in range(i)], "tools": [{"name": "noop"}]}
                for i in range(1, 30)]
    patches = chain_round_trip(requests)
    assert patches[0] is None
    assert patches[5] == {"dict": {"messages": {"list": [{"copy": [0, 5]},
                                                         {"add": [message(5)]}]},
                                   "tools": {"keep": True}}}
    sizes = [len(json.dumps(p)) for p in patches[1:]]
    assert max(sizes) - min(sizes) < 10   # flat, whatever the length


def test_a_history_window_copies_the_run_it_keeps():
    def windowed(i: int, k: int = 4) -> list:
        kept = list(range(max(1, i - k), i))
        summary = {"role": "user", "parts": [{"type": "text", "text": f"[{i} turns not shown]"}]}
        return [message(0), summary, *(message(j) for j in kept)]
    patches = chain_round_trip([windowed(i) for i in range(2, 40)])
    last = patches[-1]["list"]
    assert last[0] == {"copy": [0, 1]} and "add" in last[1] and "copy" in last[2]


def test_values_are_the_same_only_when_their_json_is():
    patches = chain_round_trip([{"a": [1, {"x": 1}], "b": 1.0, "c": {"k": 1, "j": 2}},
                                {"a": [True, {"x": 1}], "b": 1, "c": {"j": 2, "k": 1}}])
    ops = patches[1]["dict"]
    assert ops["a"] == {"list": [{"add": [True]}, {"copy": [1, 2]}]}
    assert ops["b"] == {"set": 1} and "keep" not in ops["c"]


def test_random_edits_round_trip():
    rng = random.Random(7)
    items = [message(i) for i in range(60)]
    values = []
    for _ in range(80):
        start = rng.randrange(0, 20)
        picked = items[start:start + rng.randrange(0, 40)]
        if picked and rng.random() < 0.5:
            picked.insert(rng.randrange(len(picked)), {"new": rng.random()})
        values.append({"messages": picked, "n": rng.randrange(3)})
    chain_round_trip(values)


@pytest.mark.parametrize("base,patch", [
    ([1, 2], {"list": [{"copy": [0, 3]}]}),
    ({"a": 1}, {"dict": {"b": {"keep": True}}}),
    ([1], {"dict": {}}),
    ([1], {"what": 1}),
    ([1], {"list": [{"move": [0, 1]}]}),
])
def test_a_patch_that_does_not_fit_is_an_error(base, patch):
    with pytest.raises(PatchError):
        apply(base, patch)


def test_a_long_string_is_capped_with_its_length_and_hash():
    text = "".join(chr(0x41 + i % 26) for i in range(200_000)) + "\nACTION: noop"
    capped, cut = cap_text(text)
    assert len(capped) <= CAP_CHARS and capped.endswith("ACTION: noop")
    assert capped.startswith(text[:1000])
    assert cut == {"length": len(text), "sha256": hashlib.sha256(text.encode()).hexdigest()}
    assert is_capped(capped) == cut and cap_text(capped) == (capped, None)   # idempotent
    assert cap_text("short") == ("short", None) and is_capped("short") is None
    cuts: list = []
    value = {"keep": "x", "reply": [text]}
    out = cap_strings(value, cuts, "response")
    assert out["reply"] == [capped] and out["keep"] == "x" and value["reply"] == [text]
    assert cuts == [{"path": "response.reply[0]", **cut}]
    assert holds_capped(out) and not holds_capped(value)


def test_calls_store_what_they_add_and_expand_to_what_was_sent(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-" + "testsecretvalue0123456789")
    encoder, stored, sent = CallEncoder(), [], []
    history: list = []
    for i in range(12):
        history.append(message(2 * i + 1))
        request = {"messages": list(history), "tools": [], "config": {"seed": 1}}
        raw = {"model": "m", "messages": list(history), "api_key": f"sk-key{i}",
               "note": "sk-" + "testsecretvalue0123456789" if i == 3 else "plain"}
        reply = "y" * (CAP_CHARS + 10) if i == 5 else f"reply {i}"
        response = {"text": reply, "raw_response": {"content": reply}}
        fields = encoder.encode(request, response, raw)
        stored.append({"index": i, **fields})
        sent.append((request, raw))
        history.append({"role": "assistant", "parts": [{"type": "text", "text": reply}]})
    assert stored[0]["request"] is not None and stored[1]["request_patch"]["base"] == 0
    text = json.dumps(stored)
    assert "sk-testsecretvalue" not in text and "sk-key" not in text
    assert len(json.dumps(stored[-1])) < 1500   # what it adds, not the history
    assert [c["path"] for c in stored[5]["truncated"]] == ["response.text",
                                                           "response.raw_response.content"]
    assert {c["path"].split(".")[0] for c in stored[6]["truncated"]} == \
        {"request_patch", "raw_request_patch"}   # the cut reply, re-sent
    for (request, raw), whole in zip(sent, expand_calls(stored)):
        if whole["index"] < 6:
            assert whole["request"] == request
        assert whole["response"]["raw_request"]["api_key"] == "[redacted]"
        assert whole["response"]["raw_request"]["messages"] == \
            cap_strings(raw["messages"], [])


def test_a_patch_on_a_call_that_is_not_the_one_before_is_an_error():
    expander = CallExpander()
    expander.expand(0, {"messages": []}, None, {}, None)
    with pytest.raises(PatchError, match="model call 1: its request is a patch on call 5, "
                                         "but the call before it is call 0"):
        expander.expand(1, None, {"base": 5, "op": {"keep": True}}, {}, None)
    with pytest.raises(PatchError, match="model call 0: its raw request is a patch on call 0, "
                                         "but the call before it is no call"):
        CallExpander().expand(0, {}, None, {}, {"base": 0, "op": {"keep": True}})
