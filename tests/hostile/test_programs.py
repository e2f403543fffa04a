"""The hostile-input corpus for programs and action files (issue 33): each input gets its typed
error, located, with a message of bounded length, in bounded time and memory.

Small inputs are files in ``programs/`` (their first comment says what each tries); large ones
are generated here at test time. The large ones, and the time and memory bounds, are in the
slow tier; the default tier runs the small files.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tiers import slow

from llm_eval.actions import parse_action, parse_action_lines
from llm_eval.autumn import Interpreter, check_program
from llm_eval.autumn.reader import MAX_TEXT_BYTES
from llm_eval.autumn.syntax import MAX_STATEMENTS
from llm_eval.cli import EXIT_OK, EXIT_PROGRAM_ERROR, main
from llm_eval.errors import (
    ActionSyntaxError,
    AutumnCheckError,
    AutumnCheckWarning,
    AutumnLimitError,
    AutumnRuntimeError,
    AutumnSyntaxError,
)

HERE = Path(__file__).parent / "programs"
MESSAGE_BOUND = 400          # characters of one error, path and position included

# file -> (the one problem check reports: class, line, column, words of its message)
CORPUS = {
    "if_string.sexp": (AutumnCheckError, 4, 43, "String, not a Bool"),
    "if_zero.sexp": (AutumnCheckError, 4, 24, "Number, not a Bool"),
    "if_bare_function.sexp": (AutumnCheckError, 4, 24, "the function 'left' itself"),
    "if_empty_list.sexp": (AutumnCheckError, 4, 24, "always false"),
    "grid_fraction.sexp": (AutumnCheckError, 3, 16, "'3.5' is read as 3"),
    "number_exponent.sexp": (AutumnCheckError, 4, 10, "'1e5' is read as 1"),
    "unknown_colour.sexp": (AutumnCheckWarning, 4, 25, "did you mean 'red'"),
    "mask_colour.sexp": (AutumnCheckWarning, 4, 17, "mask of hidden cells"),
    "unterminated_string.sexp": (AutumnSyntaxError, 3, 11, "newline inside a string"),
    "stray_paren.sexp": (AutumnSyntaxError, 2, 19, "no list is open"),
    "on_number.sexp": (AutumnRuntimeError, 5, 3, "must be a Bool"),
}


def _one_problem(text: str, path: str):
    problems = check_program(text, path=path)
    assert len(problems) == 1, [str(p) for p in problems]
    return problems[0]


def _assert_problem(problem, cls, line, column, words):
    assert type(problem) is cls, f"{type(problem).__name__}: {problem}"
    assert (problem.line, problem.column) == (line, column), str(problem)
    assert words in problem.message
    assert len(str(problem)) <= MESSAGE_BOUND, len(str(problem))


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_each_hostile_file_gets_its_typed_located_error(name):
    path = HERE / name
    problem = _one_problem(path.read_text(encoding="utf-8"), str(path))
    _assert_problem(problem, *CORPUS[name])
    assert problem.path == str(path)


def test_every_program_file_of_the_corpus_has_an_expectation():
    assert {p.name for p in HERE.glob("*.sexp")} - {"bom.sexp"} == set(CORPUS)


def test_the_command_line_exits_1_on_check_errors_and_0_on_warnings_only(capsys):
    assert main(["autumn", "check", str(HERE / "if_zero.sexp")]) == EXIT_PROGRAM_ERROR
    assert main(["autumn", "check", str(HERE / "unknown_colour.sexp")]) == EXIT_OK
    captured = capsys.readouterr()
    assert "warning: " in captured.err and "(1 warning)" in captured.out


def test_a_program_saved_with_a_byte_order_mark_runs_as_without_it(capsys):
    raw = (HERE / "bom.sexp").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    text = raw.decode("utf-8")
    assert check_program(text) == []
    frames = []
    for program in (text, text[1:]):
        it = Interpreter()
        it.run_script(program, seed=3)
        it.left()
        it.step()
        frames.append(it.render_frame().to_rows())
    assert frames[0] == frames[1]
    assert main(["autumn", "trace", str(HERE / "bom.sexp"), "--seed", "3",
                 "--actions", str(HERE / "bom_actions.txt")]) == EXIT_OK
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3 and json.loads(lines[1])["t"] == 1


def test_an_action_file_with_a_byte_order_mark_reads_its_first_line():
    text = (HERE / "bom_actions.txt").read_text(encoding="utf-8")
    assert [str(a) for a in parse_action_lines(text)] == ["left", "click 0 0"]


# ----------------------------------------------------------------------------- large, generated

def _digits_program(digits: str) -> str:
    return f"(program\n  (= GRID_SIZE 4)\n  (= big {digits}))"


@pytest.mark.parametrize("digits", ["9" * 5000, "-" + "9" * 5000, "1" + "0" * 100_000])
def test_a_literal_of_thousands_of_digits_is_a_located_syntax_error(digits):
    problem = _one_problem(_digits_program(digits), "big.sexp")
    _assert_problem(problem, AutumnSyntaxError, 3, 10, "does not fit in 32 bits")


def test_leading_zeros_do_not_make_a_small_literal_large():
    it = Interpreter()
    it.run_script(_digits_program("-" + "0" * 5000 + "7"), seed=1)
    assert it.evaluate_to_string("big") == "(-7: N)"


def test_a_program_over_the_size_limit_is_refused_before_it_is_read():
    text = "(program (= GRID_SIZE 4) " + "(= x 1) " * (MAX_TEXT_BYTES // 8) + ")"
    start = time.process_time()
    problem = _one_problem(text, "huge.sexp")
    assert time.process_time() - start < 1.0
    _assert_problem(problem, AutumnLimitError, 1, 1, f"{MAX_TEXT_BYTES:,} bytes")


def test_a_program_with_too_many_statements_is_refused_at_the_first_one_over():
    body = "\n".join(f"  (= v{i} {i})" for i in range(MAX_STATEMENTS + 1))
    problem = _one_problem(f"(program\n{body})", "many.sexp")
    _assert_problem(problem, AutumnLimitError, MAX_STATEMENTS + 2, 3,
                    f"the most a program may have is {MAX_STATEMENTS:,}")


def test_a_hundred_nested_ifs_run_they_are_no_internal_error():
    nested = "(if (> 1 0) then " * 150 + "1" + " else 0)" * 150
    text = f"(program (= GRID_SIZE 4) (= v (initnext {nested} (prev v))))"
    assert check_program(text) == []
    it = Interpreter()
    it.run_script(text, seed=1)
    assert it.evaluate_to_string("v") == "(1: N)"


def test_an_action_line_of_a_megabyte_is_quoted_cut(tmp_path, capsys):
    line = "x" * 10_000_000
    with pytest.raises(ActionSyntaxError) as info:
        parse_action(line)
    assert len(str(info.value)) <= MESSAGE_BOUND and "10,000,000 characters" in str(info.value)
    actions = tmp_path / "actions.txt"
    actions.write_text("left\n" + line + "\n", encoding="utf-8")
    code = main(["autumn", "trace", str(HERE / "bom.sexp"), "--seed", "1",
                 "--actions", str(actions)])
    assert code != EXIT_OK
    err = capsys.readouterr().err
    assert "actions.txt:2" in err and len(err) <= MESSAGE_BOUND + 200


@pytest.mark.parametrize("line", ["click 1 " + "9" * 5000, "click -" + "0" * 5000 + "9999999999 1",
                                  "left " + "y" * 100_000, "click " + "z" * 100_000 + " 1"])
def test_hostile_action_lines_are_bounded_action_errors(line):
    with pytest.raises(ActionSyntaxError) as info:
        parse_action(line)
    assert len(str(info.value)) <= MESSAGE_BOUND


def test_long_names_and_atoms_in_a_program_are_quoted_cut():
    name = "n" * 100_000
    problem = _one_problem(f"(program (= GRID_SIZE 4) (= v {name}))", "names.sexp")
    assert "undefined name" in problem.message and len(str(problem)) <= MESSAGE_BOUND
    problem = _one_problem(f"(program (= GRID_SIZE 4) (= v ({'#' * 100_000} 1)))", "atom.sexp")
    assert type(problem) is AutumnSyntaxError and len(str(problem)) <= MESSAGE_BOUND


# Programs at the limits, shaped to cost the most per byte: each checks within a CPU-time bound
# and a memory bound, measured in a fresh process (peak RSS is a property of the process).
def _shape(kind: str) -> str:
    room = MAX_TEXT_BYTES - 200
    if kind == "definitions":
        body = [f"(= value_number_{i} (+ {i} (* 2 3)))" for i in range(MAX_STATEMENTS - 1)]
        return "(program (= GRID_SIZE 8)\n" + "\n".join(body) + ")"
    if kind == "one_long_list":
        return "(program (= GRID_SIZE 8) (= x (list" + " 1" * (room // 2) + ")))"
    if kind == "twenty_thousand_globals":
        body, size = [], 0
        while size < room - 100:
            body.append(f"(= n{len(body)} {len(body)})")
            size += len(body[-1]) + 1
        return "(program (= GRID_SIZE 8) (= x (let " + " ".join(body) + ")))"
    if kind == "ten_megabytes":
        return "(program (= GRID_SIZE 8)\n" + "(= value 1)\n" * 900_000 + ")"
    raise AssertionError(kind)


# the peak resident size is this process's own VmHWM: getrusage's ru_maxrss survives exec on
# Linux, so a child of a large pytest worker would report the worker's peak, not its own
_MEASURE = """
import json, sys, time
from llm_eval.autumn import check_program
text = open(sys.argv[1], encoding="utf-8").read()
start = time.process_time()
problems = check_program(text, path="shape.sexp")
cpu = time.process_time() - start
with open("/proc/self/status", encoding="ascii") as status:
    hwm_kb = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
print(json.dumps({"cpu": cpu, "rss_mb": hwm_kb / 1024,
                  "problems": [type(p).__name__ for p in problems]}))
"""


@slow
@pytest.mark.timeout(300)
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmHWM from Linux /proc")
@pytest.mark.parametrize("kind, problems", [
    ("definitions", []), ("one_long_list", []), ("twenty_thousand_globals", []),
    ("ten_megabytes", ["AutumnLimitError"])])
def test_programs_at_the_limits_check_in_bounded_time_and_memory(tmp_path, kind, problems):
    path = tmp_path / f"{kind}.sexp"
    path.write_text(_shape(kind), encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", _MEASURE, str(path)], capture_output=True,
                          text=True, check=True)
    measured = json.loads(done.stdout)
    assert measured["problems"] == problems
    # 3-4 s of CPU each on the development machine; before issue 33, 20,000 definitions
    # took 114 s and a 10 MB program 86 s and 1.3 GB
    assert measured["cpu"] < 20, measured
    assert measured["rss_mb"] < 400, measured
