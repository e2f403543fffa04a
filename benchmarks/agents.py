"""Reference agents on the shipped WorldTest tasks (docs/spec/worldtest.md 6): the random agent (the
floor), the simulator agent (knows the program and the current state but not the random draws
to come, looks 6 actions ahead: the published study's difficulty reference; docs/suite-v2.md)
and the oracle (knows everything: the upper reference), per task, per family and per world.

Each task is played by the oracle and the simulator once (both are deterministic) and by the
random agent with ``--seeds`` seeds; the table gives each agent's score (the random agent's
mean, and how many of its episodes scored above 0), then the means per family and per world.

    python benchmarks/agents.py                       # the default suite's tasks (v2)
    python benchmarks/agents.py --suite v1            # the tasks of suite v1, as v1 has them
    python benchmarks/agents.py --world warehouse --seeds 30
    python benchmarks/agents.py --agents random simulator --processes 2
    python benchmarks/agents.py --json > agents.json
    python benchmarks/agents.py --suite v1 --reuse agents.json   # play only what it lacks

``--reuse FILE`` takes the rows of tasks already measured (by an earlier ``--json`` run with
the same ``--seeds`` and agents; repeatable) instead of playing them again, so a long
measurement can be made world by world and printed whole. A row is reused only for the same
task file (its ``task_sha256``): suites v1 and v2 share most files, so a v1 measurement fills
in v2's unchanged tasks, and a task v2 rebuilt under the same id is played again.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

AGENTS = ("random", "simulator", "oracle")
FAMILIES = ("mfp", "cd", "planning")


def measure(job: tuple[str, str, tuple[str, ...], int, str | None]) -> dict:
    """One task's row: each agent's score, raw reward and seconds (``job``: world, family,
    agents, random seeds, suite: None for the default suite)."""
    from llm_eval.agents import OracleAgent, RandomAgent, SimulatorAgent
    from llm_eval.tasks.store import load_task
    from llm_eval.worldtest import run_episode

    world, family, agents, seeds, suite = job
    task = load_task(world, family, suite)
    row: dict = {"task": task.id, "world": world, "family": family,
                 "task_sha256": _task_sha256(task)}
    for name in agents:
        start = time.perf_counter()
        if name == "random":
            results = [run_episode(task, RandomAgent(seed=s)) for s in range(1, seeds + 1)]
            row["random"] = {"score": statistics.fmean(r.score for r in results),
                             "raw": statistics.fmean(r.raw_reward for r in results),
                             "wins": sum(r.score > 0 for r in results),
                             "episodes": len(results)}
        else:
            agent = SimulatorAgent(task) if name == "simulator" else OracleAgent(task)
            result = run_episode(task, agent)
            row[name] = {"score": result.score, "raw": result.raw_reward,
                         "test_steps": result.test.steps}
            if name == "simulator":
                row[name] |= {"searches": agent.searches, "states": agent.states}
        row[name]["seconds"] = round(time.perf_counter() - start, 2)
    return row


def _task_sha256(task) -> str:
    """The digest of a task's content (its shipped file's text)."""
    import hashlib

    from llm_eval.tasks.store import dump_task

    return hashlib.sha256(dump_task(task).encode()).hexdigest()


def _means(rows: list[dict], agents: tuple[str, ...], key: str) -> dict:
    groups: dict[str, dict] = {}
    for value in dict.fromkeys(r[key] for r in rows):
        mine = [r for r in rows if r[key] == value]
        groups[value] = {"tasks": len(mine)} | {
            a: round(statistics.fmean(r[a]["score"] for r in mine), 3) for a in agents}
    return groups


def _reused_rows(paths: list[str], seeds: int, agents: tuple[str, ...]) -> dict[str, dict]:
    """(task id, task sha256) -> row, from earlier ``--json`` outputs; an output measured with
    other seeds or without one of ``agents`` is refused, naming the file."""
    rows: dict[tuple[str, str], dict] = {}
    for path in paths:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise SystemExit(f"agents.py: --reuse {path}: cannot read it: {exc}") from None
        if data.get("seeds") != seeds:
            raise SystemExit(f"agents.py: --reuse {path}: measured with --seeds "
                             f"{data.get('seeds')}, not {seeds}")
        for row in data.get("tasks", []):
            missing = [a for a in agents if a not in row]
            if missing:
                raise SystemExit(f"agents.py: --reuse {path}: {row.get('task')} has no "
                                 f"{', '.join(missing)} figures")
            rows[row["task"], row.get("task_sha256", "")] = row
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", metavar="NAME",
                        help="the tasks of this suite (checked against its manifest); "
                             "default: the default suite's tasks (v2), unchecked")
    parser.add_argument("--world", action="append", help="only this world (repeatable)")
    parser.add_argument("--family", action="append", choices=FAMILIES,
                        help="only this family (repeatable)")
    parser.add_argument("--agents", nargs="+", choices=AGENTS, default=list(AGENTS))
    parser.add_argument("--seeds", type=int, default=10, help="random-agent episodes per task")
    parser.add_argument("--processes", type=int, default=1,
                        help="tasks played at once in worker processes (default 1)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--reuse", action="append", default=[], metavar="FILE",
                        help="rows of an earlier --json run to take instead of playing those "
                             "tasks again (same --seeds and agents; repeatable)")
    args = parser.parse_args(argv)
    agents = tuple(a for a in AGENTS if a in args.agents)
    reused = _reused_rows(args.reuse, args.seeds, agents)

    if args.suite:
        from llm_eval.suites import load_suite

        suite = load_suite(args.suite)
        pairs = [(t.world, t.family) for t in suite.tasks]
        for t in suite.tasks:
            suite.verify(t.id)
        source = f"suite {suite.name} (sha256 {suite.short_digest})"
    else:
        from llm_eval.tasks.store import all_tasks

        pairs = [(t.world, t.family) for t in all_tasks()]
        source = "the default suite's tasks"
    pairs = [(w, f) for w, f in pairs if (not args.world or w in args.world)
             and (not args.family or f in args.family)]
    from llm_eval.tasks.store import load_task

    digests = {(w, f): _task_sha256(load_task(w, f, args.suite)) for w, f in pairs}
    kept = {f"{w}-{f}": reused[f"{w}-{f}", digests[w, f]] for w, f in pairs
            if (f"{w}-{f}", digests[w, f]) in reused}
    jobs = [(w, f, agents, args.seeds, args.suite) for w, f in pairs
            if f"{w}-{f}" not in kept]
    start = time.perf_counter()
    if args.processes > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(args.processes) as pool:
            played = list(pool.map(measure, jobs))
    else:
        played = []
        for job in jobs:
            played.append(measure(job))
            if not args.json:
                print(f"  {played[-1]['task']}: " + ", ".join(
                    f"{a} {played[-1][a]['score']:.3f}" for a in agents), file=sys.stderr)
    seconds = round(time.perf_counter() - start, 1)
    by_task = {**kept, **{r["task"]: r for r in played}}
    rows = [by_task[f"{w}-{f}"] for w, f in pairs]
    # the reused rows' time: their agents' seconds, as measured then (one process each)
    earlier = round(sum(r[a]["seconds"] for r in rows if r["task"] not in
                        {p["task"] for p in played} for a in agents), 1)
    families = _means(rows, agents, "family")
    worlds = _means(rows, agents, "world")
    overall = {a: round(statistics.fmean(r[a]["score"] for r in rows), 3) for a in agents} \
        if rows else {}
    if args.json:
        print(json.dumps({"source": source, "seeds": args.seeds, "seconds": seconds,
                          "reused": len(rows) - len(played), "reused_seconds": earlier,
                          "tasks": rows, "families": families, "worlds": worlds,
                          "overall": overall}, indent=2))
        return 0
    took = f"{seconds:.0f} s" + (f"; {len(rows) - len(played)} tasks reused from --reuse, "
                                 f"measured in {earlier:.0f} s of agent time"
                                 if len(rows) > len(played) else "")
    print(f"Reference agents on {source}: {len(rows)} tasks (random: {args.seeds} seeds per "
          f"task; {took})\n")
    head = "".join(f" {a:>9}" for a in agents)
    print(f"{'task':<22}{head}   random wins  simulator steps/searches/states")
    for r in rows:
        cells = "".join(f" {r[a]['score']:>9.3f}" for a in agents)
        extra = ""
        if "random" in r:
            extra += f"   {r['random']['wins']:>3}/{r['random']['episodes']:<3}"
        if "simulator" in r:
            s = r["simulator"]
            extra += f"       {s['test_steps']}/{s['searches']}/{s['states']}"
        print(f"{r['task']:<22}{cells}{extra}")
    for title, groups in (("family", families), ("world", worlds)):
        print(f"\nmean score per {title}:")
        print(f"{title:<22}{head}  tasks")
        for name, g in groups.items():
            print(f"{name:<22}" + "".join(f" {g[a]:>9.3f}" for a in agents)
                  + f"  {g['tasks']:>5}")
    print(f"\n{'all':<22}" + "".join(f" {overall[a]:>9.3f}" for a in agents)
          + f"  {len(rows):>5}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
