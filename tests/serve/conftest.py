"""Fixtures of the serve tests (helpers: ``serve_helpers``)."""

from __future__ import annotations

import pytest
from serve_helpers import LiveServer, serve_client


@pytest.fixture
def server(tmp_path):
    with serve_client(tmp_path / "run") as client:
        yield client, tmp_path / "run"


@pytest.fixture
def live_server(tmp_path):
    server = LiveServer(tmp_path / "run")
    yield server, tmp_path / "run"
    server.stop()
