"""Studies: balanced, seeded assignment; consent; each participant reaches only their own
tasks through their link; the operator's token downloads the results; the state survives a
restart of the server."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest
from serve_helpers import Participant, finish_script, serve_client
from starlette.testclient import TestClient

from llm_eval.serve.study import Study, StudyError, StudySpec, assign, load_study_spec

TASKS = ["gravity/planning", "gravity/mfp", "gravity/cd", "garden/planning"]


def _spec(**override) -> StudySpec:
    data = {"name": "pilot", "participants": 3, "tasks_per_participant": 2, "tasks": TASKS,
            "seed": 7, "consent": "You play small games.\n\nYour actions are recorded."}
    return StudySpec.model_validate({**data, **override})


def test_assignment_is_balanced_seeded_and_never_repeats_a_task():
    spec = _spec(participants=10, tasks_per_participant=3)
    plans = assign(spec)
    assert all(len(set(plan)) == 3 for plan in plans)
    counts = Counter(task for plan in plans for task in plan)
    assert set(counts) == {tuple(t.split("/")) for t in TASKS}
    assert max(counts.values()) - min(counts.values()) <= 1            # 30 over 4 tasks
    assert assign(spec) == plans
    assert assign(_spec(participants=10, tasks_per_participant=3, seed=8)) != plans


@pytest.mark.parametrize("override, says", [
    ({"tasks": ["gravity/planing"]}, "did you mean 'gravity/planning'"),
    ({"tasks_per_participant": 5}, "more than the 4 tasks"),
    ({"name": "Pilot 1"}, "lower-case"),
    ({"participants": 0}, "participants"),
    ({"colour": "red"}, "colour"),
])
def test_a_bad_study_spec_names_the_file_and_the_field(tmp_path, override, says):
    import yaml

    path = tmp_path / "study.yaml"
    data = {**_spec().model_dump(mode="json"), **override}
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(StudyError, match=re.escape(says)) as error:
        load_study_spec(path)
    assert str(path) in str(error.value)


class StudyParticipant(Participant):
    """A participant of a study: comes through their link."""

    def join(self, link: str) -> None:
        self.link = link
        page = self._keep(self.client.get(link))
        form = re.search(r'name="csrf" value="([^"]+)"', page.text)[1]
        assert "Your actions are recorded" in page.text
        self._keep(self.client.post(f"{link}/consent", data={"csrf": form, "agree": "yes"}))

    def next_task(self) -> dict:
        page = self._keep(self.client.get(self.link))
        assert "Task " in page.text, page.text
        form = re.search(r'name="csrf" value="([^"]+)"', page.text)[1]
        started = self._keep(self.client.post(f"{self.link}/next", data={"csrf": form},
                                              follow_redirects=False))
        assert started.status_code == 303, started.text
        self.token = started.headers["location"].rsplit("/", 1)[1]
        play = self._keep(self.client.get(started.headers["location"]))
        self.csrf = re.search(r'name="csrf-token" content="([^"]+)"', play.text)[1]
        assert f'href="{self.link}"' in play.text            # "Continue" leads back here
        return self.refresh()


def _links(study: Study) -> list[str]:
    return [f"/p/{p['token']}" for p in study.state["participants"]]


def test_participants_consent_play_their_own_tasks_and_the_operator_gets_results(tmp_path):
    spec = _spec()
    run_dir = tmp_path / "run"
    study = Study(spec, run_dir)
    links = _links(study)
    assert (run_dir / "study-pilot-links.txt").stat().st_mode & 0o077 == 0
    with serve_client(run_dir, study=spec) as client:
        assert client.get("/").status_code == 404                 # links only
        assert client.get("/p/not-a-token").status_code == 404
        ann = StudyParticipant(client, "unused")
        page = client.get(links[0])
        assert "I agree" in page.text
        assert client.post(f"{links[0]}/consent", data={"csrf": "x", "agree": "yes"}
                           ).status_code == 403
        ann.join(links[0])
        for _number, task in enumerate(study.state["participants"][0]["tasks"]):
            view = ann.next_task()
            assert view["phase"] == "interaction"
            again = client.get(ann.link, follow_redirects=False)     # a refresh: the same
            assert again.headers["location"] == f"/play/{ann.token}"
            ann.play(["left", "go-to-test"])
            ann.play(finish_script(ann.view))
            assert ann.view["done"], task
        assert "finished every task" in client.get(ann.link).text
        assert client.get("/api/study/wrong/results").status_code == 404
        operator = study.state["operator"]
        results = client.get(f"/api/study/{operator}/results").json()
    rows = results["episodes"]
    assert len(rows) == spec.participants * spec.tasks_per_participant
    first = [r for r in rows if r["participant"] == "pilot-001"]
    assert [r["task"] for r in first] == study.state["participants"][0]["tasks"]
    assert all(r["status"] == "done" and r["consented_at"] for r in first)
    assert {r["status"] for r in rows if r["participant"] != "pilot-001"} == {"not started"}


def test_a_participant_cannot_reach_anyone_elses_episode(tmp_path):
    spec = _spec()
    run_dir = tmp_path / "run"
    links = _links(Study(spec, run_dir))
    with serve_client(run_dir, study=spec) as client_a:
        client_b = TestClient(client_a.app)     # another browser: its own cookies
        a, b = StudyParticipant(client_a, "a"), StudyParticipant(client_b, "b")
        a.join(links[0])
        b.join(links[1])
        a.next_task()
        b.next_task()
        assert a.token != b.token
        a_token, a_csrf = a.token, a.csrf
        a.token, a.csrf = b.token, a_csrf                # A's token on B's episode
        assert a.send("left", seq=0).status_code == 403
        a.token = a_token
        b_page = client_b.get(links[1], follow_redirects=False)
        assert b_page.headers["location"] == f"/play/{b.token}"
        results = client_a.get(f"/api/study/{a_csrf}/results")
        assert results.status_code == 404                # an episode token is not the operator's


def test_the_study_state_survives_a_restart_and_refuses_other_settings(tmp_path):
    spec = _spec()
    run_dir = tmp_path / "run"
    first = Study(spec, run_dir)
    token = first.state["participants"][0]["token"]
    first.consent(token)
    again = Study(spec, run_dir)
    assert again.state["participants"][0]["token"] == token
    assert again.participant(token)["consented_at"] is not None
    with pytest.raises(StudyError, match="other settings"):
        Study(_spec(seed=8), run_dir)
    saved = json.loads((run_dir / "study-pilot.json").read_text())
    assert saved["operator"] == first.state["operator"]


def test_an_episode_cut_by_a_server_restart_resumes_where_it_was(tmp_path, capsys):
    from llm_eval.cli import main
    from llm_eval.runstore import STORE_FILE, RunStore
    from llm_eval.transcripts import TranscriptStream

    spec = _spec()
    run_dir = tmp_path / "run"
    link = _links(Study(spec, run_dir))[0]
    with serve_client(run_dir, study=spec) as client:
        p = StudyParticipant(client, "p")
        p.join(link)
        p.next_task()
        p.play(["left", "click 1 1", "up"])
        old_token = p.token
    with serve_client(run_dir, study=spec) as client:        # the server started again
        p.client = client
        moved = client.get(link, follow_redirects=False)     # the link leads to the same page
        assert moved.status_code == 303 and moved.headers["location"] == f"/play/{old_token}"
        assert p.csrf in client.get(moved.headers["location"]).text
        view = p.refresh()
        assert view["seq"] == 3 and view["step"] == 3 and view["phase"] == "interaction"
        p.play(["down", "go-to-test"])
        p.play(finish_script(p.view))
        assert p.view["done"]
    with RunStore(run_dir / STORE_FILE, readonly=True) as store:
        [row] = [r for run in store.runs() for r in store.jobs(run["id"])]
    assert row.status == "done" and row.executions == 2
    actions = [e.action for e in TranscriptStream(run_dir / row.transcript)
               if e.type == "action"]
    assert actions[:5] == ["left", "click 1 1", "up", "down", "go-to-test"]
    assert len(list((run_dir / "transcripts" / "attempts").iterdir())) == 1
    assert main(["replay", str(run_dir)]) == 0
    assert "reproduced 1/1" in capsys.readouterr().out


def test_a_double_click_on_start_opens_one_episode(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    spec = _spec()
    run_dir = tmp_path / "run"
    link = _links(Study(spec, run_dir))[0]
    with serve_client(run_dir, study=spec) as client:
        StudyParticipant(client, "p").join(link)
        form = re.search(r'name="csrf" value="([^"]+)"', client.get(link).text)[1]
        with ThreadPoolExecutor(4) as pool:
            answers = list(pool.map(lambda _: client.post(
                f"{link}/next", data={"csrf": form}, follow_redirects=False), range(4)))
        assert {a.status_code for a in answers} == {303}
        assert len({a.headers["location"] for a in answers}) == 1
        assert len(client.app.state.episodes.episodes()) == 1


def test_an_alias_bomb_in_a_study_spec_is_refused_as_it_is_read(tmp_path):
    """A few hundred bytes of aliases standing for billions of task names are refused while
    the YAML is composed (llm_eval.bounded_yaml), not expanded."""
    import time

    lines = ["name: pilot", "seed: 1", "participants: 2", "tasks_per_participant: 1",
             "a0: &a0 [warehouse-mfp, warehouse-mfp, warehouse-mfp, warehouse-mfp]"]
    for i in range(1, 12):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 8) + "]")
    lines.append("tasks: *a11")
    path = tmp_path / "bomb.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    start = time.process_time()
    with pytest.raises(StudyError, match=r"bomb\.yaml: not valid YAML"):
        load_study_spec(path)
    assert time.process_time() - start < 5
