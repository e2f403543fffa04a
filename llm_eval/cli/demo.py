"""``llm-eval demo [--out DIR] [--quiet]``: the README's main job, offline and with no API key
(what it runs is ``llm_eval.demo``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import demo
from ..tasks.families import FAMILIES

__all__ = ["add_demo_parser"]


def _cmd_demo(args: argparse.Namespace) -> int:
    out = Path(args.out)
    print(f"llm-eval demo: random and oracle on {len(demo.DEMO_WORLDS)} worlds x "
          f"{len(FAMILIES)} families x {len(demo.DEMO_SEEDS)} seeds, then "
          f"{len(demo.recorded_transcripts())} recorded SmolLM2-135M episodes replayed; "
          f"writing to {out}/", flush=True)
    from ..runstore import RunStoreError
    from ..sweep.progress import make_progress

    try:
        result = demo.run_demo(out, handle_sigint=True,
                               progress=make_progress(enabled=not args.quiet))
    except RunStoreError as exc:   # another writer holds the directory, or not a store
        print(f"llm-eval: error: {exc}", file=sys.stderr)
        return 2
    if result.stopped:
        print(f"stopped; run the demo again (llm-eval demo --out {out}) to finish it",
              file=sys.stderr)
        return 130
    print()
    print("mean score per arm and family [95% interval, clustered by world]:")
    print(demo.score_table(out))
    print()
    print(f"ran {result.executed} jobs ({result.skipped} already done) in "
          f"{result.seconds:.1f} s")
    print(f"run store:   {out / 'run.sqlite'}")
    print(f"transcripts: {out / 'transcripts'}/  (one JSON-lines file per job)")
    print(f"next: llm-eval replay {out}    llm-eval report {out} -o report.html")
    not_done = [r for r in result.rows if r.status != "done"]
    if not_done:
        print(f"{len(not_done)} jobs did not finish; see the store", file=sys.stderr)
        return 3
    return 0


def add_demo_parser(commands) -> argparse.ArgumentParser:
    """Add ``demo`` to the ``llm-eval`` subcommands."""
    about = demo.__doc__ or ""
    parser = commands.add_parser(
        "demo", help="run a small offline sweep (random, oracle, recorded SmolLM2 episodes)",
        description=about.split("\n\n")[1].replace("\n", " ") if "\n\n" in about else None)
    parser.add_argument("--out", default=demo.DEFAULT_OUT, metavar="DIR",
                        help=f"the run directory (default ./{demo.DEFAULT_OUT})")
    parser.add_argument("--quiet", action="store_true",
                        help="no progress lines on standard error")
    parser.set_defaults(handler=_cmd_demo)
    return parser
