"""ruff (pyproject.toml's ``[tool.ruff]``: pyflakes, import order, bugbear) finds nothing in the
checkout, as CI's lint step (``.ci/run``) requires, and the project's configuration does fail a
file with a planted unused import, unsorted imports or a ``raise`` in an ``except`` without
``from``: the step is a check that can fail, not one that passes whatever it reads."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _ruff() -> list[str]:
    """The test environment's ruff (the test extra installs it), else one on PATH."""
    if importlib.util.find_spec("ruff") is not None:
        return [sys.executable, "-m", "ruff"]
    found = shutil.which("ruff")
    if found is None:
        pytest.skip("the ruff executable is not installed (pip install -e '.[test]')")
    return [found]


def _check(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*_ruff(), "check", "--no-cache", "--output-format", "concise", *args],
                          cwd=REPO, capture_output=True, text=True, timeout=120)


def test_the_checkout_has_no_ruff_finding():
    done = _check(".")
    assert done.returncode == 0, done.stdout + done.stderr


# each planted file next to the same code fixed: only the planted violation is flagged
PLANTED = {
    "F401": ("import os\n\nVALUE = 1\n",
             "VALUE = 1\n"),
    "I001": ("import sys\nimport os\n\nPATHS = (os.sep, sys.path)\n",
             "import os\nimport sys\n\nPATHS = (os.sep, sys.path)\n"),
    "B904": ("def number(text):\n"
             "    try:\n"
             "        return int(text)\n"
             "    except ValueError:\n"
             "        raise RuntimeError(f'not a number: {text!r}')\n",
             "def number(text):\n"
             "    try:\n"
             "        return int(text)\n"
             "    except ValueError:\n"
             "        raise RuntimeError(f'not a number: {text!r}') from None\n"),
}


@pytest.mark.parametrize("rule", sorted(PLANTED))
def test_the_project_configuration_fails_a_planted_violation(tmp_path, rule):
    bad, fixed = PLANTED[rule]
    (tmp_path / "planted.py").write_text(bad, encoding="utf-8")
    (tmp_path / "fixed.py").write_text(fixed, encoding="utf-8")
    config = str(REPO / "pyproject.toml")

    done = _check("--config", config, str(tmp_path / "planted.py"))
    # exit 1 is "findings" (2 would be ruff failing, e.g. on a configuration it cannot read)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "planted.py:" in done.stdout and f" {rule} " in done.stdout, done.stdout

    done = _check("--config", config, str(tmp_path / "fixed.py"))
    assert done.returncode == 0, done.stdout + done.stderr
