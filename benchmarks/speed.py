"""Every speed figure of issue 35 in one command: the machine, a new process's first world
load (with the code cache cold and warm), one node of the oracle's search with restores that
share or copy the saved values, the interpreter on the slowest programs, task import and
validation, and (asked for, as they take many minutes) the whole suite's validation and the
test tiers.

    python benchmarks/speed.py                    # machine, loads, saved states, interpreter,
                                                  # import and checks
    python benchmarks/speed.py --suite            # + the whole of suite v1 validated (minutes),
                                                  #   cold and again through the report cache
    python benchmarks/speed.py --tests            # + the README's test command and CI's slow share
    python benchmarks/speed.py --sections load interpreter --json

Each part runs in processes of its own (the other benchmarks of this folder, or the command
itself), so that none inherits another's heap; times are CPU seconds where the part says cpu
(children included) and wall-clock seconds where it says wall; the machine's load average is
printed beside them, as other work shares the cores.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
SECTIONS = ("machine", "load", "states", "interpreter", "validation")
SLOWEST = ("life", "liquid", "sand")       # the slowest programs of benchmarks/programs/
LOAD_WORLDS = ("sandbox", "warehouse", "wildfire")
STATE_WORLDS = ("mirrors", "relay", "conveyor", "beehive")   # the slowest planning checks

# One node of the oracle's search, as search.py does it: go back to a saved state, try an
# action, fingerprint the result, save it. "shared" is the interpreter's restore (the running
# state shares the saved values, state.py); "copied" restores and saves with full copies, as
# every restore did before (state.restore without share, and no sharing left for the save).
_STATES_SCRIPT = """
import json, random, sys, time
from llm_eval import gcpolicy
gcpolicy.tune()
from llm_eval.autumn import state
from llm_eval.worlds import make_world
world = make_world(sys.argv[1]); world.reset()
rng = random.Random(1)
for _ in range(20):
    world.step(rng.choice(["left", "right", "up", "down", "noop"]))
it = world.interpreter
saved = it.snapshot()

def shared():
    it.restore(saved); it.step(); it.render_frame(); it.state_key(); it.snapshot()

def copied():
    state.restore(it, saved); it._shared = None
    it.step(); it.render_frame(); it.state_key(); it.snapshot()

def best(fn, n=200):
    times = []
    for _ in range(3):
        start = time.process_time()
        for _ in range(n):
            fn()
        times.append((time.process_time() - start) / n * 1000)
    return round(min(times), 3)

print(json.dumps({"copied": best(copied), "shared": best(shared)}))
"""

_LOAD_SCRIPT = """
import json, sys, time
start = time.process_time()
from llm_eval.worlds import make_world
imported = time.process_time()
world = make_world(sys.argv[1]); world.reset()
loaded = time.process_time()
for _ in range(10):          # new worlds of the same program: what each episode, task check or
    make_world(sys.argv[1]).reset()     # test of a long-lived process pays
print(json.dumps({"import": imported - start, "first_load": loaded - imported,
                  "reload": (time.process_time() - loaded) / 10}))
"""


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(args: list[str], env: dict | None = None, timeout: float = 7200) -> tuple[str, float,
                                                                                    float]:
    """stdout, wall seconds and CPU seconds (the child's and its children's) of a command."""
    cpu, wall = _children_cpu(), time.perf_counter()
    out = subprocess.run(args, cwd=REPO_ROOT, env=env, capture_output=True, text=True,
                         timeout=timeout)
    if out.returncode not in (0, 1):    # pytest exits 1 on a failed test: still timed
        raise SystemExit(f"{' '.join(args)} exited {out.returncode}:\n{out.stderr[-2000:]}")
    return out.stdout, round(time.perf_counter() - wall, 1), round(_children_cpu() - cpu, 1)


def machine() -> dict:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cores": os.cpu_count(), "cpu": model or platform.processor(),
            "python": platform.python_version(), "load": os.getloadavg()}


def first_loads(worlds: tuple[str, ...]) -> dict:
    """A new process's import of the worlds and first load of one, with the code cache empty
    (a folder of its own) and then filled by that run; and the mean of ten more new worlds of
    the same program in that process (a reload: the generated code is kept)."""
    out: dict = {}
    for world in worlds:
        with tempfile.TemporaryDirectory() as cache:
            env = {**os.environ, "LLM_EVAL_CODE_CACHE": cache}
            runs = [json.loads(_run([sys.executable, "-c", _LOAD_SCRIPT, world], env)[0])
                    for _ in range(2)]
        out[world] = {"cold_cache": round(runs[0]["first_load"], 3),
                      "warm_cache": round(runs[1]["first_load"], 3),
                      "import": round(runs[1]["import"], 3),
                      "reload": round(runs[1]["reload"], 4)}
    return out


def states(worlds: tuple[str, ...]) -> dict:
    """CPU milliseconds of one search node (restore, a tick and its frame, state_key, save)
    in each world, with restores that share the saved values and with full copies."""
    return {world: json.loads(_run([sys.executable, "-c", _STATES_SCRIPT, world])[0])
            for world in worlds}


def interpreter(only: tuple[str, ...], quick: tuple[str, ...] = ()) -> dict:
    args = [sys.executable, str(HERE / "interpreter.py"), "--json", "--section", "programs",
            *quick]
    for name in only:
        args += ["--only", name]
    data = json.loads(_run(args)[0])
    rows = data["results"]
    return {r["program"]: {"steps_per_s": round(r["steps_per_s"], 1),
                           "reference": r.get("reference_steps_per_s")} for r in rows}


def validation(suite: bool, tasks: list[str] | None) -> dict:
    args = [sys.executable, str(HERE / "validation.py"), "--json"]
    if tasks:
        args += ["--tasks", *tasks]
    if suite:
        args += ["--suite", "--cache"]   # cold (through an empty report cache), then reused
    return json.loads(_run(args)[0])


def tests() -> dict:
    """The README's test command and CI's slow share, as ``.ci/run`` runs them."""
    out = {}
    for name, extra in (("default tier", []),
                        ("slow tier (CI's share)", ["-m", "slow and not exhaustive",
                                                    "--dist", "loadgroup"])):
        stdout, wall, cpu = _run([sys.executable, "-m", "pytest", "-q", *extra])
        summary = next((line for line in reversed(stdout.splitlines()) if " in " in line), "")
        out[name] = {"wall": wall, "cpu": cpu, "summary": summary.strip("= ")}
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sections", nargs="+", choices=SECTIONS, default=list(SECTIONS))
    parser.add_argument("--suite", action="store_true", help="validate the whole of suite v1")
    parser.add_argument("--tests", action="store_true", help="time the test tiers")
    parser.add_argument("--programs", nargs="+", default=list(SLOWEST), metavar="NAME",
                        help="interpreter programs (default: the slowest three)")
    parser.add_argument("--worlds", nargs="+", default=list(LOAD_WORLDS), metavar="WORLD",
                        help="worlds whose first load is timed")
    parser.add_argument("--state-worlds", nargs="+", default=list(STATE_WORLDS),
                        metavar="WORLD", help="worlds whose search node is timed")
    parser.add_argument("--tasks", nargs="+", metavar="ID",
                        help="tasks whose checks are timed (benchmarks/validation.py's default)")
    parser.add_argument("--quick", action="store_true",
                        help="the interpreter on 100 actions, one run (a check that it works)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    result: dict = {}
    if "machine" in args.sections:
        result["machine"] = machine()
    if "load" in args.sections:
        result["first_load"] = first_loads(tuple(args.worlds))
    if "states" in args.sections:
        result["states"] = states(tuple(args.state_worlds))
    if "interpreter" in args.sections:
        quick = ("--steps", "100", "--repeat", "1") if args.quick else ()
        result["interpreter"] = interpreter(tuple(args.programs), quick)
    if "validation" in args.sections or args.suite:
        result["validation"] = validation(args.suite, args.tasks)
    if args.tests:
        result["tests"] = tests()
    result["load_after"] = os.getloadavg()
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    if "machine" in result:
        m = result["machine"]
        print(f"machine: {m['cores']} cores ({m['cpu']}), Python {m['python']}, load "
              f"{' '.join(f'{x:.2f}' for x in m['load'])}")
    for world, t in result.get("first_load", {}).items():
        print(f"first load of {world} in a new process: {t['cold_cache']} s cpu with the code "
              f"cache empty, {t['warm_cache']} s with it filled (import {t['import']} s); "
              f"each new world of it after that: {t['reload']} s")
    for world, t in result.get("states", {}).items():
        print(f"one search node in {world} (restore, tick, frame, state_key, save): "
              f"{t['shared']} ms cpu sharing the saved values, {t['copied']} ms copying them "
              f"({t['copied'] / t['shared']:.1f}x)")
    for name, t in result.get("interpreter", {}).items():
        ref = t["reference"]
        vs = f" ({t['steps_per_s'] / ref:.1f}x the quoted reference, {ref:g})" if ref else ""
        print(f"interpreter {name}: {t['steps_per_s']} steps/s{vs}")
    v = result.get("validation")
    if v:
        for mode, t in v["import"].items():
            print(f"import of the public example, --validate {mode}: {t['wall']} s wall, "
                  f"{t['cpu']} s cpu")
        for tid, t in v["checks"].items():
            print(f"validation of {tid}: {t['total']} s cpu")
        r = v["redraw"]
        print(f"one planning redraw of {r['task']}: {r['cpu']} s cpu")
        if "suite" in v:
            s = v["suite"]
            print(f"suite {s['suite']} ({s['tasks']} tasks, planning redraws "
                  f"{s['planning_redraws']}): {s['wall']} s wall on {s['processes']} "
                  "processes")
            c = s["cache"]
            print(f"the same again through the report cache: {c['warm_wall']} s wall "
                  f"({c['warm_reused']} reused); after an edit to {c['edited_world']}: "
                  f"{c['edited_wall']} s wall ({c['edited_reused']} reused); the same "
                  f"reports: {c['same_reports']}")
    for name, t in result.get("tests", {}).items():
        print(f"{name}: {t['wall']} s wall, {t['cpu']} s cpu ({t['summary']})")
    print(f"load after: {' '.join(f'{x:.2f}' for x in result['load_after'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
