"""One writer per run directory: a second ``run``, ``--resume`` or ``demo`` on a directory
another process is writing is refused at once (exit 2) naming the holder; the lock goes with
its process, even a killed one; two runs of one spec started together on one directory end
with every job run once and every transcript whole; a done job's transcript is never
touched again."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from llm_eval.cli import main
from llm_eval.runlock import RunDirBusy, hold_run_dir, lock_holder
from llm_eval.runstore import RunStore
from llm_eval.sweep import Sweep, execute_job, run_sweep
from llm_eval.transcripts import read_transcript

REPO = Path(__file__).resolve().parents[2]
SMALL = ["--model", "random", "--worlds", "automaton", "--families", "mfp",
         "--interaction-steps", "3", "--no-progress"]
HOLDER = """
import sys, time
from llm_eval.runlock import hold_run_dir
with hold_run_dir(sys.argv[1]):
    print("held", flush=True)
    time.sleep(120)
"""


def _env() -> dict[str, str]:
    return {**os.environ,
            "PYTHONPATH": os.pathsep.join([str(REPO), *filter(None, [os.environ.get(
                "PYTHONPATH")])])}


@pytest.fixture
def held(tmp_path):
    """A run directory whose lock another process holds until the test kills it."""
    run_dir = tmp_path / "run"
    script = tmp_path / "holder.py"
    script.write_text(HOLDER)
    holder = subprocess.Popen([sys.executable, str(script), str(run_dir)], env=_env(),
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    yield run_dir, holder
    holder.kill()
    holder.wait()


def test_a_second_writer_is_refused_naming_the_holder(held, capsys):
    run_dir, holder = held
    assert main(["run", *SMALL, "-o", str(run_dir)]) == 2
    err = capsys.readouterr().err
    assert f"{run_dir}: another llm-eval is writing to this run directory" in err
    assert f"pid {holder.pid} on {socket.gethostname()}" in err
    assert "since 20" in err and "holder.py" in err and err.count("\n") == 1
    assert not (run_dir / "run.sqlite").exists() and not (run_dir / "spec.json").exists()
    assert main(["demo", "--out", str(run_dir), "--quiet"]) == 2
    assert "another llm-eval is writing" in capsys.readouterr().err


def test_resume_is_refused_too_and_the_lock_dies_with_its_holder(held, capsys):
    run_dir, holder = held
    with RunStore(run_dir / "run.sqlite") as store:   # a run to resume
        store.add_run("r", "n", {})
    assert main(["run", "--resume", str(run_dir), "--no-progress"]) == 2
    assert f"pid {holder.pid}" in capsys.readouterr().err
    holder.send_signal(signal.SIGKILL)   # the OS drops the lock
    holder.wait()
    assert main(["run", *SMALL, "-o", str(run_dir)]) == 0
    assert lock_holder(run_dir) is None   # released: the file is emptied


def test_the_lock_is_reentrant_for_its_thread_only(tmp_path):
    errors: list[str] = []
    with hold_run_dir(tmp_path):
        with hold_run_dir(tmp_path):   # resume holds it while each run takes it again
            assert lock_holder(tmp_path)["pid"] == os.getpid()

        def other() -> None:
            try:
                with hold_run_dir(tmp_path):
                    errors.append("not refused")
            except RunDirBusy as exc:
                errors.append(str(exc))

        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
    assert errors == [f"{tmp_path}: another thread of this process (pid {os.getpid()}) "
                      f"is writing to this run directory"]
    with hold_run_dir(tmp_path):   # released, so taken again
        pass


def test_two_runs_of_one_spec_started_together_leave_a_sound_directory(tmp_path):
    run_dir = tmp_path / "run"
    argv = [sys.executable, "-m", "llm_eval", "run", "--model", "random", "--model",
            "oracle", "--worlds", "automaton", "hunters", "--families", "mfp", "planning",
            "--seeds", "1", "2", "--interaction-steps", "5", "--no-progress", "-o",
            str(run_dir)]
    runs = [subprocess.Popen(argv, env=_env(), cwd=REPO, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = [(p.wait(timeout=300), *p.communicate()) for p in runs]
    codes = sorted(code for code, _, _ in results)
    assert codes in ([0, 0], [0, 2]), results
    if codes == [0, 2]:   # the usual case: the second found the first running
        (err,) = [err for code, _, err in results if code == 2]
        assert "another llm-eval is writing to this run directory" in err
    with RunStore(run_dir / "run.sqlite", readonly=True) as store:
        (run,) = store.runs()
        rows = store.jobs(run["id"])
    assert len(rows) == 16 and {(r.status, r.executions) for r in rows} == {("done", 1)}
    for row in rows:
        assert read_transcript(run_dir / row.transcript).events[-1].status == "done"
    assert not (run_dir / "transcripts" / "attempts").exists()


def test_a_done_job_is_never_started_again_nor_its_transcript_touched(tmp_path):
    """Another writer (one that ignores the lock) finishes a queued job while the run is
    going: the run leaves that job and its transcript alone."""
    spec = Sweep.from_data({"models": ["random"], "worlds": ["automaton"],
                            "families": ["mfp", "planning"], "concurrency": {"local": 1},
                            "budgets": {"interaction_steps": 3}}, "test")
    first, second = (job.id for job in spec.expand())
    done_elsewhere = b'{"written": "by the other writer"}\n'

    def execute(job, spec_, path, **kwargs):
        if job.id == first:
            with RunStore(tmp_path / "run.sqlite") as other:
                (run,) = other.runs()
                other.start(run["id"], second, f"transcripts/{second}.jsonl")
                (tmp_path / "transcripts" / f"{second}.jsonl").write_bytes(done_elsewhere)
                other.finish(run["id"], second, score=0.25, raw_reward=0.25)
        return execute_job(job, spec_, path, **kwargs)

    report = run_sweep(spec, tmp_path, execute=execute)
    assert report.executed == [first] and second in report.skipped
    assert (tmp_path / "transcripts" / f"{second}.jsonl").read_bytes() == done_elsewhere
    assert {r.id: (r.status, r.score, r.executions) for r in report.rows}[second] == \
        ("done", 0.25, 1)


def test_spec_json_is_replaced_whole(tmp_path):
    spec = Sweep.from_data({"models": ["random"], "worlds": ["automaton"],
                            "families": ["mfp"], "budgets": {"interaction_steps": 3}}, "test")
    run_sweep(spec, tmp_path)
    run_sweep(spec, tmp_path)
    # no temporary file is left, nor a -wal or -shm beside the finished store
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["run.lock", "run.sqlite", "spec.json", "transcripts"]
    assert json.loads((tmp_path / "spec.json").read_text())["models"] == ["random"]
