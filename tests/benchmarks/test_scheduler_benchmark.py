"""The scheduler benchmark (benchmarks/scheduler.py) in its quick mode: it starts its fake
provider, runs its sweeps and prints every figure as a positive number that agrees with the
sweep it measured (calls over wall seconds, CPU over calls). The timings themselves are the
benchmark's business, not this test's."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "benchmarks" / "scheduler.py"
NUMBER = r"([0-9]+(?:\.[0-9]+)?)"


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    return env


def _figure(text: str, pattern: str) -> float:
    match = re.search(rf"^{pattern}$", text, re.MULTILINE)
    assert match, f"no line matching {pattern!r} in:\n{text}"
    value = float(match.group(1))
    assert value > 0, match.group(0)
    return value


def test_the_quick_scheduler_benchmark_prints_positive_consistent_figures():
    done = subprocess.run([sys.executable, str(SCRIPT), "--quick"], capture_output=True,
                          text=True, cwd=REPO, env=_env(), timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    for concurrency in (1, 64):
        sweep = re.search(rf"^sweep @ concurrency {concurrency}: {NUMBER} episodes, {NUMBER} "
                          rf"calls, {NUMBER} s wall, {NUMBER} s CPU, at most {NUMBER} episodes "
                          rf"in flight$", out, re.MULTILINE)
        assert sweep, out
        episodes, calls, wall, cpu, in_flight = map(float, sweep.groups())
        assert calls > episodes > 0 and wall > 0 and cpu > 0, sweep.group(0)
        assert 1 <= in_flight <= min(concurrency, episodes), sweep.group(0)
        rate = _figure(out, rf"calls/s @ concurrency {concurrency}: {NUMBER}")
        cpu_ms = _figure(out, rf"CPU ms/call @ concurrency {concurrency}: {NUMBER}")
        # the printed figures come from the sweep above (rounding aside), not from a constant
        assert abs(rate - calls / wall) <= 0.02 * rate + 0.1, (rate, calls, wall)
        assert abs(cpu_ms - cpu / calls * 1e3) <= 0.02 * cpu_ms + 0.1, (cpu_ms, cpu, calls)
    rss = _figure(out, rf"peak RSS [0-9]+ episodes: {NUMBER} MiB \(.*\)")
    assert 20 < rss < 8192, rss
