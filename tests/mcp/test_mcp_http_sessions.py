"""``llm-eval mcp --transport http``: each MCP session is a client of its own. Two clients at
once play separate episodes (their own jobs and transcripts, interleaved call by call); the
same client name again is the task's next repeat; a session the client ends leaves its
episode unscored (interrupted); sessionless (2026-era) calls and requests naming another host
are refused; Ctrl-C stops the server cleanly and the run directory replays."""

from __future__ import annotations

import socket
import time
import urllib.error
import urllib.request

import anyio
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_helpers import http_server, jobs, play, session, text_of
from mcp_types import Implementation

from llm_eval.cli import main
from llm_eval.replay import recorded_actions

pytestmark = pytest.mark.timeout(150)

ALPHA = ["left", "noop", "click 1 1", "go-to-test", "right", "quit"]
BETA = ["right", "reset", "up", "down", "go-to-test", "quit"]


async def _two_at_once(url: str) -> tuple[list, list]:
    """alpha (the streamable HTTP transport and a ClientSession) and beta (the SDK's Client,
    negotiating on its own) take turns, one call each."""
    async with streamable_http_client(url) as (read, write):
        async with session(read, write, "alpha") as alpha:
            await alpha.initialize()
            async with Client(url, client_info=Implementation(name="beta", version="1")) \
                    as beta:
                a = [await alpha.call_tool("observe", {})]
                b = [await beta.call_tool("observe", {})]
                for mine, theirs in zip(ALPHA, BETA):
                    a += await play(alpha, [mine])
                    b += await play(beta.session, [theirs])
    return a, b


async def _leaves_early(url: str) -> dict:
    """A second session of alpha takes one action and ends its session (DELETE)."""
    async with streamable_http_client(url) as (read, write):
        async with session(read, write, "alpha") as again:
            await again.initialize()
            result = await again.call_tool("act", {"action": "noop"})
    return result.structured_content


async def _sessionless(url: str):
    async with Client(url, mode="2026-07-28") as client:
        return await client.call_tool("observe", {})


def _wait_for(predicate, seconds: float = 20.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def test_sessions_are_separate_episodes(tmp_path, capsys):
    run_dir = tmp_path / "run"
    with http_server("--task", "gravity-planning", "--run-dir", str(run_dir)) as server:
        assert server.url.startswith("http://127.0.0.1:") and server.url.endswith("/mcp")
        a, b = anyio.run(_two_at_once, server.url)
        assert a[0].structured_content["agent"] == "mcp/alpha"
        assert b[0].structured_content["agent"] == "mcp/beta"
        assert a[0].structured_content["job"] != b[0].structured_content["job"]
        assert not any(r.is_error for r in a + b)
        assert a[-1].structured_content["done"] and b[-1].structured_content["done"]

        early = anyio.run(_leaves_early, server.url)
        assert early["agent"] == "mcp/alpha" and not early["done"]
        assert _wait_for(lambda: any(r.id == early["job"] and r.status == "queued"
                                     for r in jobs(run_dir))), "the ended session's episode"

        refused = anyio.run(_sessionless, server.url)
        assert refused.is_error and "episode per MCP session" in text_of(refused)

        request = urllib.request.Request(server.url, method="POST", data=b"{}", headers={
            "Host": "attacker.example", "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream"})
        with pytest.raises(urllib.error.HTTPError) as refused_host:
            urllib.request.urlopen(request, timeout=10)
        assert refused_host.value.code in (400, 403, 421)
        assert server.stop() == 0

    rows = {r.id: r for r in jobs(run_dir)}
    by_job = {r.structured_content["job"]: actions
              for r, actions in ((a[0], ALPHA), (b[0], BETA))}
    for job, actions in by_job.items():
        row = rows.pop(job)
        assert row.status == "done" and row.score == 0.0
        assert list(recorded_actions(run_dir / row.transcript)) == actions
    (left,) = rows.values()   # alpha's second session: the task's next repeat, unscored
    assert left.settings["model"] == "mcp/alpha" and left.settings["repeat"] == 1
    assert left.score is None and "ended its session" in left.error
    assert list(recorded_actions(run_dir / left.transcript)) == ["noop"]

    capsys.readouterr()
    assert main(["replay", str(run_dir)]) == 0
    assert "reproduced 2/2" in capsys.readouterr().out


def test_the_printed_address_already_accepts_connections(tmp_path):
    """A client that connects the moment it reads the address is queued, never refused: the
    socket listens before the line is printed (the server's own startup comes after)."""
    with http_server("--task", "gravity-planning", "--run-dir", str(tmp_path / "run")) as server:
        host, port = server.url.removeprefix("http://").split("/")[0].rsplit(":", 1)
        with socket.create_connection((host, int(port)), timeout=5) as early:
            # the request it sends at once is answered once the server is up (405: an MCP
            # endpoint takes POST), so the server is stopped only after its startup
            early.sendall(f"GET /mcp HTTP/1.1\r\nHost: {host}:{port}\r\n"
                          "Connection: close\r\n\r\n".encode())
            assert early.recv(64).startswith(b"HTTP/1.1 ")
