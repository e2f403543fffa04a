"""Reading never writes: ``report``, ``replay`` and ``compare`` on a read-only run directory
succeed and change nothing in it: no file's size or modification time, no new file (no
``-wal`` or ``-shm`` beside the store). Tests may run as root, whom ``chmod`` does not stop,
so the check is that nothing changed, not that a write failed."""

from __future__ import annotations

import os
import shutil
import sqlite3
import stat
from pathlib import Path

import pytest

from llm_eval.cli import main
from llm_eval.runstore import RunStore


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    """random and oracle on one world, two families, two seeds (8 jobs, a few seconds)."""
    from llm_eval.sweep import Sweep, run_sweep

    run_dir = tmp_path_factory.mktemp("finished")
    spec = Sweep.from_data({"models": ["random", "oracle"], "worlds": ["automaton"],
                            "families": ["mfp", "planning"], "seeds": [1, 2],
                            "budgets": {"interaction_steps": 5}}, "test")
    assert {row.status for row in run_sweep(spec, run_dir).rows} == {"done"}
    return run_dir


def _snapshot(root: Path) -> dict[str, tuple[int, int, int]]:
    """Every file and directory under ``root``: size, modification time, mode."""
    out = {}
    for path in [root, *root.rglob("*")]:
        info = path.stat()
        out[str(path.relative_to(root))] = (info.st_size, info.st_mtime_ns, info.st_mode)
    return out


def _read_only(root: Path) -> None:
    for path in [*root.rglob("*"), root]:
        mode = stat.S_IMODE(path.stat().st_mode)
        path.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


def _writable(root: Path) -> None:
    for path in [root, *root.rglob("*")]:
        path.chmod(stat.S_IMODE(path.stat().st_mode) | stat.S_IWUSR)


def _as_older_store(run_dir: Path) -> None:
    """Leave the store in WAL mode with no ``-wal`` file, as an earlier version did."""
    db = sqlite3.connect(run_dir / "run.sqlite")
    assert db.execute("PRAGMA journal_mode=WAL").fetchone()[0] == "wal"
    db.close()
    assert not (run_dir / "run.sqlite-wal").exists()


@pytest.mark.parametrize("journal", ["rollback", "wal"])
def test_report_replay_and_compare_change_nothing_in_a_read_only_run(
        finished_run, tmp_path, journal, capsys):
    run_dir = tmp_path / "run"
    shutil.copytree(finished_run, run_dir)
    if journal == "wal":
        _as_older_store(run_dir)
    else:   # as the scheduler leaves it
        assert sqlite3.connect(run_dir / "run.sqlite").execute(
            "PRAGMA journal_mode").fetchone()[0] == "delete"
    _read_only(run_dir)
    before = _snapshot(run_dir)
    try:
        assert main(["report", str(run_dir), "-o", str(tmp_path / "report.html")]) == 0
        assert main(["replay", str(run_dir)]) == 0
        assert main(["compare", str(run_dir), "--a", "model=random", "--b", "model=oracle"]) \
            == 0
        out = capsys.readouterr().out
        assert "reproduced 8/8" in out and "overall" in out
        assert (tmp_path / "report.html").stat().st_size > 0
        assert _snapshot(run_dir) == before
        assert not [p.name for p in run_dir.iterdir() if p.name.endswith(("-wal", "-shm"))]
    finally:
        _writable(run_dir)


def test_a_reader_sees_a_live_writers_commits_and_writes_nothing(tmp_path):
    from llm_eval.sweep import Job

    path = tmp_path / "run.sqlite"
    job = Job.of({"model": "random", "n": 1})
    with RunStore(path) as writer:
        writer.add_run("r", "live", {})
        writer.add_jobs("r", [job])
        files = sorted(os.listdir(tmp_path))
        with RunStore(path, readonly=True) as reader:
            assert reader.job("r", job.id).status == "queued"
            writer.start("r", job.id, "t")
            writer.finish("r", job.id, score=1.0, raw_reward=1.0)
            assert reader.job("r", job.id).status == "done"
        assert sorted(os.listdir(tmp_path)) == files
    assert sorted(os.listdir(tmp_path)) == ["run.sqlite"]   # left in rollback mode


def test_a_read_only_store_refuses_writes_and_what_is_not_a_store(tmp_path):
    from llm_eval.runstore import RunStoreError

    with pytest.raises(RunStoreError, match="no run store there"):
        RunStore(tmp_path / "run.sqlite", readonly=True)
    assert not (tmp_path / "run.sqlite").exists()
    (tmp_path / "run.sqlite").write_bytes(b"not a database" * 100)
    with pytest.raises(RunStoreError, match="not a usable run store"):
        RunStore(tmp_path / "run.sqlite", readonly=True)
    (tmp_path / "run.sqlite").unlink()
    with RunStore(tmp_path / "run.sqlite") as store:
        store.add_run("r", "n", {})
    with RunStore(tmp_path / "run.sqlite", readonly=True) as store:
        assert [r["id"] for r in store.runs()] == ["r"]
        with pytest.raises(RunStoreError, match="opened read-only"):
            store.add_run("s", "n", {})
