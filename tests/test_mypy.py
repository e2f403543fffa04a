"""mypy (pyproject.toml's ``[tool.mypy]``: default mode on ``llm_eval``, strict flags on the
adapters, transcripts, sweep, run store and calls, the Autumn interpreter exempt) finds nothing
in the checkout, as CI's type-check step (``.ci/run``) requires; and the project's configuration
does fail planted violations: an untyped function in a strict module, a plain type error in a
default-mode one, while the same code fixed passes. The step is a check that can fail, not one
that passes whatever it reads."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CONFIG = REPO / "pyproject.toml"


def _mypy(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(CONFIG),
                           "--no-error-summary", "--show-error-codes", *args],
                          cwd=cwd, capture_output=True, text=True, timeout=280)


def test_the_checkout_has_no_mypy_error():
    # mypy's own cache (.mypy_cache at the root), which CI's mypy step has just filled
    done = _mypy(cwd=REPO)
    assert done.returncode == 0, done.stdout + done.stderr


UNTYPED = "def double(x):\n    return x * 2\n"
TYPED = "def double(x: int) -> int:\n    return x * 2\n"
TYPE_ERROR = "def double(x: int) -> int:\n    return x + 'x'\n"

# planted modules, placed under the package's names so the configuration's per-module sections
# apply to them: (module, source, the error codes mypy must report in it, none for clean)
PLANTED = [
    # a strict module: an unannotated function is an error; the same function typed is not
    ("llm_eval.sweep.planted_untyped", UNTYPED, {"no-untyped-def"}),
    ("llm_eval.sweep.planted_typed", TYPED, set()),
    ("llm_eval.calls_planted", UNTYPED, set()),   # strictness is per module, not per prefix
    # a default-mode module: an unannotated function passes, a type error does not
    ("llm_eval.planted_untyped", UNTYPED, set()),
    ("llm_eval.planted_type_error", TYPE_ERROR, {"operator"}),
    ("llm_eval.planted_typed", TYPED, set()),
    # the exempt interpreter: the same type error is not reported
    ("llm_eval.autumn.planted_type_error", TYPE_ERROR, set()),
]


@pytest.fixture(scope="module")
def planted_findings(tmp_path_factory) -> dict[str, set[str]]:
    """The error codes mypy reports in each planted module, in one run over all of them."""
    root = tmp_path_factory.mktemp("planted")
    paths = []
    for module, source, _ in PLANTED:
        path = root.joinpath(*module.split(".")).with_suffix(".py")
        for package in [path.parent, *path.parent.parents]:
            if package == root:
                break
            package.mkdir(parents=True, exist_ok=True)
            (package / "__init__.py").touch()
        path.write_text(source, encoding="utf-8")
        paths.append(str(path.relative_to(root)))
    done = _mypy("--cache-dir", str(root / ".mypy_cache"), *paths, cwd=root)
    # exit 1 is "errors found" (2 would be mypy failing, e.g. on a configuration it cannot read)
    assert done.returncode == 1, done.stdout + done.stderr
    findings: dict[str, set[str]] = {module: set() for module, _, _ in PLANTED}
    for line in done.stdout.splitlines():
        found = re.match(r"^(.+?)\.py:\d+: error: .*\[([a-z-]+)\]$", line)
        if found:
            findings[found.group(1).replace("/", ".").replace("\\", ".")].add(found.group(2))
    return findings


@pytest.mark.parametrize("module,expected", [(m, e) for m, _, e in PLANTED],
                         ids=[m for m, _, _ in PLANTED])
def test_the_project_configuration_fails_a_planted_violation(planted_findings, module,
                                                             expected):
    assert planted_findings[module] == expected
