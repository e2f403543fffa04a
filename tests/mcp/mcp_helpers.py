"""Helpers of the ``llm-eval mcp`` tests: the server as its users start it, and clients of
the official MCP SDK (stdio, streamable HTTP) that play a list of actions through its tools."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from contextlib import contextmanager
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp_types import Implementation

from llm_eval.runstore import STORE_FILE, RunStore

ENV = {"LITELLM_LOCAL_MODEL_COST_MAP": "True"}
START_TIMEOUT_S = 60


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "llm_eval", "mcp", *args]


def stdio_params(*args: str) -> StdioServerParameters:
    """``llm-eval mcp ARGS`` as a stdio client starts it."""
    return StdioServerParameters(command=sys.executable, args=command(*args)[1:], env=ENV)


def session(read, write, name: str) -> ClientSession:
    return ClientSession(read, write, client_info=Implementation(name=name, version="1.0"))


def tool_for(action: str) -> tuple[str, dict]:
    """The tool call that takes ``action``: ``reset`` and ``go-to-test`` by their own tools."""
    if action == "reset":
        return "reset", {}
    if action == "go-to-test":
        return "go_to_test", {}
    return "act", {"action": action}


async def play(client: ClientSession, actions) -> list:
    """Take ``actions`` one call each; returns the results."""
    results = []
    for action in actions:
        name, arguments = tool_for(action)
        results.append(await client.call_tool(name, arguments))
    return results


def text_of(result) -> str:
    return "\n".join(block.text for block in result.content)


def jobs(run_dir: Path) -> list:
    """Every job row of the run directory's store (read-only)."""
    with RunStore(run_dir / STORE_FILE, readonly=True) as store:
        return [row for run in store.runs() for row in store.jobs(run["id"])]


class HttpServer:
    """``llm-eval mcp --transport http --port 0 ARGS`` in a subprocess; ``url`` is the
    address it printed. ``stop()`` sends SIGINT (Ctrl-C) and waits for it to end."""

    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen(
            command("--transport", "http", "--port", "0", *args), stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, **ENV})
        self.lines: list[str] = []
        self.url = None
        for line in self.process.stderr:   # until it says where it listens
            self.lines.append(line)
            if " at http://" in line:
                self.url = line.split(" at ", 1)[1].split()[0]
                break
        if self.url is None:
            self.process.wait(START_TIMEOUT_S)
            raise AssertionError("the server did not start: " + "".join(self.lines))
        self._drain = threading.Thread(target=self._read, daemon=True)
        self._drain.start()

    def _read(self) -> None:
        for line in self.process.stderr:
            self.lines.append(line)

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                raise AssertionError("the server did not stop on Ctrl-C: "
                                     + "".join(self.lines)) from None
        self._drain.join(5)
        return self.process.returncode


@contextmanager
def http_server(*args: str):
    server = HttpServer(*args)
    try:
        yield server
    finally:
        server.stop()
