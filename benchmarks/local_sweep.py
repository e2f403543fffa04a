"""Local sweeps: how many random and oracle jobs per second ``run_sweep`` finishes.

The random and oracle agents need no model, so their episodes are CPU-bound: the world's
ticks, the oracle's simulation and search, the transcript. The sweep is the demo's (random
and oracle on 6 worlds x 3 families x 3 seeds, 108 jobs) unless ``--worlds`` / ``--seeds``
say otherwise. Each measured run is a fresh process running one ``run_sweep`` into a fresh run
directory, timed from the call to its return (the package already imported), so each starts
cold as ``llm-eval run`` does: worker processes, program compiles and all.

    python benchmarks/local_sweep.py                   # the scheduler's default
    python benchmarks/local_sweep.py --processes 0     # every episode in a thread (one GIL)
    python benchmarks/local_sweep.py --compare         # threads, then processes: speed-up,
                                                       # and identical scores and transcripts
    python benchmarks/local_sweep.py --quick --compare # easel only, one seed
    python benchmarks/local_sweep.py --json

Printed: ``jobs/s (MODE): N`` per mode, the wall seconds of each run, and with ``--compare``
the speed-up and whether the two modes gave the same scores and transcripts (compared event
by event as ``llm-eval replay`` does: times ignored).
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

WORLDS = ["warehouse", "easel", "icepond", "hunters", "magnets", "sparks"]
SEEDS = [1, 2, 3]
FAMILIES = ["mfp", "cd", "planning"]


def sweep_spec(worlds: list[str], seeds: list[int], name: str = "local-sweep-bench"):
    from llm_eval.sweep import Sweep

    return Sweep.from_data({"name": name, "models": ["random", "oracle"], "worlds": worlds,
                            "families": FAMILIES, "seeds": seeds}, "benchmarks/local_sweep.py")


def _supports_processes() -> bool:
    from llm_eval.sweep import run_sweep_async

    return "processes" in inspect.signature(run_sweep_async).parameters


def run(spec, run_dir: Path, processes: int | None) -> dict:
    """One sweep into ``run_dir`` (which must be new); its jobs, wall seconds and jobs/s."""
    from llm_eval.sweep import run_sweep

    options = {} if processes is None else {"processes": processes}
    start = time.perf_counter()
    report = run_sweep(spec, run_dir, **options)
    wall = time.perf_counter() - start
    not_done = {r.id: r.error for r in report.rows if r.status != "done"}
    if not_done:
        raise RuntimeError(f"{len(not_done)} jobs not done: {next(iter(not_done.values()))}")
    # the seconds kept to the microsecond: printed to two decimals from this, they must agree
    # with the rate (rounded to three first, 0.7745 s printed as 0.78 beside 7.75 jobs/s)
    return {"jobs": len(report.executed), "wall_s": round(wall, 6),
            "jobs_per_s": round(len(report.executed) / wall, 2),
            "scores": {r.id: (r.score, r.raw_reward) for r in report.rows}}


def run_in_child(worlds: list[str], seeds: list[int], run_dir: Path,
                 processes: int | None) -> dict:
    """``run`` in a fresh Python process (so nothing is warm), its figures as JSON."""
    argv = [sys.executable, __file__, "--child", str(run_dir), "--worlds", *worlds,
            "--seeds", *map(str, seeds)]
    if processes is not None:
        argv += ["--processes", str(processes)]
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"the sweep failed:\n{done.stderr}")
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    figures["scores"] = {job: tuple(v) for job, v in figures["scores"].items()}
    return figures


def differences(a: Path, b: Path, scores_a: dict, scores_b: dict) -> list[str]:
    """How two run directories of the same sweep differ: scores, then transcripts event by
    event (times, latencies and the header's versions ignored, as replay does)."""
    from llm_eval.replay import compare_transcripts

    found = [f"{job}: scores {scores_a.get(job)} and {scores_b.get(job)}"
             for job in sorted(set(scores_a) | set(scores_b))
             if scores_a.get(job) != scores_b.get(job)]
    names = sorted(p.name for p in (a / "transcripts").glob("*.jsonl*"))
    if names != sorted(p.name for p in (b / "transcripts").glob("*.jsonl*")):
        found.append("the two runs wrote different transcript files")
    for name in names:
        if (b / "transcripts" / name).is_file():
            diff = compare_transcripts(a / "transcripts" / name, b / "transcripts" / name)
            if diff:
                found.append(f"{name}: {diff}")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worlds", nargs="+", default=None, metavar="W")
    parser.add_argument("--seeds", nargs="+", type=int, default=None, metavar="S")
    parser.add_argument("--quick", action="store_true", help="one world, one seed (6 jobs)")
    parser.add_argument("--processes", type=int, default=None, metavar="N",
                        help="worker processes for the local agents (0: threads only); "
                             "default: the scheduler's")
    parser.add_argument("--compare", action="store_true",
                        help="run with --processes 0, then with the default, and compare")
    parser.add_argument("--repeat", type=int, default=1, metavar="R",
                        help="run each mode R times; the fastest counts")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", metavar="RUN_DIR", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    worlds = args.worlds or (["easel"] if args.quick else WORLDS)
    seeds = args.seeds or (SEEDS[:1] if args.quick else SEEDS)
    spec = sweep_spec(worlds, seeds)
    if args.child:
        print(json.dumps(run(spec, Path(args.child), args.processes)))
        return 0
    if not _supports_processes():
        if args.compare or args.processes is not None:
            parser.error("this llm_eval runs every episode in a thread (no processes option)")
        modes = {"threads": None}
    elif args.compare:
        modes = {"threads": 0, "processes": args.processes}
    else:
        modes = {("threads" if args.processes == 0 else "processes"): args.processes}

    root = Path(tempfile.mkdtemp(prefix="local-sweep-bench-"))
    try:
        results: dict[str, dict] = {}
        dirs: dict[str, Path] = {}
        for n in range(args.repeat):   # the modes take turns, so a busy spell hits both
            for mode, processes in modes.items():
                run_dir = root / f"{mode}-{n}"
                figures = run_in_child(worlds, seeds, run_dir, processes)
                if mode not in results or figures["wall_s"] < results[mode]["wall_s"]:
                    results[mode], dirs[mode] = figures, run_dir
        out: dict = {"sweep": {"worlds": worlds, "families": FAMILIES, "seeds": seeds,
                               "models": ["random", "oracle"]},
                     "cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                     else os.cpu_count()}
        for mode, figures in results.items():
            out[mode] = {k: v for k, v in figures.items() if k != "scores"}
        if args.compare:
            t, p = results["threads"], results["processes"]
            out["speedup"] = round(p["jobs_per_s"] / t["jobs_per_s"], 2)
            out["differences"] = differences(dirs["threads"], dirs["processes"],
                                             t["scores"], p["scores"])
    finally:
        shutil.rmtree(root, ignore_errors=True)

    if args.json:
        print(json.dumps(out, indent=2))
    else:
        jobs = next(iter(results.values()))["jobs"]
        print(f"Local sweep: random and oracle on {len(worlds)} worlds x {len(FAMILIES)} "
              f"families x {len(seeds)} seeds ({jobs} jobs), {out['cpus']} CPUs")
        for mode in results:
            print(f"{mode}: {out[mode]['jobs']} jobs in {out[mode]['wall_s']:.2f} s")
            print(f"jobs/s ({mode}): {out[mode]['jobs_per_s']:.2f}")
        if args.compare:
            print(f"speed-up (processes over threads): {out['speedup']:.2f}x")
            if out["differences"]:
                print(f"DIFFERENT: {len(out['differences'])} differences, the first: "
                      f"{out['differences'][0]}")
            else:
                print("identical: scores and transcripts (times aside)")
    return 1 if args.compare and out["differences"] else 0


if __name__ == "__main__":
    sys.exit(main())
