"""The examples of the README and of the reference pages (tests/documented.py) show real
output: rerun each shown command and compare (the demo's run time aside)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from documented import page_lines
from tiers import slow

from llm_eval.transcripts import transcript_files

REPO = Path(__file__).resolve().parent.parent


def _examples(prefix: str) -> list[tuple[str, list[str]]]:
    """(command, expected output lines) for each ``$ <prefix>...`` line of a console block."""
    lines = page_lines()
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


def _run(command: str, cwd: Path = REPO) -> list[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    argv = [sys.executable, "-m", "llm_eval", *shlex.split(command)[1:]]
    done = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


EPISODES = _examples("llm-eval episode")
VALIDATIONS = _examples("llm-eval tasks validate")
REPLAYS = _examples("llm-eval replay")
DEMOS = _examples("llm-eval demo")
ON_THE_DEMO = _examples("llm-eval report llm-eval-demo") + _examples("llm-eval compare")
RUN_TIME = re.compile(r" in [0-9.]+ s$")
SIZE = re.compile(r"\([0-9.]+ MB\)$")


def test_the_readme_shows_these_examples():
    assert len(EPISODES) >= 2 and len(VALIDATIONS) >= 1 and len(REPLAYS) >= 1
    assert [command for command, _ in DEMOS] == ["llm-eval demo"]
    first_command = next(line for line in (REPO / "README.md").read_text().splitlines()
                         if line.startswith("pip install . && "))
    assert first_command.split(" && ", 1)[1] == "llm-eval demo"


def _tiered(command: str, expected: list[str]):
    """A full validation and the simulator's search take minutes: the slow tier's."""
    heavy = command.startswith("llm-eval tasks validate") or "--agent simulator" in command
    return pytest.param(command, expected, id=command, marks=(slow,) if heavy else ())


@pytest.mark.parametrize("command,expected",
                         [_tiered(c, e) for c, e in EPISODES + VALIDATIONS + REPLAYS])
def test_readme_worldtest_example_is_current(command, expected):
    assert _run(command) == expected


def test_the_readme_demo_output_is_current(tmp_path):
    """The main job, as a user runs it: in a fresh directory, writing ./llm-eval-demo."""
    ((command, expected),) = DEMOS
    shown = _run(command, cwd=tmp_path)
    assert [RUN_TIME.sub(" in _ s", line) for line in shown] == \
        [RUN_TIME.sub(" in _ s", line) for line in expected]
    assert (tmp_path / "llm-eval-demo" / "run.sqlite").is_file()
    assert len(transcript_files(tmp_path / "llm-eval-demo" / "transcripts")) == 111
    again = _run(command, cwd=tmp_path)   # the same directory again: nothing runs twice
    assert any(line.startswith("ran 0 jobs (111 already done) in ") for line in again)

    # the report and the comparison the README shows on the demo run
    assert len(ON_THE_DEMO) == 2
    for command, expected in ON_THE_DEMO:
        assert [SIZE.sub("(_ MB)", line) for line in _run(command, cwd=tmp_path)] == \
            [SIZE.sub("(_ MB)", line) for line in expected]
    from PIL import Image  # the README's plot is this one (bytes vary with matplotlib)

    with Image.open(REPO / "docs" / "images" / "demo-family-scores.png") as shown, \
            Image.open(tmp_path / "plots" / "mean-score-per-family-and.png") as made:
        assert shown.size == made.size and shown.format == made.format == "PNG"
