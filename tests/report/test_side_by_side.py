"""Side by side: the pairs where two arms differ most, largest first; ``compare --tasks``
prints the list the report shows; both episodes drawn next to each other, every model text
escaped (checked in headless chromium)."""

from __future__ import annotations

import dataclasses
import html as html_module
from html.parser import HTMLParser

import pytest
from report_fixtures import IMG, PAYLOADS, SCRIPT, dump_dom
from test_report_security import check_dom

from llm_eval.analysis.data import AnalysisError, Episode, load_episodes
from llm_eval.cli import main
from llm_eval.cli.compare import DEFAULT_MATCH
from llm_eval.report.page import build_report, render_report
from llm_eval.report.side_by_side import differing_tasks, format_differences


def _ep(model: str, world: str, seed: int, score: float, job: str) -> Episode:
    return Episode(run_dir=".", run_id="r", job_id=job,
                   settings={"model": model, "world": world, "family": "mfp", "seed": seed,
                             "repeat": 0}, status="done", score=score, usage=None,
                   cost_usd=None, transcript=None)


def test_pairs_are_ordered_by_the_size_of_the_difference_then_by_key():
    a = [_ep("a", "w1", 1, 1.0, "a1"), _ep("a", "w2", 1, 0.0, "a2"),
         _ep("a", "w3", 1, 0.5, "a3"), _ep("a", "w5", 1, 0.0, "a4"),
         _ep("a", "w9", 1, 0.0, "a5")]
    b = [_ep("b", "w1", 1, 0.0, "b1"), _ep("b", "w2", 1, 1.0, "b2"),
         _ep("b", "w3", 1, 0.75, "b3"), _ep("b", "w5", 1, 1.0, "b4"),
         _ep("b", "w4", 1, 1.0, "b5")]   # w9 and w4 have no counterpart
    pairs = differing_tasks(a, b, DEFAULT_MATCH)
    assert [(d.key[0], d.diff) for d in pairs] == [("w1", -1.0), ("w2", 1.0), ("w5", 1.0),
                                                   ("w3", 0.25)]
    assert (pairs[0].episode_a.job_id, pairs[0].episode_b.job_id) == ("a1", "b1")
    text = format_differences(pairs, DEFAULT_MATCH, limit=2)
    assert "4 pair(s), 2 more not shown" in text and "w5" not in text


class _Table(HTMLParser):
    """The rows of the side-by-side table and the number of side columns drawn."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.sides = 0
        self._in = False
        self._row: list[str] | None = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table":
            self._in = attrs.get("class") == "side-by-side"
        if tag == "div" and attrs.get("class") == "side":
            self.sides += 1
        if self._in and tag == "tr":
            self._row = []

    def handle_endtag(self, tag):
        if tag == "table":
            self._in = False
        if self._in and tag == "tr" and self._row:
            self.rows.append(self._row)
            self._row = None

    def handle_data(self, data):
        if self._in and self._row is not None and data.strip():
            self._row.append(data.strip())


def test_compare_tasks_prints_the_list_the_report_shows(random_oracle_run, tmp_path, capsys):
    page = build_report([random_oracle_run], tmp_path / "r.html",
                        side_by_side=("random", "oracle")).read_text()
    table = _Table(page)
    assert table.sides == 2 * min(5, len(table.rows) - 1)
    report_rows = [row[:4] for row in table.rows[1:]]
    assert main(["compare", str(random_oracle_run), "--a", "model=random", "--b",
                 "model=oracle", "--tasks", "0"]) == 0
    out = capsys.readouterr().out
    listed = out.split("tasks where the arms differ most")[1].splitlines()[2:]
    assert [line.split()[:4] for line in listed] == report_rows
    assert len(report_rows) == 6        # warehouse and easel x three families, seed 1


def test_an_unknown_arm_is_an_error_naming_the_arms(random_oracle_run, tmp_path, capsys):
    with pytest.raises(AnalysisError, match="no such arm .*oracle"):
        build_report([random_oracle_run], tmp_path / "r.html",
                     side_by_side=("random", "orcale"))
    assert main(["report", str(random_oracle_run), "-o", str(tmp_path / "r.html"),
                 "--side-by-side", "random", "orcale"]) == 2
    assert not (tmp_path / "r.html").exists()


def test_model_text_in_the_side_by_side_view_is_escaped(hostile_run, tmp_path):
    episodes = load_episodes([hostile_run])
    done = next(e for e in episodes if e.status == "done")
    twin = dataclasses.replace(done, job_id="twin", score=0.0,
                               settings={**done.settings, "model": "evil/" + IMG})
    text = render_report(episodes + [twin], [hostile_run],
                         side_by_side=(done.model, twin.model))
    assert text.count('class="side"') == 2
    for payload in PAYLOADS:
        assert payload not in text, payload
    assert html_module.escape("I think " + SCRIPT, quote=True) in text
    page = tmp_path / "side.html"
    page.write_text(text, encoding="utf-8")
    check_dom(dump_dom(page, tmp_path / "profile"))


def test_compare_json_lists_the_same_pairs(random_oracle_run, capsys):
    import json

    args = ["compare", str(random_oracle_run), "--a", "model=random", "--b", "model=oracle"]
    assert main(args + ["--tasks", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    episodes = {e.job_id: e for e in load_episodes([random_oracle_run])}
    pairs = differing_tasks([e for e in episodes.values() if e.model == "random"],
                            [e for e in episodes.values() if e.model == "oracle"],
                            DEFAULT_MATCH)
    assert [(t["job_a"], t["job_b"]) for t in data["tasks"]] == \
        [(d.episode_a.job_id, d.episode_b.job_id) for d in pairs[:3]]
    assert all(t["diff"] == t["mean_b"] - t["mean_a"] for t in data["tasks"])
