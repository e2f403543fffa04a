"""200 participants (the slow tier; 40 in the default one) at once against one server
(uvicorn on loopback): every action each of them sent is in their transcript, once, in
order; none is lost or applied twice, even when a participant sends an action again as a
page does after a lost answer."""

from __future__ import annotations

import asyncio
import random
import re

import httpx
import pytest

from llm_eval.runstore import STORE_FILE, RunStore
from llm_eval.serve.live import TRANSCRIPTS_DIR
from llm_eval.transcripts import TranscriptStream

ACTIONS = ["left", "up", "click 3 4", "noop", "right", "reset", "down", "click 0 0"]


async def _participant(url: str, n: int, limits: httpx.Limits) -> tuple[str, list[str]]:
    rng = random.Random(n)
    actions = [ACTIONS[(n + i) % len(ACTIONS)] for i in range(6)]
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=120,
                                 follow_redirects=True) as client:
        home = await client.get("/")
        token = re.search(r'name="csrf" value="([^"]+)"', home.text)[1]
        started = await client.post("/start", data={
            "csrf": token, "participant": f"p{n:03d}", "task": "gravity/planning",
            "protocol": "worldtest"})
        assert started.status_code == 200, started.text          # after the redirect
        csrf = re.search(r'name="csrf-token" content="([^"]+)"', started.text)[1]
        episode = str(started.url).rsplit("/", 1)[1]
        sent = []
        for seq, action in enumerate(actions):
            body = {"seq": seq, "action": action}
            headers = {"X-CSRF-Token": csrf}
            for _ in range(1 + (rng.random() < 0.3)):    # a third are sent twice
                response = await client.post(f"/api/episode/{episode}/action", json=body,
                                             headers=headers)
                assert response.status_code == 200, response.text
                assert response.json()["seq"] == seq + 1
            sent.append(action)
        return f"human/p{n:03d}", sent


async def _all(url: str, participants: int) -> list[tuple[str, list[str]]]:
    limits = httpx.Limits(max_connections=4, max_keepalive_connections=4)
    return await asyncio.gather(*(_participant(url, n, limits) for n in range(participants)))


# 200 take about 20 s on two busy cores: the slow tier; the default tier runs 40
@pytest.mark.parametrize("participants", [40, pytest.param(200, marks=pytest.mark.slow)])
def test_many_participants_at_once_lose_no_action(live_server, participants):
    server, run_dir = live_server
    played = dict(asyncio.run(_all(server.url, participants)))
    assert len(played) == participants
    with RunStore(run_dir / STORE_FILE, readonly=True) as store:
        rows = [row for run in store.runs() for row in store.jobs(run["id"])]
    assert len(rows) == participants and {r.status for r in rows} == {"running"}
    for row in rows:
        path = run_dir / TRANSCRIPTS_DIR / row.transcript.split("/")[-1]
        recorded = [e.action for e in TranscriptStream(path) if e.type == "action"]
        assert recorded == played[row.settings["model"]], row.settings["model"]
