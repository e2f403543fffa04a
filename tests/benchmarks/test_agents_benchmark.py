"""The reference-agents benchmark (benchmarks/agents.py): its JSON rows, and ``--reuse``, which
takes rows measured earlier instead of playing those tasks again (a long measurement made world
by world and printed whole)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "benchmarks" / "agents.py"
SMALL = ["--world", "easel", "--family", "mfp", "--agents", "random", "oracle", "--seeds", "2"]


def _run(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          cwd=REPO, env=env, timeout=300)


def test_rows_measured_earlier_are_reused_not_played_again(tmp_path):
    first = _run(*SMALL, "--json")
    assert first.returncode == 0, first.stderr
    data = json.loads(first.stdout)
    (row,) = data["tasks"]
    assert row["task"] == "easel-mfp" and row["oracle"]["score"] == 1.0
    assert row["random"]["episodes"] == 2 and data["reused"] == 0
    saved = tmp_path / "rows.json"
    saved.write_text(first.stdout)

    again = _run(*SMALL, "--json", "--reuse", str(saved))
    assert again.returncode == 0, again.stderr
    reused = json.loads(again.stdout)
    assert reused["tasks"] == data["tasks"] and reused["reused"] == 1
    assert reused["families"] == data["families"]

    other_seeds = _run(*SMALL[:-1], "3", "--reuse", str(saved))
    assert other_seeds.returncode != 0
    assert f"--reuse {saved}: measured with --seeds 2, not 3" in other_seeds.stderr
