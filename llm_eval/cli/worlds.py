"""``llm-eval worlds [--json]``: the bundled worlds with their descriptions; ``worlds --gallery
DIR [--quick] [--world W] [--processes N]`` writes the browsable world gallery
(``report.gallery``)."""

from __future__ import annotations

import argparse
import json
import sys

from ..argtypes import integer_at_least
from .options import EXIT_OK, UsageError

__all__ = ["add_worlds_parser"]


def _cmd_worlds(args: argparse.Namespace) -> int:
    from ..worlds import default_registry

    if args.gallery is not None:
        return _cmd_gallery(args)
    if args.quick or args.world or args.processes is not None or args.no_cache:
        raise UsageError("--quick, --world, --processes and --no-cache go with --gallery DIR")
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
    from ..tasks import report_cache
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
                         progress=lambda text: print(text, file=sys.stderr),
                         cache=report_cache.cache_dir(), refresh=args.no_cache)
    print(f"gallery: {path}")
    return EXIT_OK


def add_worlds_parser(commands) -> argparse.ArgumentParser:
    """Add ``worlds`` to the ``llm-eval`` subcommands."""
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
    worlds.add_argument("--no-cache", action="store_true",
                        help="--gallery: validate every task again instead of reusing the "
                             "reports 'tasks validate' kept (docs/reference.md)")
    worlds.add_argument("--processes", type=integer_at_least(1), metavar="N", default=None,
                        help="--gallery: validate in N worker processes (default: one per "
                             "core; 1: in this process)")
    worlds.set_defaults(handler=_cmd_worlds)
    return worlds
