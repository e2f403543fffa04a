"""Helpers of the serve tests: a server on a run directory (in-process, or uvicorn on
loopback), and scripted participants that play it over HTTP exactly as the page does (start
form, then JSON actions with sequence numbers and the episode's CSRF token)."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from scripts import load_script
from starlette.testclient import TestClient

from llm_eval.serve.app import ServeSettings, create_app

TESTS = Path(__file__).resolve().parents[1]


@functools.cache
def _agent_tests():
    """The agents' hidden-text test module, for its ``_hidden_needles`` (one definition of
    what counts as hidden text for agents and for people alike)."""
    return load_script(TESTS / "agents" / "test_llm_agent.py", "agents_test_llm_agent_for_serve")


def hidden_needles(task) -> set[str]:
    """Every distinctive text of ``task``'s hidden half."""
    return _agent_tests()._hidden_needles(task.hidden.model_dump(mode="json"))


def serve_client(run_dir: Path, **settings) -> TestClient:
    """A test client of a server on ``run_dir`` (use as a context manager: startup and
    shutdown run the lifespan, which holds the run directory's lock)."""
    app = create_app(ServeSettings(run_dir, allowed_hosts=["testserver"], **settings))
    return TestClient(app)


class Participant:
    """One person, scripted: starts an episode through the start form and sends actions as
    the page does. ``responses`` keeps every response text (for the hidden-text search)."""

    def __init__(self, client: TestClient, name: str) -> None:
        self.client = client
        self.name = name
        self.responses: list[str] = []
        self.token = self.csrf = None
        self.view: dict = {}

    def _keep(self, response):
        self.responses.append(response.text)
        return response

    def start(self, world: str, family: str, protocol: str = "worldtest") -> dict:
        home = self._keep(self.client.get("/"))
        form_token = re.search(r'name="csrf" value="([^"]+)"', home.text)[1]
        started = self._keep(self.client.post(
            "/start", data={"csrf": form_token, "participant": self.name,
                            "task": f"{world}/{family}", "protocol": protocol},
            follow_redirects=False))
        assert started.status_code == 303, started.text
        where = started.headers["location"]
        self.token = where.rsplit("/", 1)[1]
        page = self._keep(self.client.get(where))
        self.csrf = re.search(r'name="csrf-token" content="([^"]+)"', page.text)[1]
        return self.refresh()

    def refresh(self) -> dict:
        self.view = self._keep(self.client.get(f"/api/episode/{self.token}")).json()
        return self.view

    def send(self, action, seq: int | None = None, *, csrf: str | None = None,
             headers: dict | None = None):
        """POST one action; returns the response (the view is kept when it is 200)."""
        seq = self.view["seq"] if seq is None else seq
        response = self._keep(self.client.post(
            f"/api/episode/{self.token}/action", json={"seq": seq, "action": action},
            headers={"X-CSRF-Token": self.csrf if csrf is None else csrf, **(headers or {})}))
        if response.status_code == 200:
            self.view = response.json()
        return response

    def act(self, action: str) -> dict:
        response = self.send(action)
        assert response.status_code == 200, (action, response.status_code, response.text)
        return self.view

    def play(self, actions) -> dict:
        for action in actions:
            if self.view.get("done"):
                break
            self.act(action)
        return self.view

    def forms(self) -> set[str]:
        return {f["kind"] for f in self.view.get("forms", [])}


def finish_script(view: dict, *, choice: int = 0, plan=()) -> list[str]:
    """Actions that end the test phase shown in ``view`` (worldtest): MFP watches the last
    frame and chooses ``choice``; CD plays three noops, declares, watches frame 1 and submits
    it; planning plays ``plan`` then quits."""
    match view["phase"]:
        case "mfp":
            return [f"watch {view['mfp']['frames'] - 1}", f"choose {choice}"]
        case "cd":
            return ["noop", "noop", "noop", "declare", "watch 1", "submit 1"]
        case "planning":
            return [*plan, "quit"]
    raise AssertionError(f"not a test phase: {view['phase']}")


def play_whole(p: Participant, *, choice: int = 0, plan=()) -> dict:
    """Interaction (left, a click, reset, go-to-test), then the test (``finish_script``)."""
    p.play(["left", "click 1 1", "reset", "go-to-test"])
    return p.play(finish_script(p.view, choice=choice, plan=plan))


class LiveServer:
    """The app under uvicorn, as ``llm-eval serve`` runs it, on a free loopback port, in a
    thread (``url``); stopped by ``stop()`` (the lifespan's shutdown runs)."""

    def __init__(self, run_dir: Path, **settings) -> None:
        import socket
        import threading
        import time

        from llm_eval.serve.server import ServeServer, serve_config

        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        sock.close()
        self.url = f"http://127.0.0.1:{self.port}"
        app = create_app(ServeSettings(run_dir, **settings))
        # the command's own settings (llm_eval.serve.server), not the test's
        self.server = ServeServer(serve_config(app, host="127.0.0.1", port=self.port))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(30)
