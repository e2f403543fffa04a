"""Real random and oracle sweeps for the analysis tests (small: about 3 s together); the
fabricated episodes, stores and transcripts are in ``analysis_fixtures``."""

from __future__ import annotations

from pathlib import Path

import pytest

# random scores 0 on every one of these tasks, the oracle 1: six pairs that all favour it
REAL = {"worlds": ["warehouse", "easel", "icepond"], "families": ["mfp"], "seeds": [1, 2]}


def _sweep(run_dir: Path, models: list[str]) -> Path:
    from llm_eval.sweep import Sweep, run_sweep

    report = run_sweep(Sweep.from_data({"models": models, **REAL}, "test"), run_dir)
    assert all(row.status == "done" for row in report.rows)
    return run_dir


@pytest.fixture(scope="session")
def random_run(tmp_path_factory) -> Path:
    return _sweep(tmp_path_factory.mktemp("random"), ["random"])


@pytest.fixture(scope="session")
def oracle_run(tmp_path_factory) -> Path:
    return _sweep(tmp_path_factory.mktemp("oracle"), ["oracle"])


@pytest.fixture(scope="session")
def both_run(tmp_path_factory) -> Path:
    return _sweep(tmp_path_factory.mktemp("both"), ["random", "oracle"])
