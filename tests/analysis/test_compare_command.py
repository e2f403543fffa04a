"""``llm-eval compare`` end to end on real random and oracle runs: two runs, one run holding
both arms, and the errors (exit 2) that name what is wrong."""

from __future__ import annotations

import argparse
import math

import pytest
from analysis_fixtures import write_store

from llm_eval.analysis.stats import Comparison
from llm_eval.cli.compare import add_compare_parser, format_comparison


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


# -- arms that are not one arm, arms that overlap, no pairs, unknown keys ----------------------

def _task(world: str = "w", seed: int = 1, **settings) -> dict:
    return {"model": "m", "world": world, "family": "mfp", "task": f"{world}-mfp",
            "seed": seed, "repeat": 0} | settings


def _knob_store(path):
    """Two models x two interaction budgets on two worlds: random 0, oracle 1 everywhere."""
    return write_store(path, [
        {"settings": _task(world, model=model, interaction_steps=steps),
         "score": float(model == "oracle")}
        for model in ("random", "oracle") for steps in (1, 50) for world in ("x", "y")])


def test_an_arm_mixing_models_on_one_task_is_an_error_not_an_average(tmp_path, capsys):
    run_dir = _knob_store(tmp_path / "knob")
    # once: each "pair" averaged random with oracle, 0.5 against 0.5
    assert _compare(run_dir, "--by", "interaction_steps") == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert ("arm A (interaction_steps=1) mixes model=oracle, model=random on the same tasks"
            in captured.err)
    assert "--a interaction_steps=1 --a model=VALUE" in captured.err
    assert "or pair like with like: --match world family seed repeat model" in captured.err
    # matching on the model pairs each model with itself: 4 pairs, no difference
    assert _compare(run_dir, "--by", "interaction_steps", "--match", "world", "family",
                    "seed", "repeat", "model") == 0
    assert _rows(capsys.readouterr().out)["overall"][1:5] == ["4", "0.500", "0.500", "+0.000"]
    # one model chosen in both arms: 2 pairs
    assert _compare(run_dir, "--a", "interaction_steps=1", "--a", "model=oracle",
                    "--b", "interaction_steps=50", "--b", "model=oracle") == 0
    assert _rows(capsys.readouterr().out)["overall"][1:5] == ["2", "1.000", "1.000", "+0.000"]


def test_an_arm_mixing_two_tool_modes_of_one_model_is_an_error(tmp_path, capsys):
    run_dir = write_store(tmp_path / "run", [
        {"settings": _task(model="random"), "score": 0.0},
        {"settings": _task(model="m", tool_mode="text"), "score": 0.0},
        {"settings": _task(model="m", tool_mode="tools"), "score": 1.0}])
    assert _compare(run_dir, "--a", "model=random", "--b", "model=m") == 2
    err = capsys.readouterr().err
    assert "arm B (model=m) mixes tool_mode=text, tool_mode=tools" in err
    assert "select one with --b tool_mode=VALUE" in err
    assert "--match world family seed repeat tool_mode" in err
    assert _compare(run_dir, "--a", "model=random", "--b", "model=m", "--b",
                    "tool_mode=tools") == 0
    assert _rows(capsys.readouterr().out)["overall"][1:5] == ["1", "0.000", "1.000", "+1.000"]


def test_two_runs_each_mixing_models_name_the_arm_and_its_flag(tmp_path, capsys):
    mixed = write_store(tmp_path / "mixed", [
        {"settings": _task(model="random"), "score": 0.0},
        {"settings": _task(model="oracle"), "score": 1.0}])
    single = write_store(tmp_path / "single", [{"settings": _task(), "score": 0.5}])
    assert _compare(mixed, single) == 2
    err = capsys.readouterr().err
    assert "arm A (mixed) mixes model=oracle, model=random" in err
    assert "select one with --a model=VALUE" in err
    assert _compare(mixed, single, "--a", "model=oracle") == 0
    assert _rows(capsys.readouterr().out)["overall"][1:5] == ["1", "1.000", "0.500", "-0.500"]


def test_repeats_of_one_arm_are_still_averaged(tmp_path, capsys):
    run_dir = write_store(tmp_path / "run", [
        {"settings": _task(model=model, repeat=repeat, prompt="default"), "score": score}
        for model, repeat, score in [("a", 0, 0.0), ("a", 1, 1.0), ("b", 0, 1.0),
                                     ("b", 1, 1.0)]])
    assert _compare(run_dir, "--by", "model", "--match", "world", "family", "seed") == 0
    assert _rows(capsys.readouterr().out)["overall"][1:5] == ["1", "0.500", "1.000", "+0.500"]


def test_one_run_needs_both_arms_chosen(both_run, capsys):
    # once: --a alone made B the whole run, A's own episodes included
    assert _compare(both_run, "--a", "model=random") == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "with --a alone: arm B would be the whole run" in captured.err
    assert "choose it with --b KEY=VALUE" in captured.err
    assert _compare(both_run, both_run, "--b", "model=oracle") == 2
    assert "with --b alone: arm A would be the whole run" in capsys.readouterr().err


def test_arms_sharing_an_episode_are_an_error(both_run, random_run, oracle_run, capsys):
    assert _compare(both_run, "--a", "model=random", "--b", "world=easel") == 2
    err = capsys.readouterr().err
    assert "arms A (model=random) and B (world=easel) share 2 episode(s)" in err
    assert "model=random world=easel family=mfp seed=1 repeat=0" in err
    assert _compare(both_run, "--a", "model=oracle", "--b", "model=oracle") == 2
    assert "are the same episodes" in capsys.readouterr().err
    # two runs never share an episode, so one selection is enough there
    assert _compare(random_run, oracle_run, "--a", "model=random") == 0


def test_no_pair_at_all_exits_2_saying_why(tmp_path, capsys):
    broken = write_store(tmp_path / "broken", [
        {"settings": _task(seed=seed), "status": "infra_error"} for seed in (1, 2)])
    fine = write_store(tmp_path / "fine", [
        {"settings": _task(seed=seed, model="n"), "score": 1.0} for seed in (1, 2, 3)])
    # once: an all-"-" table and exit 0
    assert _compare(broken, fine) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "no pair could be formed on world, family, seed, repeat: arm A has no done " \
        "episode" in captured.err
    assert "A, broken: 0 done, 2 infrastructure error(s), 0 unmatched" in captured.err
    assert "B, fine: 3 done, 0 infrastructure error(s), 3 unmatched" in captured.err
    other = write_store(tmp_path / "other", [
        {"settings": _task(seed=seed, model="n"), "score": 1.0} for seed in (7, 8)])
    assert _compare(fine, other) == 2
    err = capsys.readouterr().err
    assert "seed is 1, 2, 3 in A but 7, 8 in B" in err
    assert "A, fine: 3 done, 0 infrastructure error(s), 3 unmatched" in err


def test_an_unknown_match_or_per_key_is_named(both_run, capsys):
    # once: every episode matched on "none", 6 pairs collapsed into 1 with p = 1
    assert _compare(both_run, "--by", "model", "--match", "nokey") == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "--match nokey: no episode has a setting nokey" in captured.err
    assert "the settings there are family, interaction_steps, model, repeat, seed" in \
        captured.err
    assert _compare(both_run, "--by", "model", "--match", "world", "family", "seeds") == 2
    assert "(did you mean seed?)" in capsys.readouterr().err
    # a list without world or family would pair episodes of different tasks
    assert _compare(both_run, "--by", "model", "--match", "seed", "repeat") == 2
    assert ("--match seed repeat: a pair is one task, so the keys include world and family "
            "(or task); --match replaces the default, e.g. --match world family seed repeat"
            in capsys.readouterr().err)
    assert _compare(both_run, "--by", "model", "--per", "nokey") == 2
    assert "--per nokey: no episode has a setting nokey" in capsys.readouterr().err
