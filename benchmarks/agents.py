"""Reference agents on the shipped WorldTest tasks: the oracle's and the random agent's scores
per task and per family (WORLDTEST.md 6).

Each task is played by the oracle once and by the random agent with ``--seeds`` seeds; the
table gives the oracle's score (and raw reward), the random agent's mean score, its mean raw
reward and how many of its episodes succeeded, then the means per family.

    python benchmarks/agents.py                  # all 36 tasks, random with 10 seeds
    python benchmarks/agents.py --seeds 30 --world warehouse
    python benchmarks/agents.py --json
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


def measure(task, seeds: int) -> dict:
    from llm_eval.agents import OracleAgent, RandomAgent
    from llm_eval.worldtest import run_episode

    start = time.perf_counter()
    oracle = run_episode(task, OracleAgent(task))
    oracle_s = time.perf_counter() - start
    randoms = [run_episode(task, RandomAgent(seed=seed)) for seed in range(1, seeds + 1)]
    return {
        "task": task.id, "world": task.world, "family": task.family,
        "oracle_score": oracle.score, "oracle_raw": oracle.raw_reward,
        "oracle_seconds": round(oracle_s, 2),
        "random_mean_score": statistics.fmean(r.score for r in randoms),
        "random_mean_raw": statistics.fmean(r.raw_reward for r in randoms),
        "random_successes": sum(1 for r in randoms if r.score > 0),
        "random_episodes": len(randoms),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10, help="random-agent episodes per task")
    parser.add_argument("--world", action="append", help="only this world (repeatable)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    from llm_eval.tasks import all_tasks

    tasks = [t for t in all_tasks() if not args.world or t.world in args.world]
    rows = [measure(task, args.seeds) for task in tasks]
    families = {}
    for family in ("mfp", "cd", "planning"):
        mine = [r for r in rows if r["family"] == family]
        if mine:
            families[family] = {
                "tasks": len(mine),
                "oracle_mean_score": statistics.fmean(r["oracle_score"] for r in mine),
                "random_mean_score": statistics.fmean(r["random_mean_score"] for r in mine),
            }
    if args.json:
        print(json.dumps({"seeds": args.seeds, "tasks": rows, "families": families}, indent=2))
        return 0
    print(f"Reference agents on the shipped tasks (random: {args.seeds} seeds per task)\n")
    print(f"{'task':<22} {'oracle':>7} {'raw':>7} {'secs':>6} {'random':>7} {'raw':>7} "
          f"{'wins':>6}")
    for r in rows:
        print(f"{r['task']:<22} {r['oracle_score']:>7.3f} {r['oracle_raw']:>+7.3f} "
              f"{r['oracle_seconds']:>6.1f} {r['random_mean_score']:>7.3f} "
              f"{r['random_mean_raw']:>+7.3f} {r['random_successes']:>3}/{r['random_episodes']:<2}")
    print()
    for family, f in families.items():
        print(f"{family:<9} {f['tasks']:>2} tasks: oracle mean {f['oracle_mean_score']:.3f}, "
              f"random mean {f['random_mean_score']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
