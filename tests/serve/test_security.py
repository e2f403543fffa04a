"""Every request validated: refused actions never reach the phase, CSRF and origin checks on
state changes, escaped text, the loopback default, sequence numbers that make a repeated
request harmless."""

from __future__ import annotations

import re

import pytest
from serve_helpers import Participant

from llm_eval.cli.serve import add_serve_parser
from llm_eval.runstore import STORE_FILE, RunStore
from llm_eval.transcripts import TranscriptStream


def _transcript_actions(run_dir):
    with RunStore(run_dir / STORE_FILE, readonly=True) as store:
        [row] = [r for run in store.runs() for r in store.jobs(run["id"])]
    return [e for e in TranscriptStream(run_dir / row.transcript) if e.type == "action"]


@pytest.mark.parametrize("action, status, says", [
    ("declare", 422, "not an action of this phase"),
    ("click 99 1", 422, "must satisfy"),
    ("watch 0", 422, "not an action of this phase"),
    ("rm -rf /", 422, "unknown action"),
    ("LEFT", 422, "unknown action"),
    ("", 422, "empty action"),
    ("left " * 20, 422, "at most 64 characters"),
    (7, 422, "an action is text"),
    (None, 422, "an action is text"),
])
def test_an_action_outside_the_valid_set_is_refused_and_never_reaches_the_phase(
        server, action, status, says):
    client, run_dir = server
    p = Participant(client, "mallory")
    p.start("gravity", "planning")
    response = p.send(action)
    assert response.status_code == status and says in response.json()["error"]
    assert p.refresh()["seq"] == 0 and p.view["step"] == 0
    p.act("left")
    [only] = _transcript_actions(run_dir)
    assert only.action == "left" and only.valid


def test_bad_bodies_are_refused(server):
    client, _ = server
    p = Participant(client, "mallory")
    p.start("gravity", "planning")
    url = f"/api/episode/{p.token}/action"
    headers = {"X-CSRF-Token": p.csrf}
    assert client.post(url, content=b"left", headers=headers).status_code == 400
    assert client.post(url, content=b"{", headers={**headers, "Content-Type":
                                                   "application/json"}).status_code == 400
    assert client.post(url, json=[0, "left"], headers=headers).status_code == 400
    assert client.post(url, json={"seq": 0, "action": "left", "x": 1},
                       headers=headers).status_code == 400
    big = {"seq": 0, "action": "x" * 5000}
    assert client.post(url, json=big, headers=headers).status_code == 400
    assert client.post(url, json={"seq": "0", "action": "left"},
                       headers=headers).status_code == 409
    assert p.refresh()["seq"] == 0


def test_state_changes_need_the_csrf_token_and_the_same_origin(server):
    client, _ = server
    p = Participant(client, "mallory")
    p.start("gravity", "planning")
    assert p.send("left", csrf="").status_code == 403
    wrong = ("y" if p.csrf[0] == "x" else "x") + p.csrf[1:]
    assert p.send("left", csrf=wrong).status_code == 403
    assert p.send("left", headers={"Origin": "http://evil.example"}).status_code == 403
    assert p.send("left", headers={"Sec-Fetch-Site": "cross-site"}).status_code == 403
    assert p.refresh()["seq"] == 0
    assert p.send("left", headers={"Origin": "http://testserver",
                                   "Sec-Fetch-Site": "same-origin"}).status_code == 200
    other = Participant(client, "other")
    other.start("gravity", "planning")
    assert p.send("left", csrf=other.csrf).status_code == 403   # tokens are per episode


def test_the_start_form_needs_its_token(server):
    client, _ = server
    client.get("/")
    form = {"participant": "x", "task": "gravity/planning", "protocol": "worldtest"}
    assert client.post("/start", data={**form, "csrf": "forged"}).status_code == 403
    client.cookies.clear()
    assert client.post("/start", data={**form, "csrf": "forged"}).status_code == 403
    page = client.get("/")
    token = page.text.split('name="csrf" value="')[1].split('"')[0]
    assert client.post("/start", data={**form, "csrf": token},
                       headers={"Origin": "http://evil.example"}).status_code == 403


def test_text_is_escaped_and_bad_form_values_are_named(server):
    client, _ = server
    page = client.get("/")
    token = page.text.split('name="csrf" value="')[1].split('"')[0]
    evil = "<script>alert(1)</script>"
    for field, value, says in (("participant", evil, "a name is 1 to 64"),
                               ("task", evil, "unknown task"),
                               ("protocol", evil, "unknown protocol")):
        form = {"csrf": token, "participant": "ok", "task": "gravity/planning",
                "protocol": "worldtest", field: value}
        response = client.post("/start", data=form)
        assert response.status_code == 400 and says in response.text
        assert evil not in response.text
        if field != "participant":
            assert "&lt;script&gt;" in response.text


def test_unknown_episodes_and_hosts_are_refused(server):
    client, _ = server
    assert client.get("/api/episode/nope").status_code == 404
    assert client.get("/play/nope").status_code == 404
    assert client.post("/api/episode/nope/action", json={"seq": 0, "action": "left"}
                       ).status_code == 404
    assert client.get("/", headers={"Host": "evil.example"}).status_code == 400


def test_responses_carry_the_security_headers(server):
    client, _ = server
    p = Participant(client, "h")
    p.start("gravity", "planning")
    for response in (client.get("/"), client.get(f"/play/{p.token}"),
                     client.get(f"/api/episode/{p.token}")):
        csp = response.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
        assert response.headers["x-frame-options"] == "DENY"
        assert response.headers["referrer-policy"] == "same-origin"
        assert response.headers["cache-control"] == "no-store"
    assert "<script>" not in client.get(f"/play/{p.token}").text   # no inline script


def test_a_repeated_action_is_answered_not_applied_twice(server):
    client, run_dir = server
    p = Participant(client, "rita")
    p.start("gravity", "planning")
    first = p.send("left", seq=0).json()
    again = p.send("left", seq=0)
    assert again.status_code == 200 and again.json() == first
    spaced = p.send(" left ", seq=0)
    assert spaced.status_code == 200
    conflict = p.send("right", seq=0)
    assert conflict.status_code == 409 and "already 'left'" in conflict.json()["error"]
    ahead = p.send("right", seq=5)
    assert ahead.status_code == 409 and "next action is number 1" in ahead.json()["error"]
    assert p.send("right", seq=1).status_code == 200
    assert [a.action for a in _transcript_actions(run_dir)] == ["left", "right"]


def test_a_reloaded_page_resumes_the_same_episode(server):
    client, _ = server
    p = Participant(client, "sam")
    p.start("gravity", "planning")
    p.play(["left", "up", "click 2 2"])
    page = client.get(f"/play/{p.token}")
    assert p.csrf in page.text
    view = p.refresh()
    assert view["seq"] == 3 and view["step"] == 3 and view["phase"] == "interaction"


def test_the_server_binds_the_loopback_address_by_default():
    import argparse

    parser = argparse.ArgumentParser()
    add_serve_parser(parser.add_subparsers())
    args = parser.parse_args(["serve"])
    assert args.host == "127.0.0.1" and args.port == 8000


def test_a_long_past_action_sent_again_is_answered_at_once(server):
    """An old action number sent again (a second tab, a stale retry) gets the view as it is
    now without waiting for a turn that has passed: it cannot hold a server thread."""
    import time

    client, run_dir = server
    p = Participant(client, "ursula")
    p.start("gravity", "planning")
    p.play(["left", "right", "up"])
    started = time.perf_counter()
    stale = p.send("left", seq=0)
    took = time.perf_counter() - started
    assert stale.status_code == 200 and stale.json()["seq"] == 3, stale.text
    assert took < 5.0, took   # the turn it once waited for was 30 s away
    assert [a.action for a in _transcript_actions(run_dir)] == ["left", "right", "up"]


def test_unfinished_episodes_are_capped_per_participant(server, monkeypatch):
    from llm_eval.serve import live

    client, _ = server
    monkeypatch.setattr(live, "MAX_OPEN_PER_PARTICIPANT", 2)
    for _ in range(2):
        Participant(client, "vic").start("gravity", "planning")
    home = client.get("/")
    token = re.search(r'name="csrf" value="([^"]+)"', home.text)[1]
    refused = client.post("/start", data={"csrf": token, "participant": "vic",
                                          "task": "gravity/planning", "protocol": "worldtest"},
                          follow_redirects=False)
    assert refused.status_code == 400 and "2 unfinished episodes" in refused.text
    Participant(client, "wanda").start("gravity", "planning")   # others are not held back


def test_a_store_that_fails_at_the_end_still_ends_the_episode(server, monkeypatch):
    """A run store that cannot record an episode's end (a full disk) must not leave the page
    waiting for ever: the episode ends, failed, naming why."""
    from serve_helpers import play_whole

    client, _ = server
    p = Participant(client, "xena")
    p.start("gravity", "planning")

    def full(self, *args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(RunStore, "finish", full)
    play_whole(p)
    view = p.refresh()
    assert view["done"] and view["status"] == "failed", view


def test_every_interface_still_checks_the_host_name(tmp_path):
    """--host 0.0.0.0 listens everywhere but answers only this machine's names and those
    given with --allow-host, so a page on another name (DNS rebinding) is refused."""
    import socket

    from llm_eval.serve.app import ServeSettings

    settings = ServeSettings(tmp_path / "run", host="0.0.0.0", allowed_hosts=["lab.example"])
    assert "*" not in settings.allowed_hosts and "0.0.0.0" not in settings.allowed_hosts
    assert {"127.0.0.1", "localhost", "lab.example", socket.gethostname()} <= \
        set(settings.allowed_hosts)


def test_a_deeply_nested_body_is_a_bad_request(server):
    """4 KB of nested arrays (as deep as a body can nest): a 400, never a 500, whatever the
    parser's depth limit is (tests/hostile/http/deep-json-nesting.http)."""
    client, _ = server
    p = Participant(client, "mallory")
    p.start("gravity", "planning")
    response = client.post(f"/api/episode/{p.token}/action",
                           content=("[" * 2040 + "]" * 2040).encode(),
                           headers={"X-CSRF-Token": p.csrf, "Content-Type": "application/json"})
    assert response.status_code == 400, response.text
    assert p.refresh()["seq"] == 0


def test_the_json_parser_running_out_of_depth_is_a_bad_request(monkeypatch):
    """A RecursionError of the parser (the depth limit lower than the body's nesting) is the
    request's fault: ``ValueError``, answered 400."""
    import asyncio
    import json

    from llm_eval.serve import forms

    def too_deep(_):
        raise RecursionError("maximum recursion depth exceeded while decoding a JSON array")

    monkeypatch.setattr(json, "loads", too_deep)

    class Request:
        headers = {"content-type": "application/json", "content-length": "4"}

        async def stream(self):
            yield b"[[]]"

    with pytest.raises(ValueError, match="nested too deeply"):
        asyncio.run(forms.json_body(Request()))


def test_a_huge_sequence_number_is_out_of_turn_and_quoted_short(server):
    client, _ = server
    p = Participant(client, "mallory")
    p.start("gravity", "planning")
    response = p.send("left", seq=int("9" * 3000))
    assert response.status_code == 409 and len(response.text) < 300, response.text[:300]
    assert "3000 characters" in response.json()["error"]
    response = p.send("left", seq="x" * 3000)
    assert response.status_code == 409 and len(response.text) < 300
