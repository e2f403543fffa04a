"""The world registry: metadata validated with pydantic, errors naming file and field, the
"did you mean", the size check, and the bundled programs shipped as package data."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from world_programs import DOT, dot_grid

from llm_eval.worlds import (
    UnknownWorldError,
    WorldMetadataError,
    WorldRegistry,
    default_registry,
    make_world,
)

REPO = Path(__file__).resolve().parents[2]

GOOD = """\
name: dot
size: 3
stochastic: false
mechanics: a dot moved by arrows
description: A red dot that arrows move and clicks place.
notes: |
  Written for the registry tests.
"""


def write_world(root: Path, name: str = "dot", metadata: str = GOOD, program: str = DOT) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / f"{name}.sexp").write_text(program)
    (root / f"{name}.yaml").write_text(metadata)


def test_a_registry_of_one_world(tmp_path: Path) -> None:
    write_world(tmp_path)
    registry = WorldRegistry(tmp_path)
    assert registry.names() == ["dot"] and "dot" in registry and len(registry) == 1
    spec = registry.get("dot")
    assert (spec.size, spec.stochastic, spec.mechanics) == (3, False, "a dot moved by arrows")
    assert spec.description == "A red dot that arrows move and clicks place."
    assert spec.notes == "Written for the registry tests.\n"
    assert spec.summary() == {"name": "dot", "size": 3, "stochastic": False,
                              "mechanics": "a dot moved by arrows",
                              "description": "A red dot that arrows move and clicks place."}
    world = registry.make("dot", seed=2)
    assert world.reset()[0].grid == dot_grid(0, 1) and world.name == "dot"


def test_unknown_names_get_a_did_you_mean(tmp_path: Path) -> None:
    write_world(tmp_path, "gravity", GOOD.replace("name: dot", "name: gravity"))
    write_world(tmp_path, "magnets", GOOD.replace("name: dot", "name: magnets"))
    registry = WorldRegistry(tmp_path)
    with pytest.raises(UnknownWorldError) as caught:
        registry.get("gravty")
    assert str(caught.value) == ("unknown world 'gravty'; did you mean 'gravity'? "
                                 "(known worlds: gravity, magnets)")
    with pytest.raises(UnknownWorldError, match=r"^unknown world 'zzz' \(known worlds"):
        registry.get("zzz")


@pytest.mark.parametrize("change, field, message", [
    (("size: 3", "size: three"), "size", "valid integer"),
    (("size: 3", "size: 30"), "size", "less than or equal to 25"),
    (("stochastic: false", "stochastic: maybe"), "stochastic", "valid boolean"),
    (("description: A red dot that arrows move and clicks place.", "description: ''"),
     "description", "at least 1 character"),
    (("description: A red dot that arrows move and clicks place.",
      'description: "two\\nlines"'), "description", "single non-empty line"),
    (("mechanics: a dot moved by arrows\n", ""), "mechanics", "Field required"),
    (("notes: |", "colour: red\nnotes: |"), "colour", "Extra inputs are not permitted"),
    (("name: dot", "name: Dot!"), "name", "should match pattern"),
])
def test_bad_metadata_names_the_file_and_the_field(tmp_path: Path, change: tuple[str, str],
                                                   field: str, message: str) -> None:
    write_world(tmp_path, metadata=GOOD.replace(*change))
    with pytest.raises(WorldMetadataError) as caught:
        WorldRegistry(tmp_path)
    error = caught.value
    assert error.field == field and error.path == str(tmp_path / "dot.yaml")
    assert str(error).startswith(f"{tmp_path / 'dot.yaml'}: field '{field}':")
    assert message in str(error)


def test_metadata_name_must_match_the_file(tmp_path: Path) -> None:
    write_world(tmp_path, metadata=GOOD.replace("name: dot", "name: spot"))
    with pytest.raises(WorldMetadataError, match="field 'name': is 'spot' but the file is dot"):
        WorldRegistry(tmp_path)


def test_yaml_syntax_errors_name_the_line(tmp_path: Path) -> None:
    write_world(tmp_path, metadata="name: dot\nsize: [3\n")
    with pytest.raises(WorldMetadataError) as caught:
        WorldRegistry(tmp_path)
    assert caught.value.line is not None and "not valid YAML" in str(caught.value)
    write_world(tmp_path, metadata="- a list\n")
    with pytest.raises(WorldMetadataError, match="expected a mapping"):
        WorldRegistry(tmp_path)


def test_programs_and_metadata_come_in_pairs(tmp_path: Path) -> None:
    write_world(tmp_path)
    (tmp_path / "lonely.sexp").write_text(DOT)
    with pytest.raises(WorldMetadataError, match=r"lonely\.yaml: is missing"):
        WorldRegistry(tmp_path)
    (tmp_path / "lonely.sexp").unlink()
    (tmp_path / "orphan.yaml").write_text(GOOD)
    with pytest.raises(WorldMetadataError, match=r"orphan\.yaml: has no program orphan\.sexp"):
        WorldRegistry(tmp_path)


def test_the_size_is_checked_against_the_program(tmp_path: Path) -> None:
    write_world(tmp_path, metadata=GOOD.replace("size: 3", "size: 16"))
    world = WorldRegistry(tmp_path).make("dot")
    with pytest.raises(WorldMetadataError) as caught:
        world.reset()
    assert str(caught.value) == (f"{tmp_path / 'dot.yaml'}: field 'size': says 16 but the "
                                 "program's grid is 3x3")


def test_an_empty_or_missing_directory_has_no_worlds(tmp_path: Path) -> None:
    assert WorldRegistry(tmp_path).names() == []
    assert WorldRegistry(tmp_path / "nowhere").names() == []


def test_bundled_worlds_are_found_through_importlib_resources() -> None:
    registry = default_registry()
    on_disk = sorted(p.stem for p in (REPO / "llm_eval" / "worlds" / "programs").glob("*.sexp"))
    assert registry.names() == on_disk and on_disk
    with pytest.raises(UnknownWorldError, match="did you mean"):
        make_world(on_disk[0] + "x")


def test_a_non_editable_build_ships_the_worlds(tmp_path: Path) -> None:
    """Build the package as an install would (setuptools build_py into a fresh directory) and
    check, in a separate interpreter that imports it from there, that the registry finds every
    bundled world and loads one."""
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
         "import llm_eval, llm_eval.worlds as w\n"
         "names = w.world_names()\n"
         "print(llm_eval.__file__)\n"
         "print(','.join(names))\n"
         "print(w.make_world(names[0], seed=3).reset()[0].size)\n"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert probe.returncode == 0, probe.stderr
    location, names, size = probe.stdout.split("\n")[:3]
    assert location.startswith(str(tmp_path / "lib"))
    assert names.split(",") == default_registry().names()
    assert int(size) == default_registry().specs()[0].size
