"""The default tier's longest files run first (tests/conftest.py): each listed file exists (a
renamed file would silently drop out of the list), and the order puts them ahead of the rest,
in the list's order, keeping the order of everything else."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from conftest import LONGEST_FIRST, pytest_collection_modifyitems

REPO = Path(__file__).resolve().parents[1]


def test_every_listed_file_exists():
    assert [p for p in LONGEST_FIRST if not (REPO / p).is_file()] == []


def test_the_listed_files_come_first_in_the_lists_order():
    ids = ["tests/a/test_x.py::t1", f"{LONGEST_FIRST[1]}::t", "tests/a/test_x.py::t2",
           f"{LONGEST_FIRST[0]}::u", "tests/b/test_y.py::t", f"{LONGEST_FIRST[1]}::v"]
    items = [SimpleNamespace(nodeid=i) for i in ids]
    pytest_collection_modifyitems(None, items)
    assert [i.nodeid for i in items] == [
        f"{LONGEST_FIRST[0]}::u", f"{LONGEST_FIRST[1]}::t", f"{LONGEST_FIRST[1]}::v",
        "tests/a/test_x.py::t1", "tests/a/test_x.py::t2", "tests/b/test_y.py::t"]
