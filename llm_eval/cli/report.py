"""``llm-eval report RUN_DIR... -o report.html``: one self-contained HTML report of some runs.

Options: ``--max-transcripts N`` (episodes in the viewer, default 20), ``--max-steps N`` (steps
shown per phase, default 40), ``--max-text N`` (characters per message, default 4000),
``--plots DIR`` (also write each plot of the page as a PNG file there, named after its
caption: for papers and READMEs), ``--side-by-side ARM_A ARM_B`` (the tasks where two arms
differ most, both episodes next to each other: ``side_by_side.py``). Exit 0 when the report is written, 2 when a run directory
or the output cannot be used.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..argtypes import integer_at_least
from ..atomic import write_atomic
from ..errors import LlmEvalError

__all__ = ["add_report_parser", "cmd_report"]

EXIT_USAGE = 2


def cmd_report(args: argparse.Namespace) -> int:
    from ..report.page import build_report
    from ..report.viewer import ViewerLimits

    for run_dir in args.run_dirs:
        if not Path(run_dir).is_dir():
            print(f"llm-eval: error: {run_dir}: not a run directory", file=sys.stderr)
            return EXIT_USAGE
    if args.plots and Path(args.plots).exists() and not Path(args.plots).is_dir():
        print(f"llm-eval: error: --plots {args.plots}: not a directory", file=sys.stderr)
        return EXIT_USAGE   # before the report is written: nothing half done
    limits = ViewerLimits(max_transcripts=args.max_transcripts,
                          max_steps_per_phase=max(1, args.max_steps),
                          max_text_chars=max(100, args.max_text))
    try:
        path = build_report(args.run_dirs, args.output, limits=limits,
                            side_by_side=tuple(args.side_by_side) if args.side_by_side
                            else None)
    except LlmEvalError as exc:
        print(f"llm-eval: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:
        print(f"llm-eval: error: cannot write {args.output}: {exc.strerror or exc}",
              file=sys.stderr)
        return EXIT_USAGE
    size = path.stat().st_size
    print(f"report: {path} ({size / 1e6:.1f} MB)")
    if args.plots:
        try:
            written = write_plots(path.read_text(encoding="utf-8"), Path(args.plots))
        except OSError as exc:
            print(f"llm-eval: error: cannot write plots to {args.plots}: "
                  f"{exc.strerror or exc}", file=sys.stderr)
            return EXIT_USAGE
        for plot in written:
            print(f"plot: {plot}")
    return 0


def write_plots(page: str, folder: Path) -> list[Path]:
    """Write every plot of a report page (its ``<img class="plot">`` images) to ``folder`` as
    ``<caption slug>.png``; returns the paths."""
    import base64
    import re
    from html.parser import HTMLParser

    found: list[tuple[str, bytes]] = []
    prefix = "data:image/png;base64,"

    class Plots(HTMLParser):
        def handle_starttag(self, name, attrs):
            attrs = dict(attrs)
            if name == "img" and attrs.get("class") == "plot" and \
                    (attrs.get("src") or "").startswith(prefix):
                found.append((attrs.get("alt") or "plot",
                              base64.b64decode(attrs["src"][len(prefix):])))

    Plots().feed(page)
    folder.mkdir(parents=True, exist_ok=True)
    paths, used = [], set()
    for caption, data in found:
        words = re.sub(r"[^a-z0-9]+", " ", caption.lower()).split()
        slug = "-".join(words[:5]) or "plot"   # the caption's first words
        name, n = slug, 2
        while name in used:
            name, n = f"{slug}-{n}", n + 1
        used.add(name)
        path = folder / f"{name}.png"
        write_atomic(path, data)
        paths.append(path)
    return paths


def add_report_parser(commands) -> argparse.ArgumentParser:
    """Add ``report`` to the ``llm-eval`` subcommands."""
    report = commands.add_parser(
        "report", help="write one self-contained HTML report of one or more runs",
        description="Read the run store and transcripts of each RUN_DIR and write one HTML "
                    "file with no external references: the leaderboard with confidence "
                    "intervals, plots, per-task scores, compute scaling, knob checks, "
                    "behaviour measures and a transcript viewer.")
    report.add_argument("run_dirs", nargs="+", metavar="RUN_DIR", help="a run directory")
    report.add_argument("-o", "--output", required=True, metavar="REPORT.html",
                        help="the HTML file to write")
    report.add_argument("--max-transcripts", type=integer_at_least(0), default=20, metavar="N",
                        help="episodes shown in the transcript viewer (default 20)")
    report.add_argument("--max-steps", type=integer_at_least(0), default=40, metavar="N",
                        help="steps shown per phase of an episode (default 40)")
    report.add_argument("--max-text", type=integer_at_least(0), default=4000, metavar="N",
                        help="characters shown per message (default 4000)")
    report.add_argument("--plots", metavar="DIR",
                        help="also write each plot as a PNG file in DIR")
    report.add_argument("--side-by-side", nargs=2, metavar=("ARM_A", "ARM_B"),
                        help="add a view of the tasks where these two arms (as the "
                             "leaderboard names them) differ most, episodes side by side")
    report.set_defaults(handler=cmd_report)
    return report
