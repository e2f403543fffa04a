"""The task files and the change-detection programs travel with a non-editable install."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_a_non_editable_build_ships_the_tasks_and_change_programs(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("llm_eval", "adapters", "prompts", "transcripts"):
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, source / name, ignore=ignore)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    build = subprocess.run(
        [sys.executable, "-c", "from setuptools import setup; setup()", "-q", "build_py",
         "--build-lib", str(tmp_path / "lib")],
        cwd=source, capture_output=True, text=True, timeout=120)
    assert build.returncode == 0, build.stderr
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(tmp_path / "lib")
    probe = subprocess.run(
        [sys.executable, "-c",
         "import llm_eval, llm_eval.tasks as t\n"
         "from llm_eval.tasks.trajectory import changed_program_text\n"
         "tasks = t.all_tasks()\n"
         "print(llm_eval.__file__)\n"
         "print(len(tasks))\n"
         "print(sum('SpecialConditionTriggered' in changed_program_text(x.hidden.program)\n"
         "          for x in tasks if x.family == 'cd'))\n"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert probe.returncode == 0, probe.stderr
    location, count, programs = probe.stdout.split("\n")[:3]
    assert location.startswith(str(tmp_path / "lib"))
    from llm_eval.suites import load_suite
    from llm_eval.worlds import world_names

    assert int(count) == len(load_suite("v1").tasks) and int(programs) == len(world_names())
