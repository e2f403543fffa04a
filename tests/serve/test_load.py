"""``llm-eval serve`` under load and at its end, run as people run it (the command, in its own
process, on 127.0.0.1): every request of hundreds of clients at once is answered or refused
with a status, never closed unanswered; a Ctrl-C ends it cleanly (exit 0, no traceback, the
episodes under way back in the queue); and the keep-alive deadline never closes a connection
whose next request has already arrived (``server.KeepAliveProtocol``)."""

from __future__ import annotations

import asyncio
import os
import random
import re
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import httpx
import pytest

from llm_eval.runstore import STORE_FILE, RunStore


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class ServeProcess:
    """``llm-eval serve RUN_DIR --port P`` in a process of its own; ``interrupt()`` is the
    Ctrl-C, returning (exit code, stderr)."""

    def __init__(self, run_dir: Path) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "llm_eval", "serve", str(run_dir), "--port", str(self.port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(self.url + "/static/serve.css", timeout=5)
                return
            except httpx.TransportError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    self.process.kill()
                    raise RuntimeError("the server did not start: "
                                       + self.process.communicate()[1][-2000:]) from None
                time.sleep(0.1)

    def interrupt(self, timeout: float = 60) -> tuple[int, str]:
        self.process.send_signal(signal.SIGINT)
        try:
            _, err = self.process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            _, err = self.process.communicate()
            raise AssertionError("the server did not stop within 60 s: " + err[-2000:]) from None
        return self.process.returncode, err

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.communicate()


async def _start(client: httpx.AsyncClient, name: str) -> tuple[str, str]:
    home = await client.get("/")
    form = re.search(r'name="csrf" value="([^"]+)"', home.text)[1]
    started = await client.post("/start", data={
        "csrf": form, "participant": name, "task": "gravity/planning", "protocol": "worldtest"})
    assert started.status_code == 303, started.text
    token = started.headers["location"].rsplit("/", 1)[1]
    page = await client.get(f"/play/{token}")
    return token, re.search(r'name="csrf-token" content="([^"]+)"', page.text)[1]


async def _client(url: str, n: int, seconds: float, answered: Counter, dropped: Counter) -> None:
    """One person's browser: its own keep-alive connection, pages, views and actions, with
    a pause between requests as a person makes (short, or reading the page for seconds)."""
    rng = random.Random(n)
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=120) as client:
        end = time.monotonic() + seconds
        token = csrf = None
        seq = 0
        while time.monotonic() < end:
            try:
                if n % 5 == 0 and token is None:
                    token, csrf = await _start(client, f"p{n:03d}")
                    answered[303] += 1
                    continue
                if token is not None:
                    response = await client.post(f"/api/episode/{token}/action",
                                                 json={"seq": seq, "action": "left"},
                                                 headers={"X-CSRF-Token": csrf})
                    seq += response.status_code == 200
                else:
                    response = await client.get(rng.choice(["/", "/static/play.js",
                                                            "/api/episode/none"]))
                answered[response.status_code] += 1
            except httpx.TransportError as exc:   # closed, reset or timed out: unanswered
                dropped[f"{type(exc).__name__}: {exc}"[:120]] += 1
            pause = rng.uniform(0, 1) if rng.random() < 0.5 else rng.uniform(4, 7)
            await asyncio.sleep(min(pause, max(0.0, end - time.monotonic())))


def _load(url: str, clients: int, seconds: float) -> tuple[Counter, Counter]:
    answered, dropped = Counter(), Counter()

    async def run() -> None:
        await asyncio.gather(*(_client(url, n, seconds, answered, dropped)
                               for n in range(clients)))

    asyncio.run(run())
    return answered, dropped


# the slow tier: 500 clients for 20 s (the probe); the default tier: 100 for 10 s
@pytest.mark.parametrize("clients, seconds", [
    (100, 10), pytest.param(500, 20, marks=pytest.mark.slow)])
def test_every_request_of_many_clients_is_answered_and_the_end_is_clean(
        tmp_path, clients, seconds):
    server = ServeProcess(tmp_path / "run")
    try:
        answered, dropped = _load(server.url, clients, seconds)
        code, err = server.interrupt()
    finally:
        server.kill()
    assert not dropped, (dict(dropped), dict(answered))
    assert sum(answered.values()) >= clients and answered[200] and answered[303]
    assert set(answered) <= {200, 303, 404, 409, 503}, dict(answered)
    assert code == 0 and "Traceback" not in err and "CancelledError" not in err, err[-3000:]


def test_shutdowns_are_clean_with_episodes_under_way(tmp_path):
    """Five Ctrl-Cs, each with participants mid-episode and an action arriving as it stops:
    exit 0, nothing logged, every episode back in the queue."""
    for attempt in range(5):
        run_dir = tmp_path / f"run{attempt}"
        server = ServeProcess(run_dir)

        # runs (asyncio.run below) before the next attempt: the loop variables it reads
        # are this attempt's (the noqa: B023 below)
        async def play_then_stop() -> None:
            async with httpx.AsyncClient(base_url=server.url,  # noqa: B023
                                         timeout=60) as client:
                episodes = [await _start(client, f"p{n}") for n in range(3)]
                for token, csrf in episodes:
                    await client.post(f"/api/episode/{token}/action",
                                      json={"seq": 0, "action": "left"},
                                      headers={"X-CSRF-Token": csrf})
                token, csrf = episodes[0]
                late = asyncio.create_task(client.post(
                    f"/api/episode/{token}/action", json={"seq": 1, "action": "up"},
                    headers={"X-CSRF-Token": csrf}))
                await asyncio.sleep(random.Random(attempt).uniform(0, 0.05))  # noqa: B023
                result["exit"] = await asyncio.to_thread(server.interrupt)  # noqa: B023
                try:   # answered (the episode ended, or the action taken) or refused
                    response = await late
                    assert response.status_code in (200, 409), response.text
                except httpx.TransportError:   # the server had closed before it arrived
                    pass

        result: dict = {}
        try:
            asyncio.run(play_then_stop())
        finally:
            server.kill()
        code, err = result["exit"]
        assert code == 0 and not err.count("Traceback") and "CancelledError" not in err, \
            (attempt, err[-3000:])
        with RunStore(run_dir / STORE_FILE, readonly=True) as store:
            rows = [row for run in store.runs() for row in store.jobs(run["id"])]
        assert len(rows) == 3 and {row.status for row in rows} == {"queued"}, attempt


def test_the_keep_alive_deadline_never_closes_a_connection_with_a_request_waiting():
    """The race that dropped requests under load, made to happen: the deadline fires after
    the client's next request reached the socket, before the loop read it. uvicorn's own
    protocol closes the connection unanswered; ``KeepAliveProtocol`` answers it."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    from llm_eval.serve.server import KeepAliveProtocol, serve_config

    async def app(scope, receive, send):
        if scope["type"] != "http":
            return
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    async def race(protocol_class) -> bytes:
        from uvicorn.server import ServerState

        config = serve_config(app, host="127.0.0.1", port=0, http=protocol_class)
        config.load()
        loop = asyncio.get_running_loop()
        ours, theirs = socket.socketpair()
        protocol = protocol_class(config=config, server_state=ServerState(), app_state={})
        await loop.connect_accepted_socket(lambda: protocol, ours)
        theirs.setblocking(False)
        request = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"
        theirs.sendall(request)
        answer = b""
        while b"ok" not in answer:   # the first request, answered: the connection is idle
            await asyncio.sleep(0.01)
            answer += _recv(theirs)
        theirs.sendall(request)                      # the next request arrives ...
        protocol.timeout_keep_alive_handler()        # ... as the deadline fires
        answer = b""
        for _ in range(100):
            await asyncio.sleep(0.01)
            chunk = _recv(theirs)
            if chunk is None:
                break
            answer += chunk
            if b"ok" in answer:
                break
        theirs.close()
        return answer

    assert asyncio.run(race(H11Protocol)) == b""   # uvicorn's: closed, unanswered
    assert b"200 OK" in asyncio.run(race(KeepAliveProtocol))


def _recv(sock: socket.socket) -> bytes | None:
    """What the socket has now (b"" if nothing yet), None once the peer has closed."""
    try:
        data = sock.recv(65536)
    except BlockingIOError:
        return b""
    except ConnectionResetError:
        return None
    return data if data else None


def test_the_concurrency_limit_follows_the_open_file_limit(monkeypatch):
    """Beyond the limit uvicorn answers 503; the limit never exceeds what the file
    descriptors allow (else accept() fails and connections drop)."""
    import resource

    from llm_eval.serve import server

    async def app(scope, receive, send):
        pass

    monkeypatch.setattr(server, "raise_file_limit", lambda: 1500)
    assert server.serve_config(app, host="127.0.0.1", port=0).limit_concurrency == 300
    monkeypatch.setattr(server, "raise_file_limit", lambda: resource.RLIM_INFINITY)
    config = server.serve_config(app, host="127.0.0.1", port=0)
    assert config.limit_concurrency == server.LIMIT_CONCURRENCY
    assert config.timeout_keep_alive == server.KEEP_ALIVE_S > 60
