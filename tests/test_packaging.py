"""One import package (issue 31, item 5): only ``llm_eval`` is installed at top level.

The root folders ``adapters/``, ``prompts/`` and ``transcripts/`` stay where users know them and
install as ``llm_eval.adapters``, ``llm_eval.prompts`` and ``llm_eval.recordings`` (recorded
transcripts; ``llm_eval.transcripts`` is the transcript writer). Three kinds of check:

- fast, on ``pyproject.toml``: the package list is the tree's, every name under ``llm_eval``;
- fast, on the source: no module imports a top-level ``adapters``, ``prompts`` or
  ``transcripts`` (deferred imports included) or loads their resources by that name; with the
  repository root on ``sys.path`` such an import would still work, as a second copy of the
  module, so only this test finds it;
- slow, on real installs: the built wheel holds no other top-level name, and a non-editable and
  an editable install both import the three moved packages and not the old names.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from tiers import slow

ROOT = Path(__file__).resolve().parent.parent
MOVED = {"adapters": "llm_eval.adapters", "prompts": "llm_eval.prompts",
         "transcripts": "llm_eval.recordings"}
SOURCE_DIRS = ("llm_eval", "adapters", "prompts", "transcripts", "tests", "benchmarks",
               "examples")
# resources and modules loaded by name: importlib.resources.files("x"), import_module("x")
LOADERS = {"files", "import_module", "find_spec", "setattr"}


def _config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "setuptools"]


def tree_packages() -> set[str]:
    """Every folder with an ``__init__.py`` under ``llm_eval/``, plus the three moved ones."""
    found = {".".join(p.parent.relative_to(ROOT).parts)
             for p in (ROOT / "llm_eval").rglob("__init__.py")
             if "__pycache__" not in p.parts}
    for folder, name in MOVED.items():
        found |= {name + "".join("." + part for part in p.parent.relative_to(ROOT / folder).parts)
                  for p in (ROOT / folder).rglob("__init__.py")}
    return found


def test_the_packages_are_the_trees_and_all_under_llm_eval():
    config = _config()
    listed = set(config["packages"])
    assert all(name == "llm_eval" or name.startswith("llm_eval.") for name in listed), listed
    assert config["package-dir"] == {name: folder for folder, name in MOVED.items()}
    missing, extra = tree_packages() - listed, listed - tree_packages()
    assert not missing, f"add to [tool.setuptools] packages in pyproject.toml: {sorted(missing)}"
    assert not extra, f"listed in pyproject.toml but not in the tree: {sorted(extra)}"
    data = config["package-data"]
    assert not set(data) - listed, "package-data for a package that is not installed"
    assert {"llm_eval.prompts", "llm_eval.recordings"} <= set(data)


def old_name_uses(source: str, path: str = "<source>") -> list[str]:
    """Where ``source`` imports a moved package by its old top-level name, or loads it by that
    name as a string (``resources.files("prompts")``, ``monkeypatch.setattr("adapters.x.y")``)."""
    found = []
    for node in ast.walk(ast.parse(source, path)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            first = node.args[0]
            if (called in LOADERS and isinstance(first, ast.Constant)
                    and isinstance(first.value, str)):
                names = [first.value]
        for name in names:
            top = name.split(".")[0]
            if top in MOVED:
                found.append(f"{path}:{node.lineno}: {name!r} is now "
                             f"{MOVED[top] + name[len(top):]!r}")
    return found


# files that cannot use an old name are not parsed (parsing every file takes seconds)
MAYBE = re.compile(r"(?:import|from)\s+(?:adapters|prompts|transcripts)\b"
                   r"|[\"'](?:adapters|prompts|transcripts)\."
                   r"|\(\s*[\"'](?:adapters|prompts|transcripts)[\"']")


def test_no_module_uses_the_old_top_level_names():
    problems = []
    for top in SOURCE_DIRS:
        for path in sorted((ROOT / top).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            text = path.read_text(encoding="utf-8")
            if MAYBE.search(text):
                problems += old_name_uses(text, path.relative_to(ROOT).as_posix())
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("source", [
    "from adapters import create_adapter",
    "import adapters.openai_chat as oc",
    "def later():\n    from prompts import x\n",
    "from transcripts.recorder import y",
    "root = resources.files('prompts')",
    "monkeypatch.setattr('adapters.classify.time', 1)",
])
def test_an_old_name_is_found(source):
    assert MAYBE.search(source), "the prefilter would skip this file"
    assert old_name_uses(source, "crafted.py")


@pytest.mark.parametrize("source", [
    "from llm_eval.adapters import create_adapter",
    "from . import types",
    "from llm_eval.transcripts import recorder",
    "root = resources.files('llm_eval.prompts')",
    "folder = run_dir / 'transcripts'",
])
def test_new_names_and_relative_imports_pass(source):
    assert old_name_uses(source, "crafted.py") == []


# -- real installs (slow: each builds the project) ------------------------------------------

# run in a fresh interpreter whose working directory is not the repository, so that only the
# installed copy can answer
PROBE = """
import importlib.util, json
from importlib import resources
import llm_eval, llm_eval.adapters, llm_eval.prompts, llm_eval.recordings
print(json.dumps({
    "llm_eval": llm_eval.__file__,
    "old": [n for n in ("adapters", "prompts", "transcripts") if importlib.util.find_spec(n)],
    "prompts": sorted(p.name for p in resources.files("llm_eval.prompts").iterdir()
                      if p.name != "__pycache__"),
    "recordings": sorted(p.name for p in resources.files("llm_eval.recordings").iterdir()
                         if p.name.endswith(".jsonl")),
}))
"""


def _copy_source(dest: Path) -> Path:
    """The files a build reads, copied, so that a build writes nothing into the repository."""
    dest.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("llm_eval", "adapters", "prompts", "transcripts"):
        shutil.copytree(ROOT / name, dest / name, ignore=ignore)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, dest / name)
    return dest


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def _pip(*args: str, cwd: Path, python: str = sys.executable) -> None:
    # run away from any source tree: an llm_eval.egg-info on sys.path reads as "installed"
    # built with this environment's setuptools (the test extra asks for one that builds wheels
    # itself): the tests stay offline, no build requirement is fetched
    done = subprocess.run([sys.executable, "-m", "pip", "--python", python, *args,
                           "--no-build-isolation",
                           "--no-deps", "--quiet", "--disable-pip-version-check"],
                          cwd=cwd, env=_clean_env(), capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr


def _fresh_venv(path: Path) -> str:
    """A virtual environment with nothing installed, so that only our install can answer."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True,
                   timeout=120)
    return str(path / "bin" / "python")


def _probe(python: str, cwd: Path) -> dict:
    import json

    done = subprocess.run([python, "-c", PROBE], cwd=cwd, env=_clean_env(), capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _expected_data() -> tuple[list[str], list[str]]:
    prompts = sorted(p.name for p in (ROOT / "prompts").iterdir() if p.name != "__pycache__")
    recordings = sorted(p.name for p in (ROOT / "transcripts").glob("*.jsonl"))
    return prompts, recordings


@slow
def test_the_wheel_installs_only_llm_eval(tmp_path):
    source = _copy_source(tmp_path / "src")
    _pip("wheel", str(source), "--wheel-dir", str(tmp_path / "dist"), cwd=tmp_path)
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        top_level = next(n for n in names if n.endswith(".dist-info/top_level.txt"))
        assert archive.read(top_level).decode().split() == ["llm_eval"]
    assert {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")} \
        == {"llm_eval"}
    for moved in MOVED.values():
        assert any(n.startswith(moved.replace(".", "/") + "/") for n in names), moved

    python = _fresh_venv(tmp_path / "venv")
    _pip("install", str(wheel), cwd=tmp_path, python=python)
    seen = _probe(python, tmp_path)
    assert seen["llm_eval"].startswith(str(tmp_path / "venv"))
    assert seen["old"] == []
    assert (seen["prompts"], seen["recordings"]) == _expected_data()


@slow
def test_an_editable_install_maps_the_root_folders_under_llm_eval(tmp_path):
    source = _copy_source(tmp_path / "src")
    python = _fresh_venv(tmp_path / "venv")
    # the editable wheel (PEP 660) built here, offline, by the backend pip would call, then
    # installed into the empty environment as pip install --editable does
    built = subprocess.run(
        [sys.executable, "-c", "import sys, setuptools.build_meta as backend; "
                               "print(backend.build_editable(sys.argv[1]))",
         str(tmp_path / "dist")],
        cwd=source, env=_clean_env(), capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr
    wheel = tmp_path / "dist" / built.stdout.split()[-1]
    _pip("install", str(wheel), cwd=tmp_path, python=python)
    seen = _probe(python, tmp_path)
    assert seen["llm_eval"] == str(source / "llm_eval" / "__init__.py")
    assert seen["old"] == []
    assert (seen["prompts"], seen["recordings"]) == _expected_data()


def test_a_checkout_imports_the_moved_packages_from_its_root_folders(tmp_path):
    """``python -m pytest`` or ``python -m llm_eval`` in a checkout puts its root first on
    sys.path, so the checkout's ``llm_eval`` is imported, not the installed one: the links
    ``llm_eval/adapters``, ``llm_eval/prompts`` and ``llm_eval/recordings`` make the moved
    packages part of it there too (a non-editable install found no ``llm_eval.adapters``)."""
    for folder, name in MOVED.items():
        link = ROOT / name.replace(".", "/")
        assert link.is_symlink() and link.resolve() == ROOT / folder, link
    done = subprocess.run(
        [sys.executable, "-c", "import llm_eval.adapters, llm_eval.prompts, llm_eval.recordings"
                               " as r; print(r.__file__)"],
        cwd=ROOT, env={**_clean_env(), "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
        timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(ROOT / "llm_eval" / "recordings" / "__init__.py")
