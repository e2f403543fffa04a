"""``llm-eval play WORLD [--seed S]``: a person plays a world in the terminal
(``worlds.play``)."""

from __future__ import annotations

import argparse
import sys

from ..argtypes import integer
from .options import EXIT_OK, UsageError, is_terminal, open_world

__all__ = ["add_play_parser"]


def _cmd_play(args: argparse.Namespace) -> int:
    world, name = open_world(args.world, args.seed)
    if not (is_terminal(sys.stdin) and is_terminal(sys.stdout)):
        raise UsageError("play needs an interactive terminal (stdin and stdout must be a "
                         "terminal); to drive a world from a file use 'llm-eval autumn trace'")
    from ..worlds.play import PlaySession, run_terminal

    session = PlaySession(world, name=name)
    run_terminal(session)
    print(f"{name}: {world.steps} steps since the last reset, {session.resets} resets, "
          f"seed {world.seed}")
    return EXIT_OK


def add_play_parser(commands) -> argparse.ArgumentParser:
    """Add ``play`` to the ``llm-eval`` subcommands."""
    play = commands.add_parser(
        "play", help="play a world in the terminal",
        description="Play WORLD in the terminal: arrow keys; c X Y Enter to click (or click a "
                    "cell with the mouse); n or space: noop; r: reset; q: quit.")
    play.add_argument("world", metavar="WORLD",
                      help="a bundled world's name (see 'llm-eval worlds') or a program path")
    play.add_argument("--seed", type=integer, default=1,
                      help="random seed (default 1; any integer except 0 mod 2**32)")
    play.set_defaults(handler=_cmd_play)
    return play
