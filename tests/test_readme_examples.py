"""The README's WorldTest examples show real output: rerun each shown command and compare."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _examples(prefix: str) -> list[tuple[str, list[str]]]:
    """(command, expected output lines) for each ``$ <prefix>...`` line of a console block."""
    lines = (REPO / "README.md").read_text().splitlines()
    found = []
    for i, line in enumerate(lines):
        if not line.startswith(f"$ {prefix}"):
            continue
        expected = []
        for out in lines[i + 1:]:
            if out.startswith("```") or out.startswith("$ "):
                break
            expected.append(out)
        found.append((line[2:], expected))
    return found


def _run(command: str) -> list[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    argv = [sys.executable, "-m", "llm_eval", *shlex.split(command)[1:]]
    done = subprocess.run(argv, capture_output=True, text=True, cwd=REPO, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


EPISODES = _examples("llm-eval episode")
VALIDATIONS = _examples("llm-eval tasks validate")


def test_the_readme_shows_these_examples():
    assert len(EPISODES) >= 2 and len(VALIDATIONS) >= 1
    first_command = next(line for line in (REPO / "README.md").read_text().splitlines()
                         if line.startswith("pip install . && "))
    assert first_command.split(" && ", 1)[1].startswith("llm-eval episode ")


@pytest.mark.parametrize("command,expected", EPISODES + VALIDATIONS,
                         ids=[c for c, _ in EPISODES + VALIDATIONS])
def test_readme_worldtest_example_is_current(command, expected):
    assert _run(command) == expected
