"""The ``llm-eval`` command line.

Commands:

- ``llm-eval autumn trace PROGRAM --seed S [--actions FILE] [--trigger EXPR]`` prints one JSON
  object per line: the initial frame (``t`` = 0), then one frame after each action.
- ``llm-eval autumn check PROGRAM`` reports every problem of a program with its position.
- ``llm-eval worlds [--json]`` lists the bundled worlds with their descriptions.
- ``llm-eval play WORLD [--seed S]``: a person plays a world in the terminal.
- ``llm-eval render WORLD --seed S [--actions FILE] --format F -o OUT`` renders the frame after
  the actions as json, compact, diff (what the last action changed) or png.
- ``llm-eval episode WORLD --family mfp|cd|planning --agent random|oracle [--seed S] [--json]``
  plays one episode of the shipped task and prints the score.
- ``llm-eval run``, ``demo``, ``replay``, ``compare``, ``report``, ``tasks``, ``providers``:
  registered below from their own modules of this package, one per command (``episode``,
  ``tasks``, ``run``, ``replay``, ``compare``, ``report``, ``card``, ``export``, ``suites``,
  ``serve``, ``mcp``, ``providers``; the demo's from ``llm_eval.demo``).

PROGRAM and WORLD are a bundled world's name or a path to an Autumn program file.

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

from .. import __version__
from ..actions import Action, apply_action, iter_action_lines
from ..argtypes import integer, integer_at_least, integer_between
from ..atomic import write_atomic
from ..errors import ActionSyntaxError, AutumnError, AutumnSeedError, LlmEvalError, TaskFileError
from ..seeds import DEGENERATE_SEED_REASON, is_degenerate_seed

__all__ = ["main", "resolve_program", "EXIT_OK", "EXIT_PROGRAM_ERROR", "EXIT_USAGE"]

EXIT_OK = 0
EXIT_PROGRAM_ERROR = 1
EXIT_USAGE = 2

PROG = "llm-eval"
SEED_ZERO_MESSAGE = "--seed {seed} is refused: " + DEGENERATE_SEED_REASON + (
    "; use any other seed, e.g. --seed 1")


class UsageError(Exception):
    """A mistake in how the command was called or in its input files (exit code 2)."""


def _looks_like_a_name(text: str) -> bool:
    return bool(text) and "/" not in text and os.sep not in text and "." not in text


def resolve_program(name_or_path: str) -> tuple[str, str]:
    """Return ``(program text, display path)`` for a PROGRAM argument.

    PROGRAM is looked up in the world registry first, then read as a path. A name that is
    neither a world nor a file raises UsageError with a "did you mean"; an unreadable path
    raises OSError; a file that is not UTF-8 text raises UsageError.
    """
    from ..worlds import default_registry
    from ..worlds.errors import UnknownWorldError, WorldMetadataError

    path = Path(name_or_path)
    try:
        registry = default_registry()
    except WorldMetadataError:
        if not path.exists():
            raise
        return _read_program(path, name_or_path)  # a path still works if the bundle is broken
    if name_or_path in registry:
        spec = registry.get(name_or_path)
        return spec.program_text(), spec.program_path
    if not path.exists() and _looks_like_a_name(name_or_path):
        try:
            registry.get(name_or_path)
        except UnknownWorldError as exc:
            raise UsageError(f"{exc} and there is no file {name_or_path!r}") from None
    return _read_program(path, name_or_path)


def _read_program(path: Path, name_or_path: str) -> tuple[str, str]:
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{name_or_path}: not a UTF-8 text file (byte {exc.start})") from None
    return text, name_or_path


def _format_autumn_error(error: AutumnError, display_path: str) -> str:
    """``path:line:col: message``; the interpreter normally fills the path, we fill it if not."""
    text = str(error)
    if error.path == "<trigger>":   # the trigger expression (interpreter.TRIGGER_PATH)
        return "--trigger" + text.removeprefix("<trigger>")
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
    if is_degenerate_seed(seed):
        raise UsageError(SEED_ZERO_MESSAGE.format(seed=seed))


def _cmd_trace(args: argparse.Namespace) -> int:
    _check_seed(args.seed)
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

    from ..autumn import check_program

    try:
        problems = list(check_program(text, path=display_path))
    except AutumnError as exc:  # a checker that raises instead of reporting still reports
        problems = [exc]
    from ..errors import AutumnCheckWarning

    for problem in problems:
        label = "warning: " if isinstance(problem, AutumnCheckWarning) else ""
        print(label + _format_autumn_error(problem, display_path), file=sys.stderr)
    warnings = sum(isinstance(p, AutumnCheckWarning) for p in problems)
    if len(problems) > warnings:
        return EXIT_PROGRAM_ERROR
    print(f"ok: {display_path}" + (f" ({warnings} warning{'s' * (warnings != 1)})"
                                   if warnings else ""))
    return EXIT_OK


def _open_world(argument: str, seed: int, **kwargs):
    """A reset ``World`` for a WORLD argument (a bundled name or a program path)."""
    from ..worlds import World, default_registry
    from ..worlds.errors import WorldMetadataError

    _check_seed(seed)
    text, display_path = resolve_program(argument)
    try:
        registry = default_registry()
    except WorldMetadataError:  # resolve_program fell back to a path
        registry = None
    if registry is not None and argument in registry:
        world, name = registry.make(argument, seed=seed, **kwargs), argument
    else:
        world = World(text, name=display_path, path=display_path, seed=seed, **kwargs)
        name = display_path
    try:
        world.reset()
    except AutumnSeedError as exc:
        raise UsageError(str(exc)) from None
    return world, name


def _cmd_worlds(args: argparse.Namespace) -> int:
    from ..worlds import default_registry

    if args.gallery is not None:
        return _cmd_gallery(args)
    if args.quick or args.world or args.processes is not None:
        raise UsageError("--quick, --world and --processes go with --gallery DIR")
    specs = default_registry().specs()
    if args.json:
        print(json.dumps([spec.summary() for spec in specs], indent=2))
        return EXIT_OK
    if not specs:
        print("no bundled worlds")
        return EXIT_OK
    width = max(len(spec.name) for spec in specs)
    for spec in specs:
        kind = "stochastic" if spec.stochastic else "deterministic"
        size = f"{spec.size}x{spec.size}"
        print(f"{spec.name:<{width}}  {size:>5}  {kind:<13}  {spec.description}")
    return EXIT_OK


def _cmd_gallery(args: argparse.Namespace) -> int:
    from ..report.gallery import build_gallery
    from ..tasks.validate import FULL, QUICK
    from ..worlds import default_registry
    from ..worlds.errors import UnknownWorldError

    registry = default_registry()
    for name in args.world or ():
        try:
            registry.get(name)
        except UnknownWorldError as exc:
            raise UsageError(f"--world: {exc}") from None
    from ..parallel import default_processes

    processes = default_processes() if args.processes is None else args.processes
    path = build_gallery(args.gallery, worlds=args.world, effort=QUICK if args.quick else FULL,
                         random_episodes=5 if args.quick else 20, processes=processes,
                         progress=lambda text: print(text, file=sys.stderr))
    print(f"gallery: {path}")
    return EXIT_OK


def _cmd_render(args: argparse.Namespace) -> int:
    from ..render import render_png, render_text

    actions: list[tuple[int, Action]] = []
    source = args.actions
    if args.actions is not None:
        if args.actions == "-":
            source = "<stdin>"
            actions = list(iter_action_lines(sys.stdin, source))
        else:
            try:
                text = Path(args.actions).read_text(encoding="utf-8")
            except UnicodeDecodeError as exc:
                raise UsageError(f"{args.actions}: not a UTF-8 text file (byte {exc.start})"
                                 ) from None
            actions = list(iter_action_lines(text.splitlines(), args.actions))
    if args.format == "png" and args.output == "-" and _is_terminal(sys.stdout):
        raise UsageError("refusing to write PNG bytes to a terminal; use -o FILE (or pipe it)")
    if args.format == "diff" and not actions:
        raise UsageError("--format diff shows what the last action changed, so it needs at "
                         "least one action (--actions FILE)")
    world, name = _open_world(args.world, args.seed)
    frame, previous = world.frame, None
    for t, (line_number, action) in enumerate(actions, start=1):
        try:
            new_frame, _, _, _, info = world.step(action)
        except AutumnError as exc:
            print(f"{_format_autumn_error(exc, name)} (in step {t}, action '{action}' from "
                  f"{source}:{line_number})", file=sys.stderr)
            return EXIT_PROGRAM_ERROR
        if "invalid_action" in info:
            raise UsageError(f"{source}:{line_number}: {info['invalid_action']}")
        frame, previous = new_frame, frame
    if args.format == "png":
        data = render_png(frame, cell_size=args.cell_size, grid_lines=not args.no_grid_lines,
                          coordinates=args.coordinates)
    else:
        data = (render_text(frame, args.format, previous) + "\n").encode("utf-8")
    if args.output == "-":
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        try:
            write_atomic(args.output, data)
        except OSError as exc:
            raise UsageError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    return EXIT_OK


def _cmd_play(args: argparse.Namespace) -> int:
    world, name = _open_world(args.world, args.seed)
    if not (_is_terminal(sys.stdin) and _is_terminal(sys.stdout)):
        raise UsageError("play needs an interactive terminal (stdin and stdout must be a "
                         "terminal); to drive a world from a file use 'llm-eval autumn trace'")
    from ..worlds.play import PlaySession, run_terminal

    session = PlaySession(world, name=name)
    run_terminal(session)
    print(f"{name}: {world.steps} steps since the last reset, {session.resets} resets, "
          f"seed {world.seed}")
    return EXIT_OK


def _is_terminal(stream: TextIO | None) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError):
        return False


def _format_name(text: str) -> str:
    from ..render import RenderError, check_format

    try:
        return check_format(text)
    except RenderError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


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

    worlds = commands.add_parser(
        "worlds", help="list the bundled worlds",
        description="List the bundled worlds: name, grid size, stochastic or deterministic, "
                    "and a one-line description of the mechanics (for people; agents never "
                    "see it).")
    worlds.add_argument("--json", action="store_true",
                        help="print a JSON list of objects (name, size, stochastic, mechanics, "
                             "description)")
    worlds.add_argument("--gallery", metavar="DIR",
                        help="write a browsable gallery to DIR/index.html: each world's initial "
                             "frame (PNG files beside it), size, randomness, mechanics and its "
                             "tasks' validation figures (validates every task: minutes)")
    worlds.add_argument("--quick", action="store_true",
                        help="--gallery: fewer validation rollouts and random episodes")
    worlds.add_argument("--world", action="append", metavar="W",
                        help="--gallery: only this world (repeatable)")
    worlds.add_argument("--processes", type=integer_at_least(1), metavar="N", default=None,
                        help="--gallery: validate in N worker processes (default: one per "
                             "core; 1: in this process)")
    worlds.set_defaults(handler=_cmd_worlds)

    play = commands.add_parser(
        "play", help="play a world in the terminal",
        description="Play WORLD in the terminal: arrow keys; c X Y Enter to click (or click a "
                    "cell with the mouse); n or space: noop; r: reset; q: quit.")
    play.add_argument("world", metavar="WORLD",
                      help="a bundled world's name (see 'llm-eval worlds') or a program path")
    play.add_argument("--seed", type=integer, default=1,
                      help="random seed (default 1; any integer except 0 mod 2**32)")
    play.set_defaults(handler=_cmd_play)

    render = commands.add_parser(
        "render", help="render a frame of a world as json, compact, diff or png",
        description="Load WORLD with the seed, play the actions, and write the last frame in "
                    "FORMAT: json (the published JSON rows of colour names), compact (a "
                    "character grid with a legend and coordinates), diff (what the last action "
                    "changed) or png.")
    render.add_argument("world", metavar="WORLD",
                        help="a bundled world's name (see 'llm-eval worlds') or a program path")
    render.add_argument("--seed", type=integer, required=True,
                        help="random seed (any integer except 0 mod 2**32)")
    render.add_argument("--actions", metavar="FILE",
                        help="file of actions, one per line ('-' for stdin)")
    render.add_argument("--format", type=_format_name, required=True, metavar="FORMAT",
                        help="json, compact, diff or png")
    render.add_argument("-o", "--output", metavar="OUT", required=True,
                        help="output file ('-' for stdout)")
    render.add_argument("--cell-size", type=integer_between(4, 256, "pixels"), default=24,
                        metavar="PX",
                        help="png: side of a cell in pixels (default 24)")
    render.add_argument("--no-grid-lines", action="store_true",
                        help="png: no lines between cells")
    render.add_argument("--coordinates", action="store_true",
                        help="png: label columns and rows")
    render.set_defaults(handler=_cmd_render)

    from .tasks import add_tasks_parser  # `tasks generate`, `tasks validate`

    add_tasks_parser(commands)

    from .episode import add_episode_parser  # `episode WORLD --family ...`

    add_episode_parser(commands)

    from .run import add_run_parser  # `run SPEC.yaml | --model ... -o RUN_DIR`

    add_run_parser(commands)

    from ..demo import add_demo_parser  # `demo [--out DIR]`

    add_demo_parser(commands)

    from .replay import add_replay_parser  # `replay RUN_DIR|TRANSCRIPT...`

    add_replay_parser(commands)

    from .compare import add_compare_parser  # `compare RUN_A [RUN_B]`

    add_compare_parser(commands)

    from .report import add_report_parser  # `report RUN_DIR... -o report.html`

    add_report_parser(commands)

    from .card import add_card_parser  # `card RUN_DIR [--arm ARM] [--json]`

    add_card_parser(commands)

    from .export import add_export_parser  # `export gif|inspect ...`

    add_export_parser(commands)

    from .suites import add_suites_parser  # `suites list|show|check|freeze`

    add_suites_parser(commands)

    from .serve import add_serve_parser  # `serve [RUN_DIR] [--host H] [--port P]`

    add_serve_parser(commands)

    from .mcp import add_mcp_parser  # `mcp --task WORLD-FAMILY | --suite NAME`

    add_mcp_parser(commands)

    from .providers import add_providers_parser  # `providers [--json]`

    add_providers_parser(commands)
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
    except TaskFileError as exc:          # bad input: a task file, an import, a refused seed
        _error(str(exc))
        return EXIT_USAGE
    except LlmEvalError as exc:
        _error(str(exc))
        return EXIT_PROGRAM_ERROR
    except KeyboardInterrupt:
        return 130
