"""The ``llm-eval`` command line: the root parser, the dispatch and the exit codes.

Each command is a module of this package, which adds its parser and handles it: ``autumn``
(``autumn trace``, ``autumn check``), ``worlds`` (and ``worlds --gallery``), ``play``,
``render``, ``tasks``, ``episode``, ``run``, ``demo``, ``replay``, ``compare``, ``report``,
``card``, ``export``, ``suites``, ``serve``, ``mcp`` and ``providers``. What several commands
share (PROGRAM and WORLD arguments, which are a bundled world's name or a path to an Autumn
program file, their ``--seed``, the exit codes and ``UsageError``) is ``options``; no command
module imports this one.

Every mistake a user can make (a bad program, a bad action line, a missing file, a refused
seed) is reported as one line on stderr naming the file and line, never as a traceback.
Exit codes: 0 success, 1 the program is at fault, 2 usage, input or I/O error.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable

from .. import __version__
from ..errors import ActionSyntaxError, AutumnError, LlmEvalError, TaskFileError
from ..gcpolicy import tune as tune_collector
from .autumn import add_autumn_parser
from .card import add_card_parser
from .compare import add_compare_parser
from .demo import add_demo_parser
from .episode import add_episode_parser
from .export import add_export_parser
from .mcp import add_mcp_parser
from .options import (
    EXIT_OK,
    EXIT_PROGRAM_ERROR,
    EXIT_USAGE,
    UsageError,
    format_autumn_error,
    resolve_program,
)
from .play import add_play_parser
from .providers import add_providers_parser
from .render import add_render_parser
from .replay import add_replay_parser
from .report import add_report_parser
from .run import add_run_parser
from .serve import add_serve_parser
from .suites import add_suites_parser
from .tasks import add_tasks_parser
from .worlds import add_worlds_parser

__all__ = ["main", "build_parser", "resolve_program", "UsageError", "EXIT_OK",
           "EXIT_PROGRAM_ERROR", "EXIT_USAGE"]

PROG = "llm-eval"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``llm-eval`` (exposed for documentation and tests)."""
    parser = argparse.ArgumentParser(
        prog=PROG, description="Evaluate LLM agents on Autumn grid worlds.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for add_parser in (add_autumn_parser,      # `autumn trace|check PROGRAM`
                       add_worlds_parser,      # `worlds [--json] [--gallery DIR]`
                       add_play_parser,        # `play WORLD`
                       add_render_parser,      # `render WORLD --format F -o OUT`
                       add_tasks_parser,       # `tasks generate|validate|import`
                       add_episode_parser,     # `episode WORLD --family ...`
                       add_run_parser,         # `run SPEC.yaml | --model ... -o RUN_DIR`
                       add_demo_parser,        # `demo [--out DIR]`
                       add_replay_parser,      # `replay RUN_DIR|TRANSCRIPT...`
                       add_compare_parser,     # `compare RUN_A [RUN_B]`
                       add_report_parser,      # `report RUN_DIR... -o report.html`
                       add_card_parser,        # `card RUN_DIR [--arm ARM] [--json]`
                       add_export_parser,      # `export gif|inspect ...`
                       add_suites_parser,      # `suites list|show|check|freeze`
                       add_serve_parser,       # `serve [RUN_DIR] [--host H] [--port P]`
                       add_mcp_parser,         # `mcp --task WORLD-FAMILY | --suite NAME`
                       add_providers_parser):  # `providers [--json]`
        add_parser(commands)
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
    try:
        tune_collector()
    except ValueError as exc:   # a bad LLM_EVAL_GC
        _error(str(exc))
        return EXIT_USAGE
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
        print(format_autumn_error(exc, getattr(args, "program", "<program>")), file=sys.stderr)
        return EXIT_PROGRAM_ERROR
    except TaskFileError as exc:          # bad input: a task file, an import, a refused seed
        _error(str(exc))
        return EXIT_USAGE
    except LlmEvalError as exc:
        _error(str(exc))
        return EXIT_PROGRAM_ERROR
    except KeyboardInterrupt:
        return 130
