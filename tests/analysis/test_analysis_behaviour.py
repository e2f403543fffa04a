"""Behaviour measures: LCS ratios, reset share, invalid rate and coverage from transcripts
written by hand, and agreement with the episode result on real random-agent transcripts."""

from __future__ import annotations

import pytest
from analysis_fixtures import episode, write_transcript

from llm_eval.analysis import behaviour_of, behaviour_table, lcs_ratio, load_episodes, summarise
from llm_eval.analysis.behaviour import lcs_length
from llm_eval.transcripts import read_transcript

PLAY = "interaction"
ACTIONS = [(PLAY, "click 1 2", True), (PLAY, "left", True), (PLAY, "noop", True),
           (PLAY, "reset", True), (PLAY, "click 1 2", True), (PLAY, "up", True),
           (PLAY, "left", True), (PLAY, "jump", False), (PLAY, "reset", True),
           (PLAY, "reset", True), (PLAY, "go-to-test", True),
           ("mfp", "choose 9", False), ("mfp", "choose 2", True)]


@pytest.mark.parametrize("a, b, length", [
    ("ABCBDAB", "BDCABA", 4),
    ("", "abc", 0),
    ("abc", "abc", 3),
    ("abc", "cba", 1),
    ("aaaa", "aa", 2),
])
def test_lcs_length_by_hand(a, b, length):
    assert lcs_length(list(a), list(b)) == length == lcs_length(list(b), list(a))


def test_lcs_ratio_divides_by_the_longer_run():
    assert lcs_ratio(["left", "up", "noop"], ["left", "noop"]) == pytest.approx(2 / 3)
    assert lcs_ratio(["click 1 2"], ["click 2 1"]) == 0.0
    assert lcs_ratio(["left"], []) == 0.0
    assert lcs_ratio([], []) is None


def test_behaviour_of_a_transcript_written_by_hand(tmp_path):
    b = behaviour_of(write_transcript(tmp_path / "t.jsonl", ACTIONS))
    assert b.job_id == "job1" and b.model == "m"
    assert b.actions_by_kind == {"click": 2, "arrow": 3, "noop": 1, "reset": 3,
                                 "go-to-test": 1, "invalid": 1}
    assert b.runs == [["click 1 2", "left", "noop"], ["click 1 2", "up", "left"], [], []]
    # runs 1-2: LCS (click, left) = 2 of 3; runs 2-3: 0 of 3; runs 3-4: both empty, no ratio
    assert b.lcs_ratios == pytest.approx([2 / 3, 0.0])
    assert b.lcs_mean == pytest.approx(1 / 3)
    assert b.actions == 10 and b.resets == 3 and b.reset_share == pytest.approx(0.3)
    assert b.invalid_rate == pytest.approx(2 / 13)   # both phases: 2 invalid of 13 sent
    assert b.coverage == pytest.approx(0.75)


def test_without_resets_or_score_there_is_no_ratio_and_no_coverage(tmp_path):
    actions = [(PLAY, "noop", True), (PLAY, "go-to-test", True)]
    path = write_transcript(tmp_path / "t.jsonl", actions, coverage=None)
    b = behaviour_of(path)
    assert b.lcs_ratios == [] and b.lcs_mean is None and b.coverage is None
    assert b.reset_share == 0.0 and b.invalid_rate == 0.0 and b.actions == 2


def test_real_transcripts_agree_with_the_episode_result(random_run):
    episodes = load_episodes([random_run])
    table = behaviour_table(episodes)
    assert len(table) == len(episodes) == 6
    resets = 0
    for b, e in zip(table, episodes):
        (score,) = read_transcript(e.transcript).of_type("score")
        assert b.job_id == e.job_id and b.model == "random"
        assert b.runs == score.result["runs"]
        assert b.resets == score.result["resets"]
        assert b.reset_share == pytest.approx(score.result["reset_share"])
        assert sum(b.actions_by_kind.values()) - b.actions_by_kind["invalid"] == b.actions \
            == score.result["interaction"]["steps"]
        covered = score.result["coverage"]
        assert b.coverage == pytest.approx(covered["covered"] / covered["total"])
        resets += b.resets
    assert resets > 0   # the random agent resets, so the ratios are exercised


def test_behaviour_table_skips_episodes_without_a_finished_transcript(tmp_path):
    path = write_transcript(tmp_path / "t.jsonl", ACTIONS)
    episodes = [episode(1.0, transcript=path), episode(status="infra_error", transcript=path),
                episode(1.0, transcript=tmp_path / "missing.jsonl"), episode(1.0)]
    assert [b.job_id for b in behaviour_table(episodes)] == ["job1"]


def test_summarise_gives_per_model_means_over_defined_values(tmp_path):
    one = behaviour_of(write_transcript(tmp_path / "a.jsonl", ACTIONS))
    other = behaviour_of(write_transcript(tmp_path / "b.jsonl",
                                          [(PLAY, "noop", True), (PLAY, "go-to-test", True)],
                                          coverage=None))
    third = behaviour_of(write_transcript(
        tmp_path / "c.jsonl", [(PLAY, "left", True), (PLAY, "reset", True), (PLAY, "left", True)],
        settings={"model": "z"}))
    summary = summarise([one, other, third])
    assert list(summary) == ["m", "z"]
    m = summary["m"]
    assert m["episodes"] == 2 and m["actions"] == 6 and m["resets"] == 1.5
    assert m["reset_share"] == pytest.approx(0.15)
    assert m["lcs_mean"] == pytest.approx(1 / 3)    # only the first defines it
    assert m["coverage"] == pytest.approx(0.75)
    assert summary["z"]["lcs_mean"] == 1.0 and summary["z"]["reset_share"] == pytest.approx(1 / 3)
