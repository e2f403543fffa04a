"""Task validation and import speed: where ``llm-eval tasks validate`` and ``llm-eval tasks
import`` spend their time (issue 35).

    python benchmarks/validation.py                      # import, per-check times, one redraw
    python benchmarks/validation.py --suite              # + the whole suite (long: 8+ minutes)
    python benchmarks/validation.py --suite --rounds 3   # three times: each, the median
    python benchmarks/validation.py --suite --cache      # the suite through the report cache
    python benchmarks/validation.py --suite --per-check  # the suite's CPU by check and family
    python benchmarks/validation.py --lockstep           # the CD lock-step's steps, the loads
    python benchmarks/validation.py --tasks beehive-cd warehouse-planning
    python benchmarks/validation.py --json

Figures:
- ``import``: ``tasks import autumnbench`` of the public example (tests/fixtures/autumnbench,
  one world, three tasks), with validation (``--validate now``) and without (``later``);
- per check: the CPU seconds of each check of ``validate_task`` (full effort, the planning
  redraws excepted) on a few tasks (default: one of each family, the slowest of the core
  worlds in each);
- ``reachable_without_dice``: one redraw of the blind planner on moles-planning (v1);
- ``--suite``: wall time of the whole shipped suite (``--suite-name``, default v1) validated
  by ``validate_in_processes`` on ``--processes`` workers (default: every core), the planning
  redraws left out unless ``--redraws``; with ``--rounds N``, N times one after the other
  (each wall time and their median: the machine's speed drifts by a fifth within minutes, so
  one run says little); with ``--cache``, through the report cache
  (llm_eval/tasks/report_cache.py) in an empty temporary folder, then a second time (every
  report reused), then after deleting one world's entries (what an edit to it does); with
  ``--per-check``, instead of the wall time, the CPU seconds of every check of every task (the
  per-check figures above, for the whole suite, a task per unit of work over the processes),
  summed by check and by family, and the costliest tasks: where the suite's time goes;
- ``--lockstep``: the steps the CD lock-step runs of every CD task play (the original's and
  the modified program's; ``tasks/cd.py``) and in how many tasks the original is left out
  before the trigger, and the programs one task of each family loads (``LOAD_TASKS``) with
  the CPU of loading a world again in a process.

Times are CPU seconds of this process (``time.process_time``) except where it says wall; the
machine's load (``os.getloadavg``) is printed beside them, as other work shares the cores.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

FIXTURE = REPO_ROOT / "tests" / "fixtures" / "autumnbench"
DEFAULT_TASKS = ("beehive-cd", "beehive-planning", "wander-mfp")
CHECKS = ("check_seed", "check_witness_reaches_goal", "check_goal_differs",
          "check_random_planning", "check_trajectory", "check_mask_dynamic",
          "check_answer_unique", "check_options_distinct", "check_random_mfp",
          "check_mfp_dice", "check_modified_loads", "check_trigger", "check_condition_initial",
          "check_before_and_after", "check_cd_change_dice", "check_cd_condition_dice",
          "check_oracle")


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def import_times() -> dict:
    """Wall and CPU (children's user+sys) seconds of the import command, both ways."""
    out = {}
    for mode in ("now", "later"):
        with tempfile.TemporaryDirectory() as tmp:
            before = os.times()
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "llm_eval", "tasks", "import", "autumnbench",
                            str(FIXTURE), "--out", f"{tmp}/t", "--validate", mode],
                           check=True, capture_output=True, cwd=REPO_ROOT)
            wall = time.perf_counter() - start
            after = os.times()
            cpu = (after.children_user - before.children_user
                   + after.children_system - before.children_system)
            out[mode] = {"wall": round(wall, 2), "cpu": round(cpu, 2)}
    return out


def check_times(task_ids, suite: str) -> dict:
    """CPU seconds of each check of each task (full effort, no planning redraws)."""
    from llm_eval.tasks import validate as V
    from llm_eval.tasks.store import load_task

    spent: dict[str, float] = {}
    real = {name: getattr(V, name) for name in CHECKS}

    def timed(name, fn):
        def wrapper(*args):
            start = time.process_time()
            try:
                return fn(*args)
            finally:
                spent[name] = spent.get(name, 0.0) + time.process_time() - start
        return wrapper

    effort = dataclasses.replace(V.FULL, plan_redraws=0)
    out = {}
    try:
        for name, fn in real.items():
            setattr(V, name, timed(name, fn))
        for tid in task_ids:
            world, _, family = tid.rpartition("-")
            task = load_task(world, family, suite)
            spent.clear()
            start = time.process_time()
            V.validate_task(task, effort)
            total = time.process_time() - start
            out[tid] = {"total": round(total, 2),
                        "checks": {k: round(v, 2) for k, v in
                                   sorted(spent.items(), key=lambda kv: -kv[1]) if v >= 0.01}}
    finally:
        for name, fn in real.items():
            setattr(V, name, fn)
    return out


def redraw_time(suite: str) -> dict:
    from llm_eval.tasks import dice
    from llm_eval.tasks.store import load_task

    task = load_task("moles", "planning", suite)
    state = dice.draw_states(dice.stream_seed(task.id, "planning"), 1)[0]
    start = time.process_time()
    reached, step, searches = dice.blind_plan_succeeds(task, state)
    return {"task": task.id, "cpu": round(time.process_time() - start, 2),
            "reached": reached, "step": step, "searches": searches}


def suite_time(suite: str, processes: int, redraws: bool, cache: bool = False,
               rounds: int = 1) -> dict:
    """The suite's wall time (``rounds`` times one after the other: each round's, and their
    median as ``wall``, as the machine's speed drifts; the reports must be the same each
    round); with ``cache``, through ``report_cache.validate_kept`` into an empty temporary
    folder (cold), then again (every report reused), then once more after deleting the
    entries of ``EDITED`` (what an edit to its program or task files does)."""
    from llm_eval.tasks.store import all_tasks
    from llm_eval.tasks.validate import FULL, validate_in_processes

    effort = FULL if redraws else dataclasses.replace(FULL, plan_redraws=0)
    tasks = all_tasks(suite=suite)
    if not cache:
        walls, seen = [], []
        for _ in range(rounds):
            start = time.perf_counter()
            reports = list(validate_in_processes(tasks, effort, processes))
            walls.append(round(time.perf_counter() - start, 1))
            seen.append([r.to_dict() for r in reports])
        return {"suite": suite, "tasks": len(reports), "processes": processes,
                "planning_redraws": effort.plan_redraws,
                "wall": statistics.median(walls), "rounds": walls,
                "same_reports": all(r == seen[0] for r in seen),
                "passed": sum(r.passed for r in reports)}
    from llm_eval.tasks import report_cache

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)

        def run() -> tuple[float, list, int]:
            start = time.perf_counter()
            out = list(report_cache.validate_kept(tasks, effort, processes, folder=folder))
            return (round(time.perf_counter() - start, 1), [r.to_dict() for r, _, _ in out],
                    sum(reused for _, reused, _ in out))

        cold, reports, _ = run()
        warm, again, reused = run()
        for task in tasks:
            if task.world == EDITED:
                (folder / f"{report_cache.task_key(task, effort)}.json").unlink()
        edited, after_edit, reused_edited = run()
    return {"suite": suite, "tasks": len(reports), "processes": processes,
            "planning_redraws": effort.plan_redraws, "wall": cold,
            "passed": sum(r["passed"] for r in reports),
            "cache": {"warm_wall": warm, "warm_reused": reused, "edited_world": EDITED,
                      "edited_wall": edited, "edited_reused": reused_edited,
                      "same_reports": reports == again == after_edit}}


def _checks_of(args: tuple[str, str]) -> dict:
    """``check_times`` of one task in a worker process (the collector tuned as ours run)."""
    from llm_eval import gcpolicy

    gcpolicy.tune()
    return check_times([args[0]], args[1])


def suite_checks(suite: str, processes: int) -> dict:
    """Every check's CPU seconds on every task of ``suite`` (full effort, no planning redraws),
    summed by check and by family, with the ten costliest tasks."""
    from llm_eval.parallel import map_in_order
    from llm_eval.tasks.store import all_tasks

    ids = [t.id for t in all_tasks(suite=suite)]
    start = time.perf_counter()
    per_task: dict = {}
    for part in map_in_order(_checks_of, [(i, suite) for i in ids], processes):
        per_task.update(part)
    by_check: dict[str, float] = {}
    by_family: dict[str, float] = {}
    for tid, t in per_task.items():
        family = tid.rpartition("-")[2]
        by_family[family] = by_family.get(family, 0.0) + t["total"]
        for name, cpu in t["checks"].items():
            by_check[name] = by_check.get(name, 0.0) + cpu

    def ranked(d: dict) -> dict:
        return {k: round(v, 1) for k, v in sorted(d.items(), key=lambda kv: -kv[1])}

    costliest = sorted(per_task.items(), key=lambda kv: -kv[1]["total"])[:10]
    return {"suite": suite, "tasks": len(per_task), "processes": processes,
            "wall": round(time.perf_counter() - start, 1),
            "cpu": round(sum(t["total"] for t in per_task.values()), 1),
            "by_family": ranked(by_family), "by_check": ranked(by_check),
            "costliest": dict(costliest)}


def _lockstep_of(args: tuple[str, str]) -> dict:
    """The CD lock-step runs of one task (``check_before_and_after``, full effort): steps of
    the original and of the modified program, and whether its original was left lazy."""
    from llm_eval import gcpolicy
    from llm_eval.tasks import cd
    from llm_eval.tasks import validate as V
    from llm_eval.tasks.store import load_task
    from llm_eval.worlds import World

    gcpolicy.tune()
    world, _, family = args[0].rpartition("-")
    task = load_task(world, family, args[1])
    steps = {"original": 0, "modified": 0}
    lockstep = {}
    real_step, real_init = World.step, cd.LockStep.__init__

    def counted(self, action):
        steps["modified" if self.name.endswith("(changed)") else "original"] += 1
        return real_step(self, action)

    def kept(self, *a, **k):
        real_init(self, *a, **k)
        lockstep["it"] = self

    World.step, cd.LockStep.__init__ = counted, kept
    try:
        V.check_before_and_after(task, V.FULL)
    finally:
        World.step, cd.LockStep.__init__ = real_step, real_init
    return {**steps, "lazy": lockstep["it"].lazy}


def lockstep_steps(suite: str, processes: int) -> dict:
    """``_lockstep_of`` summed over the CD tasks of ``suite``."""
    from llm_eval.parallel import map_in_order
    from llm_eval.tasks.store import all_tasks

    ids = [t.id for t in all_tasks(suite=suite) if t.family == "cd"]
    out = {"tasks": len(ids), "original": 0, "modified": 0, "lazy": 0}
    for part in map_in_order(_lockstep_of, [(i, suite) for i in ids], processes):
        for key in ("original", "modified", "lazy"):
            out[key] += part[key]
    return out


def loads(task_ids, suite: str) -> dict:
    """Programs loaded by one task's validation (full effort, no planning redraws), and the
    CPU milliseconds of loading a world again in a process (``make``)."""
    from llm_eval.autumn.interpreter import Interpreter
    from llm_eval.tasks import validate as V
    from llm_eval.tasks.store import load_task
    from llm_eval.tasks.trajectory import make

    count = [0]
    real = Interpreter.run_script

    def counted(self, *a, **k):
        count[0] += 1
        return real(self, *a, **k)

    out: dict = {}
    Interpreter.run_script = counted
    try:
        for tid in task_ids:
            world, _, family = tid.rpartition("-")
            count[0] = 0
            V.validate_task(load_task(world, family, suite),
                            dataclasses.replace(V.FULL, plan_redraws=0))
            out[tid] = count[0]
    finally:
        Interpreter.run_script = real
    make("wildfire", 1)
    start = time.process_time()
    for _ in range(50):
        make("wildfire", 1)
    return {"per_task": out, "make_ms": round((time.process_time() - start) / 50 * 1000, 2)}


LOAD_TASKS = ("wildfire-cd", "wildfire-mfp", "wildfire-planning")
# the world whose entries the cache figure deletes: the costliest to validate (suite v1)
EDITED = "wildfire"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", nargs="+", default=list(DEFAULT_TASKS), metavar="ID")
    parser.add_argument("--suite", action="store_true", help="also validate the whole suite")
    parser.add_argument("--suite-name", default="v1", help="the suite (default v1)")
    parser.add_argument("--processes", type=int, default=None)
    parser.add_argument("--redraws", action="store_true",
                        help="with --suite: the planning redraws too (hours of CPU)")
    parser.add_argument("--rounds", type=int, default=1, metavar="N",
                        help="--suite: validate it N times, one after the other (each wall "
                             "time and the median)")
    parser.add_argument("--cache", action="store_true",
                        help="with --suite: through the report cache (cold, then every report "
                        "reused, then one world edited)")
    parser.add_argument("--per-check", action="store_true",
                        help="with --suite: every check's CPU on every task, summed by check "
                        "and by family (instead of the wall time)")
    parser.add_argument("--lockstep", action="store_true",
                        help="the steps of the CD lock-step runs over the suite (original / "
                        "modified program), and the programs one task's validation loads")
    parser.add_argument("--collector", choices=("ours", "python"), default="ours",
                        help="the garbage collector's thresholds: llm_eval's (gcpolicy, as the "
                        "command line runs) or Python's defaults, for a before/after")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1, got {args.rounds}")
    if args.rounds > 1 and (not args.suite or args.cache or args.per_check):
        parser.error("--rounds times the plain --suite (not with --cache or --per-check)")

    from llm_eval import gcpolicy
    from llm_eval.parallel import default_processes

    os.environ[gcpolicy.ENV] = args.collector   # read here and by the worker processes
    gcpolicy.tune()

    result = {"cores": os.cpu_count(), "load_before": _load(),
              "collector": list(gc.get_threshold()),
              "import": import_times(),
              "checks": check_times(args.tasks, args.suite_name),
              "redraw": redraw_time(args.suite_name)}
    if args.suite and args.per_check:
        result["suite_checks"] = suite_checks(args.suite_name,
                                              args.processes or default_processes())
    elif args.suite:
        result["suite"] = suite_time(args.suite_name, args.processes or default_processes(),
                                     args.redraws, args.cache, args.rounds)
    if args.lockstep:
        result["lockstep"] = lockstep_steps(args.suite_name,
                                            args.processes or default_processes())
        result["loads"] = loads(LOAD_TASKS, args.suite_name)
    result["load_after"] = _load()
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    print(f"{result['cores']} cores; load {result['load_before']} before, "
          f"{result['load_after']} after; collector thresholds {result['collector']}")
    for mode, t in result["import"].items():
        print(f"import of the public example, --validate {mode}: {t['wall']} s wall, "
              f"{t['cpu']} s cpu")
    for tid, t in result["checks"].items():
        parts = ", ".join(f"{k.removeprefix('check_')} {v}" for k, v in t["checks"].items())
        print(f"{tid}: {t['total']} s cpu ({parts})")
    r = result["redraw"]
    print(f"reachable_without_dice, one redraw of {r['task']}: {r['cpu']} s cpu "
          f"(reached {r['reached']} at step {r['step']}, {r['searches']} searches)")
    if "suite_checks" in result:
        s = result["suite_checks"]
        print(f"suite {s['suite']}, every check of its {s['tasks']} tasks: {s['cpu']} s cpu "
              f"({s['wall']} s wall on {s['processes']} processes)")
        for title, key in (("by family", "by_family"), ("by check", "by_check")):
            print(f"  {title}: " + ", ".join(f"{k.removeprefix('check_')} {v}"
                                             for k, v in s[key].items() if v >= 0.1))
        for tid, t in s["costliest"].items():
            parts = ", ".join(f"{k.removeprefix('check_')} {v}"
                              for k, v in list(t["checks"].items())[:3])
            print(f"  {tid}: {t['total']} s cpu ({parts})")
    if "lockstep" in result:
        s = result["lockstep"]
        print(f"CD lock-step runs of suite {args.suite_name}'s {s['tasks']} CD tasks: "
              f"{s['original']:,} steps of the original, {s['modified']:,} of the modified "
              f"program; the original left lazy in {s['lazy']} tasks")
        ld = result["loads"]
        print("programs loaded by one task's validation: " + ", ".join(
            f"{t} {n}" for t, n in ld["per_task"].items())
            + f"; loading wildfire again in a process: {ld['make_ms']} ms cpu")
    if "suite" in result:
        s = result["suite"]
        print(f"suite {s['suite']}: {s['tasks']} tasks validated in {s['wall']} s wall on "
              f"{s['processes']} processes (planning redraws {s['planning_redraws']}; "
              f"{s['passed']} pass)")
        if len(s.get("rounds", ())) > 1:
            walls = ", ".join(map(str, s["rounds"]))
            print(f"  (the median of {len(s['rounds'])} rounds: {walls} s wall, best "
                  f"{min(s['rounds'])} s; the same reports each round: {s['same_reports']})")
        if "cache" in s:
            c = s["cache"]
            print(f"the same again through the report cache: {c['warm_wall']} s wall "
                  f"({c['warm_reused']} reports reused); after an edit to {c['edited_world']} "
                  f"(its entries deleted): {c['edited_wall']} s wall ({c['edited_reused']} "
                  f"reused); the same reports each time: {c['same_reports']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
