"""``llm-eval export gif|inspect``: an episode as an animation, a run as inspect_ai logs.

- ``export gif RUN_DIR|TRANSCRIPT [--job ID] -o FILE [--frame-ms MS]``: ``export_gif.py``.
- ``export inspect RUN_DIR -o LOGDIR``: ``export_inspect.py`` (needs the ``inspect`` extra).

Exit 0 when written, 2 for unusable input (no such job, no frames, a missing extra).
"""

from __future__ import annotations

import argparse
import sys

from ..argtypes import integer_at_least

__all__ = ["add_export_parser"]

EXIT_USAGE = 2


def _run(write) -> int:
    from ..errors import LlmEvalError

    try:
        message = write()
    except LlmEvalError as exc:
        print(f"llm-eval: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:
        print(f"llm-eval: error: {exc.strerror or exc}: {getattr(exc, 'filename', '')}",
              file=sys.stderr)
        return EXIT_USAGE
    print(message)
    return 0


def cmd_export_gif(args: argparse.Namespace) -> int:
    def write() -> str:
        from ..report.export_gif import export_gif

        path, frames = export_gif(args.target, args.output, job=args.job,
                                  frame_ms=args.frame_ms)
        return f"{path}: {frames} frames, {path.stat().st_size / 1e3:.0f} kB"
    return _run(write)


def cmd_export_inspect(args: argparse.Namespace) -> int:
    def write() -> str:
        from ..report.export_inspect import export_inspect

        paths = export_inspect(args.run_dir, args.output)
        return "\n".join(f"{p}" for p in paths) + f"\n{len(paths)} inspect_ai log(s) written"
    return _run(write)


def add_export_parser(commands) -> argparse.ArgumentParser:
    """Add ``export`` (``gif``, ``inspect``) to the ``llm-eval`` subcommands."""
    export = commands.add_parser("export", help="export an episode as an animation, or a run "
                                                "as inspect_ai logs")
    kinds = export.add_subparsers(dest="export_kind", metavar="KIND", required=True)
    gif = kinds.add_parser("gif", help="an episode's frames as an animated GIF or APNG",
                           description="Draw each recorded frame with its phase, step and "
                                       "action under it; .gif, .png or .apng by the suffix.")
    gif.add_argument("target", metavar="RUN_DIR|TRANSCRIPT")
    gif.add_argument("--job", metavar="ID", help="the job, in a run directory")
    gif.add_argument("-o", "--output", required=True, metavar="FILE")
    gif.add_argument("--frame-ms", type=integer_at_least(20), default=350, metavar="MS",
                     help="milliseconds per frame (default 350)")
    gif.set_defaults(handler=cmd_export_gif)
    inspect = kinds.add_parser("inspect", help="each arm of a run as an inspect_ai log",
                               description="One inspect_ai eval log per arm, one sample per "
                                           "episode, written with inspect_ai's own log API "
                                           "(pip install 'llm-eval[inspect]').")
    inspect.add_argument("run_dir", metavar="RUN_DIR")
    inspect.add_argument("-o", "--output", required=True, metavar="LOGDIR")
    inspect.set_defaults(handler=cmd_export_inspect)
    return export
