"""Our processes run the garbage collector with llm_eval/gcpolicy.py's thresholds: the command
line, and the worker processes it starts (Python's default, (700, 10, 10), made a quarter of
the test suite's CPU collection)."""

from __future__ import annotations

import gc

import pytest

from llm_eval.cli import main
from llm_eval.gcpolicy import THRESHOLDS, current
from llm_eval.parallel import map_in_order

DEFAULT = (700, 10, 10)


@pytest.fixture
def python_default():
    gc.set_threshold(*DEFAULT)
    yield
    gc.set_threshold(*THRESHOLDS)


def test_the_thresholds_raise_the_young_generations_and_keep_full_collections():
    young, middle, old = THRESHOLDS
    assert young >= 10_000 and middle >= 10   # collections far apart ...
    assert 0 < old <= 10                      # ... and full ones still happen
    assert THRESHOLDS != DEFAULT


def test_the_command_line_sets_them(python_default, capsys):
    assert current() == DEFAULT
    assert main(["providers"]) == 0
    capsys.readouterr()
    assert current() == THRESHOLDS


def test_worker_processes_run_with_them(python_default):
    # the workers start fresh (forkserver or spawn), with Python's defaults until tuned
    assert list(map_in_order(current, [0, 1], processes=2)) == [THRESHOLDS, THRESHOLDS]
