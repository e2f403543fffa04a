"""The hostile corpus's HTTP requests (``tests/hostile/http/*.http``), sent byte for byte to
``llm-eval serve`` (uvicorn on loopback, the command's settings): each is answered with the
status its file expects (``# expect: NNN``), the server logs no traceback, and it still
serves a participant afterwards. The slow tier; the findings each file records have their
own tests in ``tests/serve``.

A file is an HTTP/1.1 request after its ``#`` comment lines (lines end in CRLF when sent).
Placeholders: ``{HOST}`` the server's address, ``{TOKEN}`` and ``{CSRF}`` a live episode's,
``{LENGTH}`` the body's length, ``{NESTED}`` 4 KB of nested JSON arrays, ``{FILLER}`` 1 MB
of text, ``{BIGNUM}`` a number of 3,000 digits.
"""

from __future__ import annotations

import logging
import re
import socket
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "serve"))
import httpx  # noqa: E402
from serve_helpers import LiveServer  # noqa: E402

CORPUS = Path(__file__).parent / "http"
CASES = sorted(CORPUS.glob("*.http"))

pytestmark = pytest.mark.slow


def _request(path: Path, values: dict[str, str]) -> tuple[int, bytes]:
    """The file's expected status and its request's bytes."""
    lines = path.read_text(encoding="utf-8").splitlines()
    expect = int(re.fullmatch(r"# expect: (\d{3})", lines[0])[1])
    lines = [line for line in lines if not line.startswith("#")]
    blank = lines.index("")
    head, body = lines[:blank], "\n".join(lines[blank + 1:])
    for name, value in values.items():
        body = body.replace("{" + name + "}", value)
    values = {**values, "LENGTH": str(len(body.encode()))}
    text = "\r\n".join(head) + "\r\n\r\n"
    for name, value in values.items():
        text = text.replace("{" + name + "}", value)
    return expect, text.encode() + body.encode()


def _send(port: int, data: bytes) -> int:
    """The status of the answer to ``data`` (0 when the connection closed unanswered)."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(data)
        answer = b""
        while b"\r\n" not in answer:
            chunk = sock.recv(4096)
            if not chunk:
                break
            answer += chunk
    match = re.match(rb"HTTP/1\.1 (\d{3})", answer)
    return int(match[1]) if match else 0


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    server = LiveServer(tmp_path_factory.mktemp("hostile") / "run")
    try:
        yield server
    finally:
        server.stop()


def _episode(url: str, name: str) -> tuple[str, str]:
    with httpx.Client(base_url=url, timeout=60, follow_redirects=True) as client:
        home = client.get("/")
        form = re.search(r'name="csrf" value="([^"]+)"', home.text)[1]
        started = client.post("/start", data={"csrf": form, "participant": name,
                                               "task": "gravity/planning",
                                               "protocol": "worldtest"})
        token = str(started.url).rsplit("/", 1)[1]
        return token, re.search(r'name="csrf-token" content="([^"]+)"', started.text)[1]


def test_the_corpus_is_there():
    assert len(CASES) >= 10, CASES


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_each_hostile_request_is_answered_with_its_status(served, case, caplog):
    token, csrf = _episode(served.url, case.stem[:60])
    values = {"HOST": f"127.0.0.1:{served.port}", "TOKEN": token, "CSRF": csrf,
              "NESTED": "[" * 2040 + "]" * 2040, "FILLER": "x" * 1_000_000,
              "BIGNUM": "9" * 3000}
    expect, data = _request(case, values)
    with caplog.at_level(logging.ERROR):
        assert _send(served.port, data) == expect, case.name
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], case.name
    # and the server still serves the episode it was aimed at
    with httpx.Client(base_url=served.url, timeout=60) as client:
        view = client.get(f"/api/episode/{token}")
        assert view.status_code == 200 and view.json()["seq"] == 0, case.name
