"""The ``llm-eval`` command line: ``autumn trace`` and ``autumn check``, run in-process via
``main([...])``, plus one run through ``python -m llm_eval`` in a subprocess."""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from documented import page_lines

from llm_eval import __version__
from llm_eval.cli import EXIT_OK, EXIT_PROGRAM_ERROR, EXIT_USAGE, main

REPO = Path(__file__).resolve().parents[1]

# A 3x3 world: one red dot starting at (0, 1); arrows move it, a click puts it there.
DOT_PROGRAM = """\
(program
  (= GRID_SIZE 3)
  (object Dot (Cell 0 0 "red"))
  (= dot (initnext (Dot (Position 0 1)) (prev dot)))
  (on right (= dot (moveRight dot)))
  (on left (= dot (moveLeft dot)))
  (on clicked (= dot (Dot click))))
"""

# The same world with an unclosed list: the reader must name a line and a column.
UNCLOSED_PROGRAM = """\
(program
  (= GRID_SIZE 3)
  (object Dot (Cell 0 0 "red"))
  (= dot (initnext (Dot (Position 0 1)) (prev dot))
"""

# Loads fine, fails on the first `right`: (head (list)) is an error on an empty list.
FAILS_ON_RIGHT_PROGRAM = """\
(program
  (= GRID_SIZE 3)
  (object Dot (Cell 0 0 "red"))
  (= dot (initnext (Dot (Position 0 1)) (prev dot)))
  (on right (= dot (head (list)))))
"""

LOCATED = re.compile(r"^prog\.sexp:\d+:\d+: \S")


def dot_at(x: int, y: int) -> list[list[str]]:
    grid = [["black"] * 3 for _ in range(3)]
    if 0 <= x < 3 and 0 <= y < 3:
        grid[y][x] = "red"
    return grid


def frames(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines()]


class TerminalStdin(io.StringIO):
    """A stdin that claims to be a terminal, so trace must not read actions from it."""

    def isatty(self) -> bool:
        return True

    def read(self, *args: object) -> str:  # pragma: no cover - reading would be the bug
        raise AssertionError("trace read from a terminal stdin")

    readline = read


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary working directory holding prog.sexp (the dot world)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "prog.sexp").write_text(DOT_PROGRAM)
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_one_clean_line(err: str) -> None:
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err


# --- trace -------------------------------------------------------------------------------------


def test_trace_with_actions_file(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (workdir / "acts.txt").write_text("right\nright\nright\nleft\n")
    code, out, err = run(capsys, "autumn", "trace", "prog.sexp", "--seed", "7",
                         "--actions", "acts.txt")
    assert (code, err) == (EXIT_OK, "")
    # The third `right` walks the dot off the grid: off-grid cells are dropped from the frame.
    assert frames(out) == [
        {"t": 0, "grid": dot_at(0, 1)},
        {"t": 1, "grid": dot_at(1, 1)},
        {"t": 2, "grid": dot_at(2, 1)},
        {"t": 3, "grid": dot_at(3, 1)},
        {"t": 4, "grid": dot_at(2, 1)},
    ]


def test_trace_prints_one_compact_json_object_per_line(
        workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (workdir / "acts.txt").write_text("noop\n")
    code, out, _ = run(capsys, "autumn", "trace", "prog.sexp", "--seed", "1",
                       "--actions", "acts.txt")
    assert code == EXIT_OK
    lines = out.splitlines()
    assert len(lines) == 2 and out.endswith("\n")
    for t, line in enumerate(lines):
        record = json.loads(line)
        assert list(record) == ["t", "grid"] and record["t"] == t
        assert line == json.dumps(record, separators=(",", ":"))


def test_trace_ignores_comments_and_blank_lines(
        workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (workdir / "acts.txt").write_text(
        "# move, then click\n\nright   # one step\n   \n#left\nclick 2 0\nnoop # wait\n")
    code, out, err = run(capsys, "autumn", "trace", "prog.sexp", "--seed", "3",
                         "--actions", "acts.txt")
    assert (code, err) == (EXIT_OK, "")
    assert [f["grid"] for f in frames(out)] == [
        dot_at(0, 1), dot_at(1, 1), dot_at(2, 0), dot_at(2, 0)]
    assert [f["t"] for f in frames(out)] == [0, 1, 2, 3]


def test_trace_click_off_grid_is_accepted(workdir: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    (workdir / "acts.txt").write_text("click -1 5\nclick 1 2\n")
    code, out, _ = run(capsys, "autumn", "trace", "prog.sexp", "--seed", "3",
                       "--actions", "acts.txt")
    assert code == EXIT_OK
    assert [f["grid"] for f in frames(out)] == [dot_at(0, 1), dot_at(-1, 5), dot_at(1, 2)]


def test_trace_reads_actions_from_stdin_when_not_a_terminal(
        workdir: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("right\n\n# comment\nright\n"))
    code, out, err = run(capsys, "autumn", "trace", "prog.sexp", "--seed", "7")
    assert (code, err) == (EXIT_OK, "")
    assert frames(out) == [{"t": 0, "grid": dot_at(0, 1)}, {"t": 1, "grid": dot_at(1, 1)},
                           {"t": 2, "grid": dot_at(2, 1)}]


def test_trace_actions_dash_means_stdin(workdir: Path, capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("right"))
    code, out, _ = run(capsys, "autumn", "trace", "prog.sexp", "--seed", "7", "--actions", "-")
    assert code == EXIT_OK
    assert [f["grid"] for f in frames(out)] == [dot_at(0, 1), dot_at(1, 1)]


def test_trace_on_a_terminal_prints_only_the_initial_frame(
        workdir: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", TerminalStdin())
    code, out, err = run(capsys, "autumn", "trace", "prog.sexp", "--seed", "7")
    assert (code, err) == (EXIT_OK, "")
    assert frames(out) == [{"t": 0, "grid": dot_at(0, 1)}]


def test_trace_with_empty_stdin_prints_only_the_initial_frame(
        workdir: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    code, out, _ = run(capsys, "autumn", "trace", "prog.sexp", "--seed", "7")
    assert code == EXIT_OK
    assert len(frames(out)) == 1


def test_trace_accepts_a_trigger(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (workdir / "acts.txt").write_text("right\n")
    code, out, err = run(capsys, "autumn", "trace", "prog.sexp", "--seed", "7",
                         "--actions", "acts.txt", "--trigger", "== 1 1")
    assert (code, err) == (EXIT_OK, "")
    assert len(frames(out)) == 2


# A program whose function fails when called: (bad 1) is the head of an empty list.
FAILING_FUNCTION_PROGRAM = DOT_PROGRAM.replace(
    "  (on right", "  (= bad (--> x (head (list))))\n  (on right")


@pytest.mark.parametrize("trigger, message", [
    ("== 1   nope", "--trigger:1:8: undefined variable 'nope' (in step 1, action 'right' "
                    "from acts.txt:1)"),
    ("head (list)", "--trigger:1:1: head of an empty list (in step 1, action 'right' from "
                    "acts.txt:1)"),
    ("== 1 (", "--trigger:1:6: unclosed '(': expected a matching ')' before the end of the "
               "text"),
    # an error inside a program function the trigger calls is the program's
    ("== (bad 1) 2", "prog.sexp:5:17: head of an empty list (in step 1, action 'right' from "
                     "acts.txt:1)"),
])
def test_trigger_errors_name_the_trigger_not_the_program(
        workdir: Path, capsys: pytest.CaptureFixture[str], trigger: str, message: str) -> None:
    (workdir / "prog.sexp").write_text(FAILING_FUNCTION_PROGRAM)
    (workdir / "acts.txt").write_text("right\n")
    code, out, err = run(capsys, "autumn", "trace", "prog.sexp", "--seed", "7",
                         "--actions", "acts.txt", "--trigger", trigger)
    assert code == EXIT_PROGRAM_ERROR
    assert err.strip() == message
    assert_one_clean_line(err)


def test_trace_is_deterministic(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (workdir / "acts.txt").write_text("right\nclick 0 0\nleft\n")
    argv = ("autumn", "trace", "prog.sexp", "--seed", "11", "--actions", "acts.txt")
    assert run(capsys, *argv) == run(capsys, *argv)


# --- trace: user errors ------------------------------------------------------------------------


def test_bad_action_line_names_the_line_and_prints_no_frame(
        workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (workdir / "acts.txt").write_text("right\n# fine\njump 3\nleft\n")
    code, out, err = run(capsys, "autumn", "trace", "prog.sexp", "--seed", "7",
                         "--actions", "acts.txt")
    assert code == EXIT_USAGE
    assert out == ""
    assert err.startswith("acts.txt:3: ")
    assert "jump" in err
    assert_one_clean_line(err)


def test_bad_action_on_stdin_stops_after_the_good_ones(
        workdir: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("right\nclick 1\nright\n"))
    code, out, err = run(capsys, "autumn", "trace", "prog.sexp", "--seed", "7")
    assert code == EXIT_USAGE
    assert [f["t"] for f in frames(out)] == [0, 1]
    assert err.startswith("<stdin>:2: ")
    assert_one_clean_line(err)


def test_unreadable_program_names_line_and_column(
        workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (workdir / "prog.sexp").write_text(UNCLOSED_PROGRAM)
    code, out, err = run(capsys, "autumn", "trace", "prog.sexp", "--seed", "7")
    assert code == EXIT_PROGRAM_ERROR
    assert out == ""
    assert LOCATED.match(err), err
    assert_one_clean_line(err)


def test_program_failing_at_load_names_the_file(
        workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (workdir / "prog.sexp").write_text("(program\n  (= GRID_SIZE 3)\n  (= x (+ nowhere 1)))\n")
    code, out, err = run(capsys, "autumn", "trace", "prog.sexp", "--seed", "7")
    assert code == EXIT_PROGRAM_ERROR
    assert out == ""
    assert err.startswith("prog.sexp:")
    assert_one_clean_line(err)


def test_program_failing_in_a_step_names_the_step_and_action(
        workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (workdir / "prog.sexp").write_text(FAILS_ON_RIGHT_PROGRAM)
    (workdir / "acts.txt").write_text("noop\n\nright\n")
    code, out, err = run(capsys, "autumn", "trace", "prog.sexp", "--seed", "7",
                         "--actions", "acts.txt")
    assert code == EXIT_PROGRAM_ERROR
    assert [f["t"] for f in frames(out)] == [0, 1]
    assert err.startswith("prog.sexp:")
    assert "step 2" in err and "acts.txt:3" in err and "'right'" in err
    assert_one_clean_line(err)


@pytest.mark.parametrize("seed", ["0", str(2**32), str(-(2**32))])
def test_degenerate_seed_is_refused_with_a_reason(
        workdir: Path, capsys: pytest.CaptureFixture[str], seed: str) -> None:
    code, out, err = run(capsys, "autumn", "trace", "prog.sexp", "--seed", seed)
    assert code == EXIT_USAGE
    assert out == ""
    assert f"--seed {seed}" in err and "random" in err
    assert_one_clean_line(err)


@pytest.mark.parametrize("argv", [
    ("autumn", "trace", "prog.sexp"),                        # --seed is required
    ("autumn", "trace", "prog.sexp", "--seed", "seven"),
    ("autumn", "trace", "--seed", "1"),                      # PROGRAM is required
    ("autumn",),
    ("autumn", "frobnicate"),
    (),
])
def test_usage_errors_exit_2(workdir: Path, capsys: pytest.CaptureFixture[str],
                             argv: tuple[str, ...]) -> None:
    code, out, err = run(capsys, *argv)
    assert code == EXIT_USAGE
    assert out == ""
    assert "usage:" in err and "Traceback" not in err


def test_missing_program_file(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "autumn", "trace", "nowhere.sexp", "--seed", "7")
    assert code == EXIT_USAGE
    assert out == ""
    assert "nowhere.sexp" in err and "No such file" in err
    assert_one_clean_line(err)


def test_missing_actions_file(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "autumn", "trace", "prog.sexp", "--seed", "7",
                         "--actions", "nowhere.txt")
    assert code == EXIT_USAGE
    assert out == ""
    assert "nowhere.txt" in err
    assert_one_clean_line(err)


def test_program_that_is_not_text(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (workdir / "prog.sexp").write_bytes(b"(program \xff\xfe)")
    code, _, err = run(capsys, "autumn", "check", "prog.sexp")
    assert code == EXIT_USAGE
    assert "prog.sexp" in err and "UTF-8" in err
    assert_one_clean_line(err)


def test_program_that_is_a_directory(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (workdir / "dir.sexp").mkdir()
    code, _, err = run(capsys, "autumn", "trace", "dir.sexp", "--seed", "7")
    assert code == EXIT_USAGE
    assert "dir.sexp" in err
    assert_one_clean_line(err)


# --- check -------------------------------------------------------------------------------------


def test_check_ok(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "autumn", "check", "prog.sexp")
    assert (code, out, err) == (EXIT_OK, "ok: prog.sexp\n", "")


def test_check_reports_problems_with_positions(
        workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (workdir / "prog.sexp").write_text(UNCLOSED_PROGRAM)
    code, out, err = run(capsys, "autumn", "check", "prog.sexp")
    assert code == EXIT_PROGRAM_ERROR
    assert out == ""
    lines = err.strip().splitlines()
    assert lines and all(LOCATED.match(line) for line in lines), err
    assert "Traceback" not in err


def test_check_missing_file(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "autumn", "check", "nowhere.sexp")
    assert code == EXIT_USAGE
    assert "nowhere.sexp" in err
    assert_one_clean_line(err)


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--version")
    assert code == EXIT_OK
    assert out.strip() == f"llm-eval {__version__}"


# --- the bundled example and the README --------------------------------------------------------


def test_bouncer_example_checks_and_traces(capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    assert run(capsys, "autumn", "check", "examples/bouncer.sexp") == (
        EXIT_OK, "ok: examples/bouncer.sexp\n", "")
    code, out, err = run(capsys, "autumn", "trace", "examples/bouncer.sexp", "--seed", "7",
                         "--actions", "examples/bouncer.actions")
    assert (code, err) == (EXIT_OK, "")
    actions = [line for line in (REPO / "examples/bouncer.actions").read_text().splitlines()
               if line.split("#", 1)[0].strip()]
    records = frames(out)
    assert [r["t"] for r in records] == list(range(len(actions) + 1))
    assert all(len(r["grid"]) == 8 and all(len(row) == 8 for row in r["grid"])
               for r in records)


def test_readme_example_output_is_current(capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The documented trace example shows real output: rerun its command and compare."""
    readme = page_lines()
    start = next(i for i, line in enumerate(readme) if line.startswith("$ llm-eval autumn trace"))
    command = readme[start][2:]
    expected = []
    for line in readme[start + 1:]:
        if line.startswith("```"):
            break
        expected.append(line)
    argv, _, pipe = command.partition(" | ")
    monkeypatch.chdir(REPO)
    code, out, _ = run(capsys, *shlex.split(argv)[1:])
    assert code == EXIT_OK
    lines = out.splitlines()
    if pipe:
        match = re.fullmatch(r"head -n (\d+)", pipe.strip())
        assert match, f"unsupported pipe in README example: {pipe}"
        lines = lines[:int(match.group(1))]
    assert expected == lines


# --- python -m llm_eval ------------------------------------------------------------------------


def _module_env() -> dict[str, str]:
    """Import the package under test, whether it is installed or only checked out."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    return env


def test_python_dash_m_runs_trace_and_reports_errors_cleanly(tmp_path: Path) -> None:
    (tmp_path / "prog.sexp").write_text(DOT_PROGRAM)
    command = [sys.executable, "-m", "llm_eval", "autumn", "trace", "prog.sexp", "--seed", "5"]
    done = subprocess.run(command, input="right\n# next\nclick 2 2\n", capture_output=True,
                          text=True, cwd=tmp_path, env=_module_env(), timeout=120)
    assert (done.returncode, done.stderr) == (0, "")
    assert frames(done.stdout) == [{"t": 0, "grid": dot_at(0, 1)},
                                   {"t": 1, "grid": dot_at(1, 1)},
                                   {"t": 2, "grid": dot_at(2, 2)}]

    done = subprocess.run(command[:-1] + ["0"], input="", capture_output=True, text=True,
                          cwd=tmp_path, env=_module_env(), timeout=120)
    assert done.returncode == EXIT_USAGE
    assert "--seed 0" in done.stderr and "Traceback" not in done.stderr


# --- bundled worlds: worlds, render, play, trace WORLD ------------------------------------------

WORLD_METADATA = """\
name: dot
size: 3
stochastic: false
mechanics: a dot moved by arrows
description: A red dot that arrows move and clicks place.
notes: written for the CLI tests
"""


@pytest.fixture
def dot_registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Make the bundled registry a single world, 'dot' (the 3x3 dot program)."""
    from llm_eval import worlds

    root = tmp_path / "programs"
    root.mkdir()
    (root / "dot.sexp").write_text(DOT_PROGRAM)
    (root / "dot.yaml").write_text(WORLD_METADATA)
    registry = worlds.WorldRegistry(root)
    monkeypatch.setattr(worlds, "default_registry", lambda: registry)
    monkeypatch.chdir(tmp_path)
    return root


def test_worlds_lists_names_sizes_and_descriptions(dot_registry: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "worlds") == (
        EXIT_OK, "dot    3x3  deterministic  A red dot that arrows move and clicks place.\n", "")
    code, out, _ = run(capsys, "worlds", "--json")
    assert code == EXIT_OK
    assert json.loads(out) == [{"name": "dot", "size": 3, "stochastic": False,
                                "mechanics": "a dot moved by arrows",
                                "description": "A red dot that arrows move and clicks place."}]


def test_worlds_json_lists_every_bundled_world(capsys: pytest.CaptureFixture[str]) -> None:
    from llm_eval.worlds import default_registry

    code, out, _ = run(capsys, "worlds", "--json")
    assert code == EXIT_OK
    listed = json.loads(out)
    assert [w["name"] for w in listed] == default_registry().names()
    for world in listed:
        assert {"name", "size", "stochastic", "description"} <= set(world)
        assert isinstance(world["size"], int) and isinstance(world["stochastic"], bool)


def test_trace_accepts_a_world_name(dot_registry: Path,
                                    capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("right\n"))
    code, out, err = run(capsys, "autumn", "trace", "dot", "--seed", "7")
    assert (code, err) == (EXIT_OK, "")
    assert frames(out) == [{"t": 0, "grid": dot_at(0, 1)}, {"t": 1, "grid": dot_at(1, 1)}]


def test_an_unknown_world_name_gets_a_did_you_mean(dot_registry: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (("autumn", "trace", "dto", "--seed", "7"),
                 ("render", "dto", "--seed", "7", "--format", "json", "-o", "-"),
                 ("play", "dto")):
        code, out, err = run(capsys, *argv)
        assert (code, out) == (EXIT_USAGE, "")
        assert err == ("llm-eval: error: unknown world 'dto'; did you mean 'dot'? (known worlds: "
                       "dot) and there is no file 'dto'\n")


def test_render_compact_json_and_diff_to_stdout(dot_registry: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    (dot_registry.parent / "acts.txt").write_text("right\nclick 2 0\n")
    base = ("render", "dot", "--seed", "3", "--actions", "acts.txt", "-o", "-")
    assert run(capsys, *base, "--format", "compact") == (
        EXIT_OK, "legend: .=black r=red\n  012\n0 ..r\n1 ...\n2 ...\n", "")
    code, out, _ = run(capsys, *base, "--format", "json")
    assert code == EXIT_OK and json.loads(out) == dot_at(2, 0)
    assert run(capsys, *base, "--format", "diff") == (
        EXIT_OK, "2 cells changed (x,y):\nblack -> red: (2,0)\nred -> black: (1,1)\n", "")
    # without actions: the initial frame
    code, out, _ = run(capsys, "render", "dot", "--seed", "3", "--format", "json", "-o", "-")
    assert json.loads(out) == dot_at(0, 1)


def test_render_png_to_a_file(dot_registry: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from llm_eval.render import parse_png

    code, out, err = run(capsys, "render", "dot", "--seed", "3", "--format", "png",
                         "-o", "dot.png", "--coordinates", "--cell-size", "16")
    assert (code, out, err) == (EXIT_OK, "", "")
    data = (dot_registry.parent / "dot.png").read_bytes()
    assert parse_png(data).to_rows() == dot_at(0, 1)
    code, *_ = run(capsys, "render", "dot", "--seed", "3", "--format", "png",
                   "-o", "flat.png", "--no-grid-lines", "--cell-size", "4")
    from PIL import Image

    assert code == EXIT_OK
    assert Image.open(dot_registry.parent / "flat.png").size == (12, 12)


def test_render_refuses_png_bytes_on_a_terminal(dot_registry: Path,
                                               capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdout", TerminalStdin())
    code = main(["render", "dot", "--seed", "3", "--format", "png", "-o", "-"])
    err = capsys.readouterr().err
    assert code == EXIT_USAGE and "refusing to write PNG bytes to a terminal" in err


def test_render_accepts_a_program_path(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "render", "prog.sexp", "--seed", "3", "--format", "compact",
                       "-o", "-")
    assert code == EXIT_OK and out.startswith("legend: .=black r=red\n")


@pytest.mark.parametrize("argv, message", [
    (("--format", "compakt"), "unknown rendering format 'compakt'; did you mean 'compact'?"),
    (("--format", "diff"), "--format diff shows what the last action changed"),
    (("--format", "png", "--cell-size", "2"), "must be between 4 and 256 pixels"),
    (("--format", "json", "--actions", "bad.txt"), "bad.txt:2: unknown action 'jump'"),
    (("--format", "json", "--actions", "offgrid.txt"),
     "offgrid.txt:1: click 3 0 is outside the 3x3 grid"),
    (("--format", "json", "--seed", "0"), "--seed 0 is refused"),
    (("--format", "json", "-o", "no/such/dir/out.json"), "cannot write no/such/dir/out.json"),
])
def test_render_usage_errors(dot_registry: Path, capsys: pytest.CaptureFixture[str],
                             argv: tuple[str, ...], message: str) -> None:
    (dot_registry.parent / "bad.txt").write_text("right\njump\n")
    (dot_registry.parent / "offgrid.txt").write_text("click 3 0\n")
    seed = () if "--seed" in argv else ("--seed", "3")
    output = () if "-o" in argv else ("-o", "-")
    code, out, err = run(capsys, "render", "dot", *seed, *output, *argv)
    assert (code, out) == (EXIT_USAGE, "")
    assert message in err and "Traceback" not in err


def test_render_reports_a_failing_program_with_the_step(workdir: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    (workdir / "fails.sexp").write_text(FAILS_ON_RIGHT_PROGRAM)
    (workdir / "acts.txt").write_text("noop\nright\n")
    code, out, err = run(capsys, "render", "fails.sexp", "--seed", "3", "--actions", "acts.txt",
                         "--format", "json", "-o", "-")
    assert (code, out) == (EXIT_PROGRAM_ERROR, "")
    assert err.startswith("fails.sexp:5:") and "(in step 2, action 'right' from acts.txt:2)" in err
    assert_one_clean_line(err)


def test_play_needs_a_terminal(dot_registry: Path, capsys: pytest.CaptureFixture[str],
                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    code, out, err = run(capsys, "play", "dot")
    assert (code, out) == (EXIT_USAGE, "")
    assert "play needs an interactive terminal" in err
    assert_one_clean_line(err)


def test_readme_render_example_is_current(capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The documented render examples show real output: rerun them and compare."""
    readme = page_lines()
    starts = [i for i, line in enumerate(readme) if line.startswith("$ llm-eval render ")]
    assert starts, "the docs show no render example"
    monkeypatch.chdir(REPO)
    for start in starts:
        expected = []
        for line in readme[start + 1:]:
            if line.startswith("```"):
                break
            expected.append(line)
        code, out, _ = run(capsys, *shlex.split(readme[start][2:])[1:])
        assert code == EXIT_OK
        assert out.splitlines() == expected


def test_trace_and_render_a_bundled_world_by_name(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from llm_eval.render import parse_compact
    from llm_eval.worlds import default_registry

    spec = default_registry().specs()[0]
    monkeypatch.chdir(tmp_path)  # the name must not depend on the working directory
    monkeypatch.setattr(sys, "stdin", io.StringIO("noop\n"))
    code, out, err = run(capsys, "autumn", "trace", spec.name, "--seed", "5")
    assert (code, err) == (EXIT_OK, "")
    records = frames(out)
    assert [r["t"] for r in records] == [0, 1]
    assert len(records[0]["grid"]) == spec.size
    code, out, _ = run(capsys, "render", spec.name, "--seed", "5", "--format", "compact",
                       "-o", "-")
    assert code == EXIT_OK
    assert parse_compact(out.rstrip("\n")).to_rows() == records[0]["grid"]
