"""Reproduction cards (``llm-eval card``): the card's spec, run again into a new directory
with the replay provider answering the model's calls, gives the same job ids and scores; the
model snapshot comes from the recorded replies; an inexact recipe and an unknown arm say so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from llm_eval.cli import main
from llm_eval.demo import recorded_transcripts
from llm_eval.report.card import CardError, _spec_check, build_cards
from llm_eval.transcripts import TranscriptStream


@pytest.fixture(scope="module")
def mixed_run(tmp_path_factory) -> Path:
    """random and oracle on warehouse mfp, seeds 1 and 2, plus one recorded SmolLM2 job."""
    from llm_eval.replay import run_recorded
    from llm_eval.sweep import Sweep, run_sweep

    run_dir = tmp_path_factory.mktemp("card-run")
    spec = Sweep.from_data({"models": ["random", "oracle"], "worlds": ["warehouse"],
                            "families": ["mfp"], "seeds": [1, 2]}, "test")
    assert all(r.status == "done" for r in run_sweep(spec, run_dir).rows)
    run_recorded(recorded_transcripts()[0], run_dir)
    return run_dir


def _scores(run_dir: Path) -> dict[str, float]:
    from llm_eval.analysis.data import load_episodes

    return {e.job_id: e.score for e in load_episodes([run_dir])}


def test_card_spec_reruns_the_same_jobs_and_scores_with_replay(mixed_run, tmp_path):
    from llm_eval.replay import TranscriptReplay
    from llm_eval.sweep import Sweep, run_sweep
    from llm_eval.sweep.job import execute_job
    from llm_eval.sweep.spec import plays_without_model

    original = _scores(mixed_run)
    cards = build_cards(mixed_run)
    assert len(cards) == 3                      # random, oracle, the SmolLM2 model
    rerun_scores: dict[str, float] = {}
    for n, card in enumerate(cards):
        assert card["rerun"]["exact"], card["rerun"]
        spec_file = tmp_path / f"spec{n}.yaml"
        assert main(["card", str(mixed_run), "--arm", card["arm"], "--spec",
                     str(spec_file)]) == 0
        spec = Sweep.from_data(yaml.safe_load(spec_file.read_text()), str(spec_file))

        def execute(job, spec_, transcript, **kwargs):
            adapter = (None if plays_without_model(job.model)
                       else TranscriptReplay(_transcript_of(mixed_run, job.id)))
            return execute_job(job, spec_, transcript, adapter=adapter, **kwargs)

        new_dir = tmp_path / f"rerun{n}"
        report = run_sweep(spec, new_dir, execute=execute)
        assert all(r.status == "done" for r in report.rows)
        rerun_scores.update(_scores(new_dir))
    assert rerun_scores == original


def _transcript_of(run_dir: Path, job_id: str) -> Path:
    from llm_eval.analysis.data import load_episodes

    return next(e.transcript for e in load_episodes([run_dir]) if e.job_id == job_id)


def test_card_snapshot_and_id_come_from_recorded_replies(mixed_run, tmp_path):
    model_arm = next(c for c in build_cards(mixed_run) if c["arm"] not in ("random", "oracle"))
    path = _transcript_of(mixed_run, _model_job(mixed_run))
    reported, sent = {}, {}
    for event in TranscriptStream(path):
        if event.type == "model_call":
            reported[event.response["model"]] = reported.get(event.response["model"], 0) + 1
            sent[event.response["model_requested"]] = \
                sent.get(event.response["model_requested"], 0) + 1
    assert model_arm["model"]["reported_snapshot"] == reported
    assert model_arm["model"]["as_sent"] == sent
    # the snapshot is what the provider answered, not the setting nor the id sent
    assert set(reported) != set(model_arm["model"]["setting"])
    assert set(reported) != set(sent)
    assert model_arm["counts"]["done"] == 1 and model_arm["counts"]["fatal"] == 0
    assert model_arm["prices"] and model_arm["versions"]["recorded"]["llm_eval"]
    assert model_arm["settings"]["prompt_digest"]


def _model_job(run_dir: Path) -> str:
    from llm_eval.analysis.data import load_episodes

    return next(e.job_id for e in load_episodes([run_dir]) if e.model not in ("random", "oracle"))


def test_card_json_lists_counts_and_local_arms_have_no_model_calls(mixed_run, capsys):
    assert main(["card", str(mixed_run), "--arm", "oracle", "--json"]) == 0
    (card,) = json.loads(capsys.readouterr().out)
    assert card["arm"] == "oracle"
    assert card["counts"] == {"jobs": 2, "done": 2, "ended_on_context": 0, "infra_error": 0,
                              "fatal": 0, "failed": 0, "unfinished": 0}
    assert card["seeds"] == [1, 2] and card["model"]["reported_snapshot"] == {}


def test_a_recipe_that_does_not_make_the_arms_jobs_is_not_called_exact(mixed_run):
    card = build_cards(mixed_run, "random")[0]
    ids = set(card["rerun"]["extra"]) | {"0123456789abcdef"}
    check = _spec_check(card["rerun"]["spec"], ids | _ids(mixed_run, "random"))
    assert not check["exact"] and check["missing"] == ["0123456789abcdef"]
    narrowed = dict(card["rerun"]["spec"], seeds=[1])
    check = _spec_check(narrowed, _ids(mixed_run, "random"))
    assert not check["exact"] and len(check["missing"]) == 1


def _ids(run_dir: Path, model: str) -> set[str]:
    from llm_eval.analysis.data import load_episodes

    return {e.job_id for e in load_episodes([run_dir]) if e.model == model}


def test_unknown_arm_is_an_error_naming_the_arms(mixed_run, capsys):
    with pytest.raises(CardError, match="arms: .*oracle"):
        build_cards(mixed_run, "orcale")
    assert main(["card", str(mixed_run), "--arm", "orcale"]) == 2
    assert "no such arm" in capsys.readouterr().err
    assert main(["card", str(mixed_run), "--spec", "/tmp/never-written.yaml"]) == 2
    assert not Path("/tmp/never-written.yaml").exists()


def test_report_links_each_leaderboard_row_to_its_card(mixed_run, tmp_path):
    from html.parser import HTMLParser

    from llm_eval.report.page import build_report

    page = build_report([mixed_run], tmp_path / "r.html").read_text()
    links, ids = [], {}

    class Parse(HTMLParser):
        in_board = False
        current = None

        def handle_starttag(self, name, attrs):
            attrs = dict(attrs)
            if name == "table" and attrs.get("class") == "leaderboard":
                self.in_board = True
            if self.in_board and name == "a":
                links.append(attrs["href"])
            if name == "details" and attrs.get("class") == "card":
                self.current = attrs["id"]
                ids[self.current] = ""

        def handle_endtag(self, name):
            if name == "table":
                self.in_board = False
            if name == "details":
                self.current = None

        def handle_data(self, data):
            if self.current:
                ids[self.current] += data

    Parse().feed(page)
    assert len(links) == 3
    for link in links:
        text = ids[link.removeprefix("#")]
        assert "the spec makes exactly this arm's" in text and "counts:" in text


def test_the_report_cards_do_not_depend_on_the_checkout(mixed_run, monkeypatch, tmp_path):
    """The report's cards leave out what is installed here (llm-eval card shows it): a
    commit made in the checkout between two reports must not change their bytes."""
    import llm_eval.report.card as card_module
    from llm_eval.report.page import build_report

    monkeypatch.setattr(card_module, "_git_commit", lambda: "a" * 40)
    first = build_report([mixed_run], tmp_path / "a.html").read_bytes()
    monkeypatch.setattr(card_module, "_git_commit", lambda: "b" * 40)
    assert build_report([mixed_run], tmp_path / "b.html").read_bytes() == first
    assert b"a" * 40 not in first
    (card,) = build_cards(mixed_run, "oracle")
    assert card["versions"]["installed"]["git_commit"] == "b" * 40
