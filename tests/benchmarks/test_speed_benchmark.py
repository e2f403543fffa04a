"""benchmarks/speed.py prints issue 35's figures from real runs: here its quick parts, on one
world and one program (the suite and the test tiers take many minutes)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_the_speed_benchmark_measures_loads_and_the_interpreter():
    out = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "speed.py"), "--sections", "machine", "load",
         "states", "interpreter", "--worlds", "warehouse", "--state-worlds", "relay",
         "--programs", "life", "--quick", "--json"],
        capture_output=True, text=True, check=True, timeout=300).stdout
    result = json.loads(out)
    assert result["machine"]["cores"] >= 1
    load = result["first_load"]["warehouse"]
    # the code cache filled by the first process spares the second its compiling
    assert 0 < load["warm_cache"] < load["cold_cache"]
    # and a new world of the same program in that process reuses its generated code
    assert 0 < load["reload"] < load["warm_cache"]
    life = result["interpreter"]["life"]
    assert life["steps_per_s"] > 0 and life["reference"] == 90.0
    node = result["states"]["relay"]
    assert node["shared"] > 0 and node["copied"] > 0
    assert set(result) == {"machine", "first_load", "states", "interpreter", "load_after"}
