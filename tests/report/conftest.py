"""Fixtures of the report tests: a real random + oracle run and a hostile run
(``report_fixtures``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from report_fixtures import write_hostile_run


@pytest.fixture(scope="session")
def random_oracle_run(tmp_path_factory) -> Path:
    """random and oracle on warehouse and easel, every family, seed 1 (about 8 s)."""
    from llm_eval.sweep import Sweep, run_sweep

    run_dir = tmp_path_factory.mktemp("random-oracle")
    spec = Sweep.from_data({"models": ["random", "oracle"], "worlds": ["warehouse", "easel"],
                            "families": ["mfp", "cd", "planning"], "seeds": [1]}, "test")
    report = run_sweep(spec, run_dir)
    assert all(row.status == "done" for row in report.rows)
    return run_dir


@pytest.fixture
def hostile_run(tmp_path) -> Path:
    """A run whose model name, task, prompt, error, transcript text and file names carry
    payloads: one done job, one infrastructure error, one failure without transcript."""
    return write_hostile_run(tmp_path)
