"""People play over HTTP: the same phases as agents, recorded as ordinary jobs that replay
exactly and appear in the report and the analysis."""

from __future__ import annotations

import re

from serve_helpers import Participant, play_whole, serve_client

from llm_eval.cli import main
from llm_eval.runstore import STORE_FILE, RunStore
from llm_eval.tasks.store import load_task
from llm_eval.transcripts import TranscriptStream


def _rows(run_dir):
    with RunStore(run_dir / STORE_FILE, readonly=True) as store:
        return [row for run in store.runs() for row in store.jobs(run["id"])]


def _events(run_dir, row):
    return list(TranscriptStream(run_dir / row.transcript))


def test_a_planning_task_played_to_success_is_a_done_job_that_replays(server, capsys):
    client, run_dir = server
    task = load_task("gravity", "planning")
    p = Participant(client, "alice")
    view = p.start("gravity", "planning")
    assert view["phase"] == "interaction" and view["family"] is None and view["seq"] == 0
    assert {"reset", "go-to-test", "click", "noop"} <= p.forms()
    p.play(["left", "go-to-test"])
    assert p.view["phase"] == "planning"
    assert p.view["planning"]["goal"]["src"].startswith("data:image/png;base64,")
    view = p.play(task.hidden.witness)
    assert view["done"] and view["status"] == "done"
    [row] = _rows(run_dir)
    assert row.status == "done" and row.score == 1.0
    assert row.settings["model"] == "human/alice" and row.settings["seed"] == 1
    events = _events(run_dir, row)
    actions = [e for e in events if e.type == "action"]
    assert [a.action for a in actions] == ["left", "go-to-test", *task.hidden.witness]
    assert all(a.valid and a.time for a in actions)            # every action has its time
    assert events[0].settings == row.settings and events[-1].status == "done"
    assert main(["replay", str(run_dir)]) == 0
    assert "reproduced 1/1" in capsys.readouterr().out


def test_an_mfp_and_a_cd_task_are_played_through_their_phases(server):
    client, run_dir = server
    mfp = load_task("gravity", "mfp")
    p = Participant(client, "bob")
    p.start("gravity", "mfp")
    p.play(["left", "click 1 1", "reset", "go-to-test"])
    assert p.view["phase"] == "mfp" and len(p.view["mfp"]["options"]) == 6
    last = p.view["mfp"]["frames"] - 1
    p.act(f"watch {last}")
    assert p.view["mfp"]["watching"] == last
    assert p.act(f"choose {mfp.hidden.answer}")["done"]

    q = Participant(client, "bob")
    q.start("gravity", "cd")
    q.play(["left", "go-to-test", "noop", "noop"])
    assert q.view["phase"] == "cd" and "declare" not in q.forms()   # not before step 3
    q.play(["noop", "declare"])
    assert q.view["cd"]["declared"] and {"watch", "submit"} == q.forms()
    q.act("watch 2")
    assert q.act("submit 2")["done"]
    rows = {r.settings["family"]: r for r in _rows(run_dir)}
    assert rows["mfp"].status == rows["cd"].status == "done"
    assert rows["mfp"].score == 1.0
    assert rows["cd"].raw_reward is not None


def test_playing_the_same_task_again_is_the_next_repeat(server):
    client, run_dir = server
    for _ in range(2):
        p = Participant(client, "carol")
        p.start("gravity", "planning")
        play_whole(p)
    rows = _rows(run_dir)
    assert sorted(r.settings["repeat"] for r in rows) == [0, 1]
    assert len({r.id for r in rows}) == 2


def test_the_autumnbench_protocol_offers_the_harness_strings(server):
    client, run_dir = server
    p = Participant(client, "dana")
    view = p.start("gravity", "cd", protocol="autumnbench")
    assert "go-to-test" in view["offered"] and view["text"]
    assert p.send("declare").status_code == 422        # a worldtest word, not offered here
    p.play(["left", "click 2 3", "go-to-test", "noop", "noop", "noop"])
    assert "I found the change!" in p.view["offered"]
    p.play(["I found the change!", "choose_frame_1", "Submit choice"])
    assert p.view["done"]
    [row] = _rows(run_dir)
    assert row.status == "done" and row.settings["protocol"] == "autumnbench"
    assert main(["replay", str(run_dir)]) == 0


def test_the_report_and_compare_show_the_human_arm_beside_a_model(server, tmp_path, capsys):
    client, run_dir = server
    task = load_task("gravity", "planning")
    p = Participant(client, "erin")
    p.start("gravity", "planning")
    p.play(["go-to-test", *task.hidden.witness])
    q = Participant(client, "gus")   # a second person on the same task: the same arm
    q.start("gravity", "planning")
    q.play(["go-to-test", *task.hidden.witness[:1]] + ["noop"] * task.public.horizon)
    models = tmp_path / "models"
    assert main(["run", "--model", "random", "--worlds", "gravity", "--families", "planning",
                 "--interaction-steps", "5", "-o", str(models)]) == 0
    report = tmp_path / "report.html"
    assert main(["report", str(run_dir), str(models), "-o", str(report)]) == 0
    page = report.read_text(encoding="utf-8")
    assert "human/erin" in page and "human/gus" in page and "random" in page   # transcripts
    # the leaderboard pools the participants into one human arm: 2 episodes, mean 0.5
    board = page[page.index('id="leaderboard"'):page.index("</table>", page.index('id="leaderboard"'))]
    # (the row's header links to its arm's reproduction card since the report's cards)
    assert re.search(r"<th>(<a [^>]*>)?human(</a>)?</th>", board) and "human/erin" not in board
    assert 'data-model="human" data-family="overall"' in board
    assert re.search(r'data-mean="0\.500000" data-n="2" data-model="human" '
                     r'data-family="overall"', board), board
    capsys.readouterr()
    assert main(["compare", str(models), str(run_dir), "--match", "world", "family", "seed"]) == 0
    out = capsys.readouterr().out
    planning = next(line for line in out.splitlines() if line.startswith("planning"))
    # random 0; the people 1 and 0 on the one task: 0.5
    assert planning.split()[1:5] == ["1", "0.000", "0.500", "+0.500"], out


def test_a_server_stopped_mid_episode_leaves_the_job_queued_unscored(tmp_path):
    run_dir = tmp_path / "run"
    with serve_client(run_dir) as client:
        p = Participant(client, "finn")
        p.start("gravity", "planning")
        p.play(["left", "right"])
    [row] = _rows(run_dir)
    assert row.status == "queued" and row.score is None
    assert "server stopped" in row.error
    events = _events(run_dir, row)
    assert events[-1].type == "end" and events[-1].status == "interrupted"


def test_an_open_page_goes_on_after_the_server_restarts(tmp_path, capsys):
    run_dir = tmp_path / "run"
    with serve_client(run_dir) as client:
        p = Participant(client, "gus")
        p.start("gravity", "planning")
        p.play(["left", "up"])
    assert (run_dir / "serve-episodes.json").stat().st_mode & 0o077 == 0
    with serve_client(run_dir) as client:     # the same address and token still work
        p.client = client
        assert p.refresh()["seq"] == 2
        p.play(["go-to-test", *load_task("gravity", "planning").hidden.witness])
        assert p.view["done"]
    with serve_client(run_dir) as client:
        gone = client.get(f"/api/episode/{p.token}")
        assert gone.status_code == 404 and "over and recorded" in gone.json()["error"]
    [row] = _rows(run_dir)
    assert row.status == "done" and row.score == 1.0 and row.executions == 2
    assert main(["replay", str(run_dir)]) == 0


def test_the_behaviour_measures_read_a_persons_episode(server):
    from llm_eval.analysis.behaviour import behaviour_of

    client, run_dir = server
    p = Participant(client, "hal")
    p.start("gravity", "planning")
    p.play(["left", "up", "reset", "left", "up", "reset", "left", "go-to-test", "quit"])
    [row] = _rows(run_dir)
    measures = behaviour_of(run_dir / row.transcript)
    assert measures.model == "human/hal" and measures.resets == 2
    assert measures.reset_share == 2 / 8      # of the 8 interaction actions, go-to-test too
    assert measures.lcs_ratios[0] == 1.0 and measures.runs[:2] == [["left", "up"]] * 2
