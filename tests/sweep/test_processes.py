"""The local agents' episodes run in worker processes: the same sweep gives byte-identical
scores and the same transcripts with 1 worker, with 16 and in threads, even while other
work hogs the CPU; a stop reaches episodes in workers; workers die with a killed run."""

from __future__ import annotations

import multiprocessing
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from llm_eval.replay import compare_transcripts
from llm_eval.sweep import Sweep, run_sweep
from llm_eval.sweep.progress import Progress
from llm_eval.transcripts import read_transcript

REPO = Path(__file__).resolve().parents[2]
SPEC = {"models": ["random", "oracle"], "worlds": ["automaton", "hunters"],
        "families": ["mfp", "cd", "planning"], "seeds": [1],
        "budgets": {"interaction_steps": 5}}


def _spin(stop) -> None:
    while not stop.is_set():
        pass


class CpuHog:
    """Busy processes (one per core) and a busy thread in this process while the block
    runs: a wall-clock limit anywhere (a tick's time budget, a timeout) would change what
    the episodes do."""

    def __enter__(self) -> CpuHog:
        context = multiprocessing.get_context("spawn")
        self.stop_processes = context.Event()
        self.stop_threads = threading.Event()
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 2
        self.processes = [context.Process(target=_spin, args=(self.stop_processes,),
                                          daemon=True) for _ in range(cores)]
        self.threads = [threading.Thread(target=_spin, args=(self.stop_threads,), daemon=True)
                        for _ in range(1)]
        for worker in self.processes + self.threads:
            worker.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop_processes.set()
        self.stop_threads.set()
        for worker in self.processes + self.threads:
            worker.join(timeout=10)


def _scores(report) -> list[tuple[str, str, str, str]]:
    """Every job's status, score and raw reward, floats as their exact hex."""
    return sorted((r.id, r.status, float(r.score).hex(), float(r.raw_reward).hex())
                  for r in report.rows)


def test_1_and_16_workers_and_threads_give_identical_results_under_a_cpu_hog(tmp_path):
    runs = {}
    with CpuHog():
        for name, processes, limit in (("one", 1, 1), ("sixteen", 16, 16),
                                       ("threads", 0, 4)):
            spec = Sweep.from_data({**SPEC, "concurrency": {"local": limit}}, "test")
            runs[name] = (tmp_path / name, run_sweep(spec, tmp_path / name,
                                                     processes=processes))
    assert [report.processes for _, report in runs.values()] == [1, 16, 0]
    (one_dir, one), (sixteen_dir, sixteen), (threads_dir, threads) = runs.values()
    assert len(one.rows) == 12 and {r.status for r in one.rows} == {"done"}, \
        [r.error for r in one.rows + sixteen.rows + threads.rows if r.status != "done"][:1]
    assert _scores(one) == _scores(sixteen) == _scores(threads)
    for row in one.rows:
        for other in (sixteen_dir, threads_dir):
            assert compare_transcripts(one_dir / row.transcript, other / row.transcript) \
                == "", row.id


class StopAfterFirst(Progress):
    """Sets ``stop`` when the first job ends, as the first Ctrl-C would."""

    def __init__(self, stop: threading.Event) -> None:
        super().__init__()
        self.stop = stop

    def finished(self, job, outcome, *, spent: float) -> None:
        super().finished(job, outcome, spent=spent)
        self.stop.set()


def test_a_stop_reaches_episodes_in_workers_and_the_run_resumes(tmp_path):
    spec = Sweep.from_data({**SPEC, "worlds": ["hunters", "sparks"], "seeds": [1, 2, 3],
                            "budgets": {"interaction_steps": 200}}, "test")
    stop = threading.Event()
    report = run_sweep(spec, tmp_path, processes=2, stop=stop, progress=StopAfterFirst(stop))
    assert report.stopped_by_user and report.processes == 2
    counts = report.counts()
    assert counts.get("running", 0) == 0 and counts["queued"] > 0 and counts["done"] >= 1
    assert len(report.executed) < len(report.rows)   # queued jobs did not start
    transcripts = {row.id: row.transcript for row in report.rows}
    for job in report.interrupted:
        assert read_transcript(tmp_path / transcripts[job]).events[-1].status == "interrupted"
    finished = run_sweep(spec, tmp_path, processes=2)
    assert finished.counts() == {"done": 36}


def _descendants(pid: int) -> set[int]:
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier}
        found |= frontier
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_worker_processes_die_with_a_killed_run(tmp_path):
    run_dir = tmp_path / "run"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])}
    run = subprocess.Popen([sys.executable, "-m", "llm_eval", "run", "--model", "random",
                            "--model", "oracle", "--worlds", "hunters", "sparks", "easel",
                            "--families", "mfp", "cd", "planning", "--seeds", "1", "2", "3",
                            "--processes", "2", "--no-progress", "-o", str(run_dir)],
                           env=env, cwd=REPO, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    workers: set[int] = set()
    while time.monotonic() < deadline and len(workers) < 3:   # the fork server and 2 workers
        time.sleep(0.1)
        workers = _descendants(run.pid)
    assert len(workers) >= 3 and run.poll() is None
    run.send_signal(signal.SIGKILL)
    run.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(map(_alive, workers)):
        time.sleep(0.05)
    assert not [pid for pid in workers if _alive(pid)]
    db = sqlite3.connect(f"file:{run_dir / 'run.sqlite'}?mode=ro", uri=True)
    statuses = {s for (s,) in db.execute("SELECT status FROM jobs")}
    db.close()
    assert "running" in statuses   # killed in the middle; resume reruns those
