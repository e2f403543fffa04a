"""The local-sweep benchmark (benchmarks/local_sweep.py) in its quick mode: it runs the same
sweep in threads and in worker processes, prints positive jobs/s for each that agree with the
jobs and seconds it printed, and finds the two runs identical. The speed-up itself is the
benchmark's business (it needs an idle machine), not this test's."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
NUMBER = r"([0-9]+(?:\.[0-9]+)?)"


def test_the_quick_local_sweep_benchmark_compares_threads_and_processes():
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])}
    done = subprocess.run([sys.executable, str(REPO / "benchmarks" / "local_sweep.py"),
                           "--quick", "--compare"], capture_output=True, text=True, cwd=REPO,
                          env=env, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    for mode in ("threads", "processes"):
        run = re.search(rf"^{mode}: {NUMBER} jobs in {NUMBER} s$", out, re.MULTILINE)
        rate = re.search(rf"^jobs/s \({mode}\): {NUMBER}$", out, re.MULTILINE)
        assert run and rate, out
        jobs, seconds = map(float, run.groups())
        assert jobs == 6 and seconds > 0
        # both figures are printed to two decimals: the seconds lie within 0.005 of the
        # printed ones (a relative error that grows as a quick run gets quicker), the rate
        # within 0.005 of its own
        low, high = jobs / (seconds + 0.005), jobs / max(seconds - 0.005, 1e-9)
        assert low - 0.005 <= float(rate.group(1)) <= high + 0.005, out
    assert re.search(rf"^speed-up \(processes over threads\): {NUMBER}x$", out, re.MULTILINE)
    assert "identical: scores and transcripts (times aside)" in out
