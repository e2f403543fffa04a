"""``llm-eval render WORLD --seed S [--actions FILE] --format F -o OUT``: the frame after the
actions as json, compact, diff (what the last action changed) or png (``render``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..actions import Action, iter_action_lines
from ..argtypes import integer, integer_between
from ..atomic import write_atomic
from ..errors import AutumnError
from .options import (
    EXIT_OK,
    EXIT_PROGRAM_ERROR,
    UsageError,
    format_autumn_error,
    is_terminal,
    open_world,
)

__all__ = ["add_render_parser"]


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
    if args.format == "png" and args.output == "-" and is_terminal(sys.stdout):
        raise UsageError("refusing to write PNG bytes to a terminal; use -o FILE (or pipe it)")
    if args.format == "diff" and not actions:
        raise UsageError("--format diff shows what the last action changed, so it needs at "
                         "least one action (--actions FILE)")
    world, name = open_world(args.world, args.seed)
    frame, previous = world.frame, None
    for t, (line_number, action) in enumerate(actions, start=1):
        try:
            new_frame, _, _, _, info = world.step(action)
        except AutumnError as exc:
            print(f"{format_autumn_error(exc, name)} (in step {t}, action '{action}' from "
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


def _format_name(text: str) -> str:
    from ..render import RenderError, check_format

    try:
        return check_format(text)
    except RenderError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_render_parser(commands) -> argparse.ArgumentParser:
    """Add ``render`` to the ``llm-eval`` subcommands."""
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
    return render
