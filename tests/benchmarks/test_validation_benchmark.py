"""benchmarks/validation.py's whole-suite profile (``--suite --per-check``) adds up what each
check of each task costs: here over two small tasks (the suite itself takes minutes)."""

from __future__ import annotations

import itertools
import types

from scripts import REPO, load_script


def _benchmark():
    return load_script(REPO / "benchmarks" / "validation.py", "validation_benchmark")


def test_the_per_check_profile_sums_every_check_of_every_task(monkeypatch):
    from llm_eval.tasks import store

    bench = _benchmark()
    chosen = [store.load_task("wander", "mfp", "v1"), store.load_task("automaton", "mfp", "v1")]
    monkeypatch.setattr(store, "all_tasks", lambda suite: chosen)
    out = bench.suite_checks("v1", 1)
    assert out["tasks"] == 2 and set(out["costliest"]) == {"wander-mfp", "automaton-mfp"}
    per_task = out["costliest"]
    assert out["cpu"] == round(sum(t["total"] for t in per_task.values()), 1) > 0
    assert out["by_family"] == {"mfp": out["cpu"]}
    # each check's figure is the sum of its per-task figures, and none is made up
    for name, cpu in out["by_check"].items():
        assert name in bench.CHECKS
        assert cpu == round(sum(t["checks"].get(name, 0.0) for t in per_task.values()), 1)
    assert out["by_check"] and "check_trigger" not in out["by_check"]   # a CD check: not run


def test_the_lockstep_figures_count_both_programs_steps(monkeypatch):
    """``--lockstep`` over one CD task: the modified program plays every step of every run;
    the original, proven the same until the trigger, fewer; and the loads are counted."""
    from llm_eval.tasks import store
    from llm_eval.tasks import validate as V

    bench = _benchmark()
    task = store.load_task("wander", "cd", "v1")
    monkeypatch.setattr(store, "all_tasks", lambda suite: [task])
    out = bench.lockstep_steps("v1", 1)
    runs = V._fuzz_sequences(task, V.FULL) + V._condition_rollouts(task, V.FULL)
    played = len(task.hidden.witness_actions) + sum(len(r) for r in runs)
    assert out == {"tasks": 1, "modified": played, "original": out["original"], "lazy": 1}
    assert 0 < out["original"] < played
    loads = bench.loads(["wander-cd"], "v1")
    assert 0 < loads["per_task"]["wander-cd"] < 17 and loads["make_ms"] > 0


def test_suite_rounds_give_each_wall_time_their_median_and_compare_the_reports(monkeypatch):
    """``--suite --rounds N``: the suite validated N times; each wall time, the median as the
    figure, and whether every round gave the same reports (validation is deterministic)."""
    from llm_eval.tasks import store
    from llm_eval.tasks import validate as V

    bench = _benchmark()
    task = store.load_task("wander", "mfp", "v1")
    monkeypatch.setattr(store, "all_tasks", lambda suite: [task])
    clock = iter([0.0, 5.0, 10.0, 11.0, 20.0, 23.0])   # rounds of 5, 1 and 3 s
    monkeypatch.setattr(bench, "time", types.SimpleNamespace(perf_counter=lambda: next(clock)))
    out = bench.suite_time("v1", 1, False, rounds=3)
    assert out["rounds"] == [5.0, 1.0, 3.0] and out["wall"] == 3.0
    assert out["same_reports"] is True and out["tasks"] == 1 and out["planning_redraws"] == 0

    # a report that differs between rounds is told
    real, calls = V.validate_in_processes, []

    def drifting(tasks, effort, processes):
        calls.append(1)
        for report in real(tasks, effort, processes):
            yield report if len(calls) == 1 else V.TaskReport(report.task, report.world,
                                                               report.family, ())

    monkeypatch.setattr(V, "validate_in_processes", drifting)
    clock = itertools.count()
    assert bench.suite_time("v1", 1, False, rounds=2)["same_reports"] is False


def test_suite_rounds_are_checked(capsys):
    import pytest

    bench = _benchmark()
    for argv in (["--suite", "--rounds", "0"], ["--rounds", "2"],
                 ["--suite", "--rounds", "2", "--cache"]):
        with pytest.raises(SystemExit) as exit_:
            bench.main(argv)
        assert exit_.value.code == 2
        assert "--rounds" in capsys.readouterr().err
