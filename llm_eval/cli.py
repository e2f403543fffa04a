"""The ``llm-eval`` command line.

Commands:

- ``llm-eval autumn trace PROGRAM --seed S [--actions FILE] [--trigger EXPR]`` prints one JSON
  object per line: the initial frame (``t`` = 0), then one frame after each action.
- ``llm-eval autumn check PROGRAM`` reports every problem of a program with its position.

Every mistake a user can make (a bad program, a bad action line, a missing file, a refused
seed) is reported as one line on stderr naming the file and line, never as a traceback.
Exit codes: 0 success, 1 the program is at fault, 2 usage, input or I/O error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TextIO

from . import __version__
from .actions import Action, apply_action, iter_action_lines
from .errors import ActionSyntaxError, AutumnError, AutumnSeedError, LlmEvalError

__all__ = ["main", "resolve_program", "EXIT_OK", "EXIT_PROGRAM_ERROR", "EXIT_USAGE"]

EXIT_OK = 0
EXIT_PROGRAM_ERROR = 1
EXIT_USAGE = 2

PROG = "llm-eval"
SEED_ZERO_MESSAGE = (
    "--seed {seed} is refused: a seed of 0 (mod 2**32) makes Autumn's random generator return "
    "0 on every draw, so the world would silently lose all randomness; use any other seed, "
    "e.g. --seed 1"
)


class UsageError(Exception):
    """A mistake in how the command was called or in its input files (exit code 2)."""


def resolve_program(name_or_path: str) -> tuple[str, str]:
    """Return ``(program text, display path)`` for a PROGRAM argument.

    Today PROGRAM is a path to an Autumn file. This is the single place where a later issue
    adds bundled world names (look the name up in the world registry first, fall back to a path).
    Raises OSError when the file cannot be read, UsageError when it is not UTF-8 text.
    """
    path = Path(name_or_path)
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{name_or_path}: not a UTF-8 text file (byte {exc.start})") from None
    return text, name_or_path


def _format_autumn_error(error: AutumnError, display_path: str) -> str:
    """``path:line:col: message``; the interpreter normally fills the path, we fill it if not."""
    text = str(error)
    if not error.path:
        text = f"{display_path}:{text}" if error.line is not None else f"{display_path}: {text}"
    return text


def _frame_line(t: int, rows: list[list[str]]) -> str:
    return json.dumps({"t": t, "grid": rows}, separators=(",", ":"))


def _stdin_has_actions(stdin: TextIO | None) -> bool:
    if stdin is None:
        return False
    try:
        return not stdin.isatty()
    except (AttributeError, ValueError):  # closed or exotic stream: treat as no input
        return False


def _action_source(args: argparse.Namespace) -> tuple[str, Iterator[tuple[int, Action]] | None]:
    """Where the actions come from, and the numbered actions (None: only the initial frame).

    An actions file is parsed completely before anything runs, so a bad line prints no frames;
    stdin is parsed line by line, so a driver can pipe actions in and read frames as they come.
    """
    if args.actions is not None and args.actions != "-":
        try:
            text = Path(args.actions).read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise UsageError(f"{args.actions}: not a UTF-8 text file (byte {exc.start})") from None
        return args.actions, iter(list(iter_action_lines(text.splitlines(), args.actions)))
    if args.actions == "-" or _stdin_has_actions(sys.stdin):
        return "<stdin>", iter_action_lines(sys.stdin, "<stdin>")
    return "<none>", None


def _check_seed(seed: int) -> None:
    if seed % 2**32 == 0:
        raise UsageError(SEED_ZERO_MESSAGE.format(seed=seed))


def _cmd_trace(args: argparse.Namespace) -> int:
    _check_seed(args.seed)
    text, display_path = resolve_program(args.program)
    source, actions = _action_source(args)

    from .autumn import Interpreter  # the interpreter is loaded only when a command needs it

    interpreter = Interpreter()
    try:
        interpreter.run_script(text, trigger=args.trigger, seed=args.seed, path=display_path)
        initial = interpreter.render_frame()
    except AutumnSeedError as exc:
        raise UsageError(str(exc)) from None
    except AutumnError as exc:
        print(_format_autumn_error(exc, display_path), file=sys.stderr)
        return EXIT_PROGRAM_ERROR
    out = sys.stdout
    out.write(_frame_line(0, initial.to_rows()) + "\n")
    out.flush()
    if actions is None:
        return EXIT_OK
    t = 0
    for line_number, action in actions:
        t += 1
        try:
            apply_action(interpreter, action)
            interpreter.step()
            frame = interpreter.render_frame()
        except AutumnError as exc:
            print(f"{_format_autumn_error(exc, display_path)} (in step {t}, action "
                  f"'{action}' from {source}:{line_number})", file=sys.stderr)
            return EXIT_PROGRAM_ERROR
        out.write(_frame_line(t, frame.to_rows()) + "\n")
        out.flush()
    return EXIT_OK


def _cmd_check(args: argparse.Namespace) -> int:
    text, display_path = resolve_program(args.program)

    from .autumn import check_program

    try:
        problems = list(check_program(text, path=display_path))
    except AutumnError as exc:  # a checker that raises instead of reporting still reports
        problems = [exc]
    for problem in problems:
        print(_format_autumn_error(problem, display_path), file=sys.stderr)
    if problems:
        return EXIT_PROGRAM_ERROR
    print(f"ok: {display_path}")
    return EXIT_OK


def _seed(text: str) -> int:
    try:
        return int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``llm-eval`` (exposed for documentation and tests)."""
    parser = argparse.ArgumentParser(
        prog=PROG, description="Evaluate LLM agents on Autumn grid worlds.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    autumn = commands.add_parser("autumn", help="run and check Autumn programs",
                                 description="Run and check Autumn programs.")
    autumn_commands = autumn.add_subparsers(dest="autumn_command", metavar="COMMAND",
                                            required=True)

    trace = autumn_commands.add_parser(
        "trace", help="print the frames of a program driven by actions, one JSON line each",
        description=(
            "Load PROGRAM with the given seed and print its frames as JSON lines "
            '{"t": T, "grid": [[colour, ...], ...]} with grid[y][x]: the initial frame (t=0), '
            "then one frame after each action. Actions come from --actions FILE, or from stdin "
            "when it is not a terminal: one per line (click X Y, left, right, up, down, noop); "
            "blank lines and # comments are ignored."))
    trace.add_argument("program", metavar="PROGRAM", help="path to an Autumn program file")
    trace.add_argument("--seed", type=_seed, required=True,
                       help="random seed (any integer except 0 mod 2**32)")
    trace.add_argument("--actions", metavar="FILE",
                       help="file of actions, one per line ('-' for stdin)")
    trace.add_argument("--trigger", metavar="EXPR", default="",
                       help="trigger condition, evaluated before every step (AUTUMN.md 14.2)")
    trace.set_defaults(handler=_cmd_trace)

    check = autumn_commands.add_parser(
        "check", help="read and check a program, reporting every problem with its position",
        description="Read and check PROGRAM; print each problem as path:line:col: message.")
    check.add_argument("program", metavar="PROGRAM", help="path to an Autumn program file")
    check.set_defaults(handler=_cmd_check)
    return parser


def _error(message: str) -> None:
    print(f"{PROG}: error: {message}", file=sys.stderr)


def _silence_stdout() -> None:
    """After a broken pipe (``| head``), point stdout at devnull so exit does not complain."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def main(argv: Iterable[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``); returns the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(None if argv is None else list(argv))
    except SystemExit as exc:  # argparse has already printed usage or help
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    try:
        return args.handler(args)
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_OK
    except ActionSyntaxError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_USAGE
    except UsageError as exc:
        _error(str(exc))
        return EXIT_USAGE
    except OSError as exc:
        name = exc.filename if exc.filename is not None else ""
        reason = exc.strerror or str(exc)
        _error(f"cannot read {name}: {reason}" if name else reason)
        return EXIT_USAGE
    except AutumnError as exc:
        print(_format_autumn_error(exc, getattr(args, "program", "<program>")), file=sys.stderr)
        return EXIT_PROGRAM_ERROR
    except LlmEvalError as exc:
        _error(str(exc))
        return EXIT_PROGRAM_ERROR
    except KeyboardInterrupt:
        return 130
