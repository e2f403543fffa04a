"""Form CSRF tokens are the server's own (an HMAC of its secret over the browser's session and
the form's scope), never a pair a client may choose: a page on another port of 127.0.0.1 can
set the cookie (cookies are not separated by port) and post a field equal to it, and that
pair is refused; the token the server's own page gives is accepted."""

from __future__ import annotations

import re

from serve_helpers import serve_client
from test_study import StudyParticipant, _links, _spec

from llm_eval.serve.security import CSRF_COOKIE, FormTokens
from llm_eval.serve.study import Study

FORM = {"participant": "alice", "task": "gravity/planning", "protocol": "worldtest"}


def _plant(client, value: str) -> None:
    """The cookie as another page of the same host would set it (replacing the server's)."""
    client.cookies.clear()
    client.cookies.set(CSRF_COOKIE, value, domain="testserver.local")


def _token(page) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', page.text)[1]


def test_a_planted_matching_cookie_and_field_are_refused(server):
    client, _ = server
    planted = "PlantedByAnotherPort0123456789"
    _plant(client, planted)
    refused = client.post("/start", data={**FORM, "csrf": planted}, follow_redirects=False)
    assert refused.status_code == 403 and "does not match" in refused.text
    # the server keeps the planted session but gives its own token for it, which is accepted
    page = client.get("/")
    assert client.cookies[CSRF_COOKIE] == planted and _token(page) != planted
    started = client.post("/start", data={**FORM, "csrf": _token(page)}, follow_redirects=False)
    assert started.status_code == 303


def test_the_token_is_bound_to_the_session_and_to_the_server(server, tmp_path):
    client, _ = server
    real = _token(client.get("/"))
    session = client.cookies[CSRF_COOKIE]
    _plant(client, "AnotherSession0123456789")     # the real token, moved
    assert client.post("/start", data={**FORM, "csrf": real}).status_code == 403
    _plant(client, session)
    # a token another server (another secret) made for this very session is refused
    other = FormTokens().token(session, "start")
    assert client.post("/start", data={**FORM, "csrf": other}).status_code == 403
    assert client.post("/start", data={**FORM, "csrf": real},
                       follow_redirects=False).status_code == 303


def test_a_malformed_cookie_is_replaced_not_trusted(server):
    client, _ = server
    _plant(client, "x")
    client.get("/")
    assert client.cookies[CSRF_COOKIE] != "x" and len(client.cookies[CSRF_COOKIE]) >= 16
    _plant(client, "x")
    assert client.post("/start", data={**FORM, "csrf": "x"}).status_code == 403


def test_a_participant_form_token_works_for_that_participant_only(tmp_path):
    spec = _spec()
    study = Study(spec, tmp_path / "run")
    first, second = _links(study)[:2]
    with serve_client(tmp_path / "run", study=spec) as client:
        planted = "PlantedByAnotherPort0123456789"
        _plant(client, planted)
        assert client.post(f"{first}/consent", data={"csrf": planted, "agree": "yes"}
                           ).status_code == 403
        token = _token(client.get(first))                 # the first's consent form
        assert client.post(f"{second}/consent", data={"csrf": token, "agree": "yes"}
                           ).status_code == 403
        StudyParticipant(client, "unused").join(second)     # its own token is accepted
        assert "Task 1 of" in client.get(second).text
