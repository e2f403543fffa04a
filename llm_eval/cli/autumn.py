"""``llm-eval autumn``: run and check Autumn programs.

- ``autumn trace PROGRAM --seed S [--actions FILE] [--trigger EXPR]`` prints one JSON object
  per line: the initial frame (``t`` = 0), then one frame after each action;
- ``autumn check PROGRAM`` reports every problem of a program with its position.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from ..actions import Action, apply_action, iter_action_lines
from ..argtypes import integer
from ..errors import AutumnError, AutumnSeedError
from .options import (
    EXIT_OK,
    EXIT_PROGRAM_ERROR,
    UsageError,
    check_seed,
    format_autumn_error,
    resolve_program,
)

__all__ = ["add_autumn_parser"]


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


def _cmd_trace(args: argparse.Namespace) -> int:
    check_seed(args.seed)
    text, display_path = resolve_program(args.program)
    source, actions = _action_source(args)

    from ..autumn import Interpreter  # the interpreter is loaded only when a command needs it

    interpreter = Interpreter()
    try:
        interpreter.run_script(text, trigger=args.trigger, seed=args.seed, path=display_path)
        initial = interpreter.render_frame()
    except AutumnSeedError as exc:
        raise UsageError(str(exc)) from None
    except AutumnError as exc:
        print(format_autumn_error(exc, display_path), file=sys.stderr)
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
            print(f"{format_autumn_error(exc, display_path)} (in step {t}, action "
                  f"'{action}' from {source}:{line_number})", file=sys.stderr)
            return EXIT_PROGRAM_ERROR
        out.write(_frame_line(t, frame.to_rows()) + "\n")
        out.flush()
    return EXIT_OK


def _cmd_check(args: argparse.Namespace) -> int:
    text, display_path = resolve_program(args.program)

    from ..autumn import check_program

    try:
        problems = list(check_program(text, path=display_path))
    except AutumnError as exc:  # a checker that raises instead of reporting still reports
        problems = [exc]
    from ..errors import AutumnCheckWarning

    for problem in problems:
        label = "warning: " if isinstance(problem, AutumnCheckWarning) else ""
        print(label + format_autumn_error(problem, display_path), file=sys.stderr)
    warnings = sum(isinstance(p, AutumnCheckWarning) for p in problems)
    if len(problems) > warnings:
        return EXIT_PROGRAM_ERROR
    print(f"ok: {display_path}" + (f" ({warnings} warning{'s' * (warnings != 1)})"
                                   if warnings else ""))
    return EXIT_OK


def add_autumn_parser(commands) -> argparse.ArgumentParser:
    """Add ``autumn trace`` and ``autumn check`` to the ``llm-eval`` subcommands."""
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
    trace.add_argument("program", metavar="PROGRAM",
                       help="a bundled world's name or a path to an Autumn program file")
    trace.add_argument("--seed", type=integer, required=True,
                       help="random seed (any integer except 0 mod 2**32)")
    trace.add_argument("--actions", metavar="FILE",
                       help="file of actions, one per line ('-' for stdin)")
    trace.add_argument("--trigger", metavar="EXPR", default="",
                       help="trigger condition, evaluated before every step (docs/spec/autumn.md 14.2)")
    trace.set_defaults(handler=_cmd_trace)

    check = autumn_commands.add_parser(
        "check", help="read and check a program, reporting every problem with its position",
        description="Read and check PROGRAM; print each problem as path:line:col: message.")
    check.add_argument("program", metavar="PROGRAM", help="path to an Autumn program file")
    check.set_defaults(handler=_cmd_check)
    return autumn
