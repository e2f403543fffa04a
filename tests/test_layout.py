"""The test tree's layout: test modules are imported by basename (the tests folders are not
packages), so two test files with one name make pytest refuse to collect the second."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path


def test_no_two_test_files_share_a_basename():
    tests = Path(__file__).parent
    by_name: dict[str, list[str]] = defaultdict(list)
    for path in tests.rglob("*.py"):
        if path.name.startswith("test_") or path.name.endswith("_test.py"):
            by_name[path.name].append(str(path.relative_to(tests)))
    clashes = {name: paths for name, paths in by_name.items() if len(paths) > 1}
    assert not clashes, f"rename one of each: {clashes}"
