"""Limits that make results the same on every machine (issue 17): the work budget that stops a
runaway tick is counted, never timed; GRID_SIZE is bounded before anything is sized by it;
nesting too deep for Python is a clean error from ``check`` as from ``trace``."""

from __future__ import annotations

import ast
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from llm_eval.autumn import Interpreter, check_program
from llm_eval.autumn.runtime import DEFAULT_WORK_BUDGET, MAX_GRID_SIZE
from llm_eval.cli import EXIT_PROGRAM_ERROR, main
from llm_eval.errors import AutumnLimitError, AutumnRuntimeError

REPO = Path(__file__).resolve().parents[2]
BUDGET = 300_000

RUNAWAYS = {
    # exponential recursion: never deep, always more calls
    "recursion": "(= fib (--> n (if (< n 2) then n else (+ (fib (- n 1)) (fib (- n 2))))))"
                 " (on left (= v (fib 40)))",
    # a huge loop without any recursion: a list builtin over a list built by range
    "loop": "(on left (= v (length (map (--> i (length (filter (--> j (== i j)) "
            "(range 0 1000)))) (range 0 100000)))))",
    # list building alone: concat in a fold
    "lists": "(on left (= v (length (foldl (--> (acc x) (concat (list acc (range 0 1000)))) "
             "(list) (range 0 100000)))))",
}


def _program(body: str) -> str:
    return f"(program (= GRID_SIZE 5) (= v (initnext 0 (prev v))) {body})"


def _stop(body: str, **kw) -> tuple[str, int]:
    """Run one runaway tick; the error message and the work counted when it stopped."""
    it = Interpreter(**kw)
    it.run_script(_program(body), seed=1)
    it.step()
    it.left()
    with pytest.raises(AutumnLimitError) as info:
        it.step()
    return str(info.value), it.work_done


class _CpuHog:
    """A busy thread competing for the interpreter's core (and the GIL) while it runs."""

    def __init__(self) -> None:
        self.stop = threading.Event()
        self.spins = 0
        self.thread = threading.Thread(target=self._spin, daemon=True)

    def _spin(self) -> None:
        while not self.stop.is_set():
            self.spins += sum(range(1000)) & 1

    def __enter__(self) -> "_CpuHog":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join()


@pytest.mark.parametrize("name", sorted(RUNAWAYS))
def test_a_runaway_tick_stops_at_the_same_point_under_load(name):
    quiet = _stop(RUNAWAYS[name], work_budget=BUDGET)
    with _CpuHog():
        started = time.process_time()
        loaded = _stop(RUNAWAYS[name], work_budget=BUDGET)
        assert time.process_time() > started
    assert loaded == quiet
    message, done = quiet
    assert f"more than {BUDGET:,} units of work in one tick" in message
    assert message.startswith("1:")          # located, like every program error
    assert BUDGET < done <= BUDGET + 1_000_000


def test_unbounded_recursion_stops_at_the_same_depth_under_load():
    body = "(= f (--> x (+ 1 (f x)))) (on left (= v (f 1)))"
    it = Interpreter()
    it.run_script(_program(body), seed=1)
    it.left()
    with pytest.raises(AutumnLimitError, match="nests too deeply") as quiet:
        it.step()
    with _CpuHog():
        it = Interpreter()
        it.run_script(_program(body), seed=1)
        it.left()
        with pytest.raises(AutumnLimitError) as loaded:
            it.step()
    assert str(loaded.value) == str(quiet.value)


def test_the_budget_is_per_tick_and_reported():
    it = Interpreter(work_budget=BUDGET)
    # 2,000 elements a tick, far below the budget, for many ticks: never accumulates
    it.run_script(_program("(= w (initnext 0 (length (map (--> i i) (range 0 1000)))))"),
                  seed=1)
    for _ in range(500):
        it.step()
        assert it.work_done == 2_000
    assert it.render_frame().size == 5
    assert DEFAULT_WORK_BUDGET >= 1_000_000


def test_no_wall_clock_is_read_where_worlds_are_run():
    """World behaviour, tasks, scoring and agents never read a clock (a pre-stop hook checks
    the same with grep)."""
    offenders = []
    for package in ("autumn", "worlds", "worldtest", "tasks", "agents"):
        for path in sorted((REPO / "llm_eval" / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom):
                    names = [node.module or ""]
                else:
                    continue
                if any(n.split(".")[0] in ("time", "datetime") for n in names):
                    offenders.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert not offenders, offenders


# --- GRID_SIZE ------------------------------------------------------------------------------

@pytest.mark.parametrize("size, kind, words", [
    (100000, AutumnLimitError, f"GRID_SIZE 100000 is larger than the limit of {MAX_GRID_SIZE}"),
    (2147483647, AutumnLimitError, "larger than the limit"),
    (0, AutumnRuntimeError, "GRID_SIZE must be at least 1, got 0"),
    (-3, AutumnRuntimeError, "GRID_SIZE must be at least 1, got -3"),
])
def test_grid_size_out_of_range_is_refused_at_its_definition(size, kind, words):
    text = f'(program\n  (= background "black")\n  (= GRID_SIZE {size}))'
    started = time.process_time()
    with pytest.raises(kind, match=words) as info:
        Interpreter().run_script(text, seed=1, path="big.sexp")
    assert (info.value.path, info.value.line, info.value.column) == ("big.sexp", 3, 3)
    assert time.process_time() - started < 5


def test_grid_size_limits_are_inclusive():
    for size in (1, MAX_GRID_SIZE):
        it = Interpreter()
        it.run_script(f"(program (= GRID_SIZE {size}))", seed=1)
        assert it.render_frame().size == size


def test_grid_size_changed_by_a_handler_is_refused_before_use():
    text = ("(program (= GRID_SIZE 5) (= k (initnext 0 (prev k)))"
            " (on left (= GRID_SIZE 100000)) (on right (= GRID_SIZE 100000))"
            " (on right (= k (length (adjPositions (Position 1 1))))))")
    it = Interpreter()
    it.run_script(text, seed=1)
    it.left()
    it.step()                                 # the assignment alone is allowed...
    with pytest.raises(AutumnLimitError, match="GRID_SIZE 100000"):
        it.render_frame()                     # ...but nothing is sized by it
    it = Interpreter()
    it.run_script(text, seed=1)
    it.right()
    with pytest.raises(AutumnLimitError, match="GRID_SIZE 100000"):
        it.step()


def test_grid_size_as_a_state_variable_is_checked_at_its_init():
    with pytest.raises(AutumnLimitError, match="GRID_SIZE 70000") as info:
        Interpreter().run_script("(program\n (= GRID_SIZE (initnext 70000 (prev GRID_SIZE))))",
                                 seed=1)
    assert info.value.line == 2


@pytest.mark.parametrize("command", ["check", "trace"])
@pytest.mark.parametrize("size", [100000, 2147483647, 0])
def test_cli_refuses_a_huge_grid_within_a_memory_bound(tmp_path, command, size):
    """In a process limited to 1 GB of address space, a refusal in path:line:col form."""
    (tmp_path / "big.sexp").write_text(f"(program\n  (= GRID_SIZE {size}))\n")
    argv = [sys.executable, "-c", "import resource, sys; "
            "resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30)); "
            "from llm_eval.cli import main; sys.exit(main(sys.argv[1:]))",
            "autumn", command, "big.sexp"]
    if command == "trace":
        argv += ["--seed", "1"]
    done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == EXIT_PROGRAM_ERROR, done.stderr
    assert "Traceback" not in done.stderr and "MemoryError" not in done.stderr
    assert done.stderr.startswith("big.sexp:2:3: GRID_SIZE "), done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


# --- nesting --------------------------------------------------------------------------------

DEEP = "(program (= x " + "(+ 1 " * 25_000 + "1" + ")" * 25_000 + "))"


def test_check_program_reports_deep_nesting_as_a_limit_error():
    problems = check_program(DEEP, path="deep.sexp")
    assert len(problems) == 1
    assert isinstance(problems[0], AutumnLimitError)
    assert "nests too deeply" in str(problems[0])


@pytest.mark.parametrize("command", [["autumn", "check"], ["autumn", "trace", "--seed", "1"]])
def test_cli_reports_deep_nesting_in_one_clean_line(tmp_path, monkeypatch, capsys, command):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", None)
    (tmp_path / "deep.sexp").write_text(DEEP)
    code = main([*command, "deep.sexp"])
    err = capsys.readouterr().err
    assert code == EXIT_PROGRAM_ERROR
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert err.startswith("deep.sexp: the program nests too deeply")
