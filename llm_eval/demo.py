"""``llm-eval demo [--out DIR]``: the README's main job, offline and with no API key.

It runs a small sweep, the random and oracle agents on a few bundled worlds x the three test
families x three seeds (their tasks as the default suite, v2, has them: ``tasks.store``), and
then the real-model episodes recorded in the package's ``transcripts/`` (SmolLM2-135M, played
live on a local server) once more, each as a job of its own whose model requests are answered
from its recording by the replay adapter. Everything is written to DIR as any run is
(``run.sqlite``, one transcript per job), so ``llm-eval replay DIR``, ``llm-eval report DIR``
and ``llm-eval run --resume`` work on it. It prints a score table
(mean score per arm and family with its 95% interval clustered by world, the number of scored
episodes and of jobs not done) and where things are. Running the demo again into the same
DIR runs nothing twice.

The command (its options, what it prints, its exit codes) is ``llm_eval.cli.demo``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from .tasks.families import FAMILIES

__all__ = ["DEMO_WORLDS", "DEMO_SEEDS", "demo_spec", "recorded_transcripts", "run_demo",
           "score_table"]

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
    """The real-model transcripts shipped as ``llm_eval.recordings`` (the root ``transcripts/``)."""
    root = Path(str(resources.files("llm_eval.recordings")))
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
    from .runlock import hold_run_dir
    from .runstore import STORE_FILE, RunStore
    from .sweep import run_sweep

    out = Path(out)
    start = time.perf_counter()
    result = DemoResult(out)
    with hold_run_dir(out):   # one writer for the whole demo
        report = run_sweep(demo_spec(worlds, seeds), out, **options)
        result.executed += len(report.executed)
        result.skipped += len(report.skipped)
        result.stopped = report.stopped_by_user
        for path in [] if result.stopped else \
                recorded_transcripts() if transcripts is None else transcripts:
            report = run_recorded(path, out)
            result.executed += len(report.executed)
            result.skipped += len(report.skipped)
    with RunStore(out / STORE_FILE, readonly=True) as store:
        result.rows = [row for run in store.runs() for row in store.jobs(run["id"])]
    result.seconds = time.perf_counter() - start
    return result


def score_table(out: str | Path) -> str:
    """Mean score per arm (``by_arm``: a model, plus the settings that vary among its
    episodes) and family, then per arm over all families, each with its 95%
    confidence interval clustered by world (``llm_eval.analysis``; none for a single
    episode); then the number of scored episodes and of jobs not done."""
    from .analysis.data import load_episodes
    from .analysis.stats import aggregate, by_arm

    episodes = by_arm(load_episodes([out]))
    cells = {row.key: row for row in aggregate(episodes, ("model", "family"))}
    overall = {row.key[0]: row for row in aggregate(episodes, ("model",))}
    models = list(dict.fromkeys(e.model for e in episodes))
    columns = [f for f in FAMILIES if any((m, f) in cells for m in models)]
    lines = [["model", *columns, "all", "scored", "not done"]]
    for model in models:
        row = overall[model]
        not_done = row.n_infra_error + row.n_failed + row.n_fatal + row.n_unfinished
        lines.append([model, *(_cell(cells.get((model, f))) for f in columns), _cell(row),
                      str(row.n_done), str(not_done)])
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    return "\n".join("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                               for i, (c, w) in enumerate(zip(line, widths))).rstrip()
                     for line in lines)


def _cell(row) -> str:
    if row is None or row.estimate is None:
        return "-"
    e = row.estimate
    if math.isnan(e.ci_low):
        return f"{e.mean:.3f}"
    return f"{e.mean:.3f} [{e.ci_low:.2f}, {e.ci_high:.2f}]"
