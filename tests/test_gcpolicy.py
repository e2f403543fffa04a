"""Our processes run the garbage collector with llm_eval/gcpolicy.py's thresholds: the command
line, and the worker processes it starts (Python's default, (700, 10, 10), made a quarter of
the test suite's CPU collection)."""

from __future__ import annotations

import ast
import gc
import os
import subprocess
import sys

import pytest

from llm_eval.cli import main
from llm_eval.gcpolicy import THRESHOLDS

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
    assert gc.get_threshold() == DEFAULT
    assert main(["providers"]) == 0
    capsys.readouterr()
    assert gc.get_threshold() == THRESHOLDS


SCRIPT = """
import gc

from llm_eval.parallel import map_in_order


def current(_item):
    return gc.get_threshold()


if __name__ == "__main__":
    print(list(map_in_order(current, [0, 1], processes=2)))
"""


def _workers(tmp_path, **env) -> list:
    """The thresholds in two worker processes of a new program (its own fork server, which
    takes the environment at its start)."""
    script = tmp_path / "workers.py"
    script.write_text(SCRIPT)
    environ = {k: v for k, v in os.environ.items() if k != "LLM_EVAL_GC"}
    out = subprocess.run([sys.executable, str(script)], env={**environ, **env},
                         capture_output=True, text=True, check=True, timeout=120).stdout
    return ast.literal_eval(out.strip())


def test_worker_processes_run_with_them(tmp_path):
    # the workers start fresh, with Python's defaults until tuned
    assert _workers(tmp_path) == [THRESHOLDS, THRESHOLDS]


def test_llm_eval_gc_python_keeps_the_defaults_and_a_bad_value_is_refused(
        python_default, monkeypatch, capsys, tmp_path):
    assert _workers(tmp_path, LLM_EVAL_GC="python") == [DEFAULT, DEFAULT]
    monkeypatch.setenv("LLM_EVAL_GC", "python")
    assert main(["providers"]) == 0
    assert gc.get_threshold() == DEFAULT
    monkeypatch.setenv("LLM_EVAL_GC", "fast")
    assert main(["providers"]) == 2
    assert "LLM_EVAL_GC='fast': expected 'ours'" in capsys.readouterr().err
    assert gc.get_threshold() == DEFAULT
