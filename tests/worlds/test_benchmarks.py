"""The benchmark scripts run on the bundled worlds (figures are not checked, only that every
world is measured and that the compact rendering is several times cheaper than the JSON)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from scripts import load_script

from llm_eval.worlds import default_registry

REPO = Path(__file__).resolve().parents[2]


def run_script(*argv: str) -> dict:
    done = subprocess.run([sys.executable, *argv], cwd=REPO, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_interpreter_benchmark_measures_every_world() -> None:
    # one run of each (the benchmark's default is the best of 3): what is checked is that
    # every world is measured without an error, not how fast
    report = run_script("benchmarks/interpreter.py", "--section", "worlds", "--steps", "20",
                        "--repeat", "1", "--json")
    assert report["results"] == []
    measured = {r["program"]: r for r in report["worlds"]}
    assert sorted(measured) == sorted(default_registry().names())
    for name, result in measured.items():
        assert result["error"] is None, (name, result["error"])
        assert result["steps"] == 20 and result["steps_per_s"] > 0
        assert result["grid"] == default_registry().get(name).size


def test_the_interpreter_benchmark_holds_the_slowest_kind_to_six_times_the_reference(
        monkeypatch):
    monkeypatch.setitem(sys.modules, "interpreter_bench", None)   # gone again afterwards
    bench = load_script(REPO / "benchmarks" / "interpreter.py", "interpreter_bench",
                        modules=sys.modules)

    def row(name: str, steps_per_s: float):
        kind, ref = bench.REFERENCE_STEPS_PER_S[name]
        return bench.Result(name, steps_per_s=steps_per_s, reference_kind=kind,
                            reference_steps_per_s=ref, ratio=steps_per_s / ref, passed=True)

    fast = [row("life", 600.0), row("liquid", 1300.0), row("sand", 1000.0)]
    assert bench.summarise(fast)["slowest_passed"]
    assert round(bench.summarise(fast)["slowest_ratio"], 2) == 6.5      # liquid
    slow = [row("life", 530.0), row("liquid", 1300.0), row("sand", 1000.0)]   # life 5.9x
    assert not bench.summarise(slow)["slowest_passed"]
    assert bench.summarise(slow)["kinds_passed"]       # the older 2x target still passes


def test_renderings_benchmark_counts_tokens_offline() -> None:
    report = run_script("benchmarks/renderings.py", "--json", "--steps", "10")
    rows = {m["rendering"]: m for m in report["frame"]}
    json_row, compact_row = rows["json (published)"], rows["compact"]
    assert json_row["tokens"] > 3 * compact_row["tokens"] > 0
    assert json_row["chars"] > 3 * compact_row["chars"]
    assert all(m["bytes"] > 0 for m in report["frame"])
    assert report["token_model"] == "gpt-4o"


def test_the_interpreter_benchmark_takes_each_sides_best_of_its_rounds(monkeypatch, capsys,
                                                                       tmp_path):
    """``--against DIR --rounds N`` measures this checkout and DIR's in turn N times and keeps
    each side's fastest (one pair of short runs varies by 30% on a shared machine)."""
    monkeypatch.setitem(sys.modules, "interpreter_bench", None)   # gone again afterwards
    bench = load_script(REPO / "benchmarks" / "interpreter.py", "interpreter_bench",
                        modules=sys.modules)
    other = tmp_path / "old-checkout"
    (other / "benchmarks").mkdir(parents=True)
    (other / "benchmarks" / "interpreter.py").write_text("")   # never run: faked below
    calls = []
    figures = iter([100.0, 90.0, 130.0, 80.0, 120.0, 95.0])   # ours, theirs, in turn

    def fake_run_against(root, name, section, args):
        calls.append((Path(root).resolve() == REPO.resolve(), name, section))
        return next(figures)
    monkeypatch.setattr(bench, "run_against", fake_run_against)
    assert bench.main(["--only", "wander", "--steps", "3", "--repeat", "1", "--json",
                       "--against", str(other), "--rounds", "3"]) == 0
    report = json.loads(capsys.readouterr().out)
    row = next(r for r in report["worlds"] if r["program"] == "wander")
    assert (row["child_steps_per_s"], row["against_steps_per_s"]) == (130.0, 95.0)
    assert [ours for ours, _, _ in calls] == [True, False] * 3
    assert {(name, section) for _, name, section in calls} == {("wander", "worlds")}
    with pytest.raises(SystemExit):
        bench.main(["--only", "wander", "--against", str(other), "--rounds", "0"])
