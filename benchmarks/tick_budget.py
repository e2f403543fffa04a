"""How much of the interpreter's work budget the shipped worlds use: the margin, reproducibly.

The interpreter stops a runaway program by counting work, not time (``llm_eval/autumn/
runtime.py``, ``DEFAULT_WORK_BUDGET``): one unit per lambda call and per list element a builtin
builds or visits, with a fresh budget for each load, tick, host render and host evaluation.
This script plays seeded random actions (uniform over click on a random cell, left, right, up,
down, noop) in every bundled world, in every CD task's modified program (with its trigger), and
in the benchmark programs, each with seeds 1, 2, 3 and the seeds of the world's tasks, and
prints per program the most work any load, tick and render did, the budget, and the margin
(budget / the largest of the three).

    python benchmarks/tick_budget.py                  # 500 actions per run
    python benchmarks/tick_budget.py --actions 2000 --only hunters
    python benchmarks/tick_budget.py --json

The counts are deterministic: the same on every machine and at any load. The exit status is 1
if any run raised an error or used more than a tenth of the budget.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

PROGRAMS_DIR = Path(__file__).resolve().parent / "programs"
KINDS = ("click", "left", "right", "up", "down", "noop")
BASE_SEEDS = (1, 2, 3)
REQUIRED_MARGIN = 10


@dataclass
class Usage:
    """The most work one load, tick and render of a program did, over all its runs."""

    program: str
    kind: str
    seeds: list[int] = field(default_factory=list)
    ticks: int = 0
    load: int = 0
    tick: int = 0
    render: int = 0
    error: str | None = None

    @property
    def peak(self) -> int:
        return max(self.load, self.tick, self.render)


def play(usage: Usage, text: str, path: str, seed: int, actions: int,
         trigger: str = "") -> None:
    """One run: load, then ``actions`` random actions, each a tick and a render."""
    from llm_eval.actions import Action, apply_action
    from llm_eval.autumn import Interpreter

    it = Interpreter()
    it.run_script(text, seed=seed, path=path, trigger=trigger,
                  allow_degenerate_seed=seed % 2 ** 32 == 0)
    usage.load = max(usage.load, it.work_done)
    size = it.render_frame().size
    usage.render = max(usage.render, it.work_done)
    rng = random.Random(seed)
    for _ in range(actions):
        kind = rng.choice(KINDS)
        if kind == "click":
            action = Action("click", rng.randrange(size), rng.randrange(size))
        else:
            action = Action(kind)
        apply_action(it, action)
        it.step()
        usage.tick = max(usage.tick, it.work_done)
        it.render_frame()
        usage.render = max(usage.render, it.work_done)
        usage.ticks += 1


def programs(only: list[str] | None):
    """(name, kind, text, display path, seeds, trigger) for every program measured."""
    from llm_eval.tasks import all_tasks
    from llm_eval.worlds import default_registry
    from llm_eval.worldtest.programs import modified_program_text

    tasks = all_tasks()
    for spec in default_registry().specs():
        seeds = sorted({*BASE_SEEDS, *(t.seed for t in tasks if t.world == spec.name)})
        yield spec.name, "world", spec.program_text(), spec.program_path, seeds, ""
    for task in tasks:
        if task.family == "cd":
            text, display = modified_program_text(task)
            seeds = sorted({*BASE_SEEDS, task.seed})
            yield (f"{task.world} (modified)", "cd task", text, display, seeds,
                   task.hidden.trigger)
    for path in sorted(PROGRAMS_DIR.glob("*.sexp")):
        yield path.stem, "benchmark", path.read_text(encoding="utf-8"), str(path), \
            list(BASE_SEEDS), ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=500, help="random actions per run")
    parser.add_argument("--only", metavar="NAME", action="append",
                        help="only this world or program (repeatable)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    args = parser.parse_args(argv)

    from llm_eval.autumn.runtime import DEFAULT_WORK_BUDGET

    rows: list[Usage] = []
    for name, kind, text, path, seeds, trigger in programs(args.only):
        if args.only and name.split(" ")[0] not in args.only:
            continue
        usage = Usage(name, kind, seeds)
        try:
            for seed in seeds:
                play(usage, text, path, seed, args.actions, trigger)
        except Exception as exc:  # report and carry on with the others
            usage.error = f"{type(exc).__name__}: {exc}"
        rows.append(usage)
        if not args.json:
            print(f"  measured {name} ({usage.ticks} ticks)", file=sys.stderr)

    budget = DEFAULT_WORK_BUDGET
    peak = max((r.peak for r in rows), default=0)
    ok = all(r.error is None and r.peak * REQUIRED_MARGIN <= budget for r in rows)
    if args.json:
        print(json.dumps({"budget": budget, "actions": args.actions, "peak": peak,
                          "margin": budget / peak if peak else None,
                          "rows": [asdict(r) for r in rows]}, indent=2))
        return 0 if ok else 1
    print(f"Work per load, tick and render ({args.actions} random actions per seed); "
          f"budget {budget:,} units each")
    header = (f"{'program':<22} {'kind':<9} {'seeds':<14} {'max load':>9} {'max tick':>9} "
              f"{'max render':>10} {'margin':>8}")
    print(header)
    print("-" * len(header))
    for r in rows:
        seeds = ",".join(map(str, r.seeds))
        if r.error:
            print(f"{r.program:<22} {r.kind:<9} {seeds:<14}  ERROR {r.error}")
            continue
        margin = f"{budget / r.peak:,.0f}x" if r.peak else "-"
        print(f"{r.program:<22} {r.kind:<9} {seeds:<14} {r.load:>9,} {r.tick:>9,} "
              f"{r.render:>10,} {margin:>8}")
    print("-" * len(header))
    print(f"largest: {peak:,} units; budget {budget:,}: margin "
          f"{budget / peak if peak else float('inf'):,.0f}x")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
