"""``llm-eval compare`` end to end on real random and oracle runs: two runs, one run holding
both arms, and the errors (exit 2) that name what is wrong."""

from __future__ import annotations

import argparse
import math

import pytest
from analysis_fixtures import write_store

from llm_eval.analysis.commands import add_compare_parser, format_comparison
from llm_eval.analysis.stats import Comparison


def _compare(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="llm-eval")
    add_compare_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["compare", *map(str, argv)])
    return args.handler(args)


def _rows(out: str) -> dict[str, list[str]]:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("family"))
    rows = {}
    for line in lines[start + 1:]:
        if not line.strip():
            break
        cells = line.split()
        rows[cells[0]] = cells
    return rows


def test_oracle_beats_random_across_two_runs(random_run, oracle_run, capsys):
    assert _compare(random_run, oracle_run) == 0
    out = capsys.readouterr().out
    assert f"A: {random_run.name}" in out and f"B: {oracle_run.name}" in out
    rows = _rows(out)
    assert list(rows) == ["mfp", "overall"]
    name, pairs, mean_a, mean_b, diff, low, high, p, method = rows["overall"]
    assert (pairs, mean_a, mean_b, diff) == ("6", "0.000", "1.000", "+1.000")
    assert float(p) == pytest.approx(2 / 64) and float(p) < 0.05 and method == "exact"
    assert "0 done episode(s) without a counterpart" in out


def test_the_table_is_aligned(random_run, oracle_run, capsys):
    _compare(random_run, oracle_run)
    lines = capsys.readouterr().out.splitlines()
    table = [line for line in lines if line.startswith(("family", "mfp", "overall"))]
    header = table[0]
    for column in ("pairs", "mean A", "B - A"):
        right = header.index(column) + len(column)
        assert all(line[right - 1] != " " and line[right:right + 1] in (" ", "")
                   for line in table)


def test_one_run_holding_both_arms_is_split_by_setting(both_run, capsys):
    assert _compare(both_run, "--a", "model=random", "--b", "model=oracle") == 0
    out = capsys.readouterr().out
    assert "A: model=random" in out and "B: model=oracle" in out
    assert _rows(out)["overall"][4] == "+1.000"
    assert _compare(both_run, both_run, "--by", "model") == 0
    out = capsys.readouterr().out
    assert "A: model=oracle" in out and _rows(out)["overall"][4] == "-1.000"


def test_matching_and_rows_follow_the_flags(both_run, capsys):
    assert _compare(both_run, "--by", "model", "--match", "world", "family",
                    "--per", "world") == 0
    out = capsys.readouterr().out
    assert "paired on world, family;" in out
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("world"))
    assert [line.split()[0] for line in lines[start + 1:start + 5]] == \
        ["easel", "icepond", "warehouse", "overall"]
    assert lines[start + 4].split()[1] == "3"    # seeds averaged: one pair per world


def test_a_selection_that_matches_nothing_exits_2_naming_the_setting(both_run, capsys):
    assert _compare(both_run, "--a", "model=random", "--b", "prompt=reflective") == 2
    err = capsys.readouterr().err
    assert "--b prompt=reflective matches no episode" in err and "prompt values there: none" \
        in err
    assert _compare(both_run, "--a", "model=gpt", "--b", "model=oracle") == 2
    assert "model values there: oracle, random" in capsys.readouterr().err


def test_unusable_inputs_exit_2(both_run, tmp_path, capsys):
    assert _compare(both_run) == 2
    assert "both arms are the same episodes" in capsys.readouterr().err
    assert _compare(tmp_path / "missing", both_run) == 2
    assert "missing: not a run directory" in capsys.readouterr().err
    assert _compare(both_run, "--by", "world") == 2
    assert "needs exactly two values" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        _compare(both_run, "--a", "model")


def test_infrastructure_errors_are_reported_apart(tmp_path, capsys):
    settings = {"model": "m", "world": "w", "family": "cd", "task": "w-cd", "seed": 1,
                "repeat": 0}
    run_dir = write_store(tmp_path / "run", [
        {"settings": settings, "score": 0.2},
        {"settings": settings | {"model": "n"}, "score": 0.6},
        {"settings": settings | {"model": "n", "seed": 2}, "status": "infra_error"}])
    assert _compare(run_dir, "--by", "model") == 0
    out = capsys.readouterr().out
    assert _rows(out)["overall"][1:5] == ["1", "0.200", "0.600", "+0.400"]
    assert "not scored (infrastructure errors): 0 in A, 1 in B" in out


def test_format_comparison_shows_missing_numbers_as_dashes():
    nan = math.nan
    empty = Comparison("A", "B", 0, nan, nan, nan, nan, nan, nan, "none", 3)
    text = format_comparison([("cd", empty), ("overall", empty)])
    assert text.splitlines()[:2] == ["A: A", "B: B"]
    assert _rows(text)["cd"] == ["cd", "0", "-", "-", "-", "-", "-", "none"]
    assert "3 done episode(s) without a counterpart" in text
