"""``llm-eval demo [--out DIR]``: the README's main job, offline and with no API key.

It runs a small sweep, the random and oracle agents on a few bundled worlds x the three test
families x three seeds, and then the real-model episodes recorded in the package's
``transcripts/`` (SmolLM2-135M, played live on a local server) once more, each as a job of its
own whose model requests are answered from its recording by the replay adapter. Everything is
written to DIR as any run is (``run.sqlite``, one transcript per job), so ``llm-eval replay
DIR``, ``llm-eval report DIR`` and ``llm-eval run --resume`` work on it. It prints a score table
(mean score per model and family, with its standard error and the number of episodes) and
where things are. Running the demo again into the same DIR runs nothing twice.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from .tasks.models import FAMILIES

__all__ = ["DEMO_WORLDS", "DEMO_SEEDS", "demo_spec", "recorded_transcripts", "run_demo",
           "score_table", "add_demo_parser"]

DEMO_WORLDS = ("warehouse", "easel", "icepond", "hunters", "magnets", "sparks")
DEMO_SEEDS = (1, 2, 3)
DEFAULT_OUT = "llm-eval-demo"


def demo_spec(worlds=DEMO_WORLDS, seeds=DEMO_SEEDS):
    """The demo's sweep of the local agents."""
    from .sweep import Sweep

    return Sweep.from_data({"name": "demo", "models": ["random", "oracle"],
                            "worlds": list(worlds), "families": list(FAMILIES),
                            "seeds": list(seeds)}, "llm-eval demo")


def recorded_transcripts() -> list[Path]:
    """The real-model transcripts shipped in the package's ``transcripts/``."""
    root = Path(str(resources.files("transcripts")))
    return sorted(root.glob("*.jsonl"))


@dataclass
class DemoResult:
    out: Path
    rows: list = field(default_factory=list)     # every job row of every run in the store
    executed: int = 0
    skipped: int = 0
    seconds: float = 0.0
    stopped: bool = False      # by Ctrl-C


def run_demo(out: str | Path, *, worlds=DEMO_WORLDS, seeds=DEMO_SEEDS,
             transcripts: list[Path] | None = None, **options) -> DemoResult:
    """Run the demo into ``out`` (module docstring; ``options`` go to ``run_sweep``:
    progress, Ctrl-C)."""
    from .replay import run_recorded
    from .runstore import STORE_FILE, RunStore
    from .sweep import run_sweep

    out = Path(out)
    start = time.perf_counter()
    result = DemoResult(out)
    report = run_sweep(demo_spec(worlds, seeds), out, **options)
    result.executed += len(report.executed)
    result.skipped += len(report.skipped)
    result.stopped = report.stopped_by_user
    for path in [] if result.stopped else \
            recorded_transcripts() if transcripts is None else transcripts:
        report = run_recorded(path, out)
        result.executed += len(report.executed)
        result.skipped += len(report.skipped)
    with RunStore(out / STORE_FILE) as store:
        result.rows = [row for run in store.runs() for row in store.jobs(run["id"])]
    result.seconds = time.perf_counter() - start
    return result


def score_table(rows) -> str:
    """Mean score per model and family (with its standard error and the number of scored
    episodes), then per model over all families; jobs not done are counted apart."""
    groups: dict[tuple[str, str], list[float]] = {}
    not_done: dict[str, int] = {}
    for row in rows:
        model = row.settings["model"]
        if row.status != "done":
            not_done[model] = not_done.get(model, 0) + 1
            continue
        groups.setdefault((model, row.settings["family"]), []).append(row.score)
        groups.setdefault((model, "all"), []).append(row.score)
    models = list(dict.fromkeys(m for m, _ in groups))
    columns = [f for f in (*FAMILIES, "all") if any((m, f) in groups for m in models)]
    header = ["model", *columns, "not done"]
    lines = [header]
    for model in models:
        cells = [model]
        for family in columns:
            scores = groups.get((model, family))
            cells.append(_cell(scores) if scores else "-")
        cells.append(str(not_done.get(model, 0)))
        lines.append(cells)
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    text = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w)
                      in enumerate(zip(line, widths))) for line in lines]
    return "\n".join(text)


def _cell(scores: list[float]) -> str:
    mean = statistics.fmean(scores)
    if len(scores) < 2:
        return f"{mean:.3f} (n={len(scores)})"
    se = statistics.stdev(scores) / math.sqrt(len(scores))
    return f"{mean:.3f} ±{se:.3f} (n={len(scores)})"


def cmd_demo(args: argparse.Namespace) -> int:
    out = Path(args.out)
    print(f"llm-eval demo: random and oracle on {len(DEMO_WORLDS)} worlds x "
          f"{len(FAMILIES)} families x {len(DEMO_SEEDS)} seeds, then "
          f"{len(recorded_transcripts())} recorded SmolLM2-135M episodes replayed; "
          f"writing to {out}/", flush=True)
    from .sweep.progress import make_progress

    result = run_demo(out, handle_sigint=True, progress=make_progress(enabled=not args.quiet))
    if result.stopped:
        print(f"stopped; run the demo again (llm-eval demo --out {out}) to finish it",
              file=sys.stderr)
        return 130
    print()
    print("mean score per model and family (± standard error, n episodes):")
    print(score_table(result.rows))
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
    demo = commands.add_parser(
        "demo", help="run a small offline sweep (random, oracle, recorded SmolLM2 episodes)",
        description=__doc__.split("\n\n")[1].replace("\n", " ")
        if "\n\n" in __doc__ else None)
    demo.add_argument("--out", default=DEFAULT_OUT, metavar="DIR",
                      help=f"the run directory (default ./{DEFAULT_OUT})")
    demo.add_argument("--quiet", action="store_true",
                      help="no progress lines on standard error")
    demo.set_defaults(handler=cmd_demo)
    return demo
