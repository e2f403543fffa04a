"""The cost of one call of the python tool's sandbox (``llm_eval.agent_tools.sandbox``).

Runs a trivial program (and, with ``--program``, any other) ``--calls`` times through
``run_python`` and prints the mean and the 95th percentile per call, as wall-clock time (what
an agent's turn waits) and as CPU time (the child's own, from ``wait4``, plus this process's
share: what the machine pays, steady under load where wall-clock time is not).

    python benchmarks/sandbox.py                  # 40 calls of print(1 + 1)
    python benchmarks/sandbox.py --calls 100 --program "import json, re; print(json.dumps([1]))"
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from llm_eval.agent_tools.sandbox import import_closure, run_python


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=40)
    parser.add_argument("--program", default="print(1 + 1)")
    args = parser.parse_args()
    start = time.perf_counter()
    import_closure()                  # once per process: not part of a call's cost
    print(f"first-use setup (allow-list closure, once per process): "
          f"{(time.perf_counter() - start) * 1000:.1f} ms")
    run_python(args.program)          # warm the page cache
    walls, cpus = [], []
    for _ in range(args.calls):
        before = os.times()
        t0 = time.perf_counter()
        result = run_python(args.program)
        walls.append(time.perf_counter() - t0)
        after = os.times()
        own = (after.user - before.user) + (after.system - before.system)
        cpus.append(result.cpu_seconds + own)
        if result.exit_code != 0:
            raise SystemExit(f"the program failed in the sandbox: {result}")
    load = os.getloadavg()[0]
    print(f"{args.calls} calls of {args.program!r} (load average {load:.2f} on "
          f"{os.cpu_count()} CPUs)")
    for name, values in (("wall-clock", walls), ("CPU", cpus)):
        print(f"  {name:10} mean {statistics.mean(values) * 1000:6.1f} ms   "
              f"p95 {percentile(values, 0.95) * 1000:6.1f} ms")


if __name__ == "__main__":
    main()
