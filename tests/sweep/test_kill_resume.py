"""``llm-eval run`` survives SIGKILL: a sweep killed at seeded random moments and finished with
``--resume`` ends exactly as an uninterrupted run of the same sweep (same jobs, scores, raw
rewards and final transcripts, event for event), no finished job runs twice, every transcript
is readable and no kept attempt is a finished episode."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from llm_eval.transcripts import job_of, read_transcript, transcript_files

REPO = Path(__file__).resolve().parents[2]
SEED = 20261203
KILLS = 4
SWEEP = ["--model", "random", "--model", "oracle",
         "--worlds", "automaton", "hunters", "sparks", "easel",
         "--families", "mfp", "cd", "planning", "--seeds", "1", "2",
         "--interaction-steps", "10", "--concurrency", "local=2", "--no-progress"]
JOBS = 48   # 2 agents x 4 worlds x 3 families x 2 seeds
DEADLINE_S = 60.0   # per process: far above the ~10 s the whole sweep takes


def _env() -> dict[str, str]:
    """Import the package under test, whether it is installed or only checked out."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    return env


def _start(args: list[str], log: Path) -> subprocess.Popen:
    with open(log, "ab") as out:
        return subprocess.Popen([sys.executable, "-m", "llm_eval", "run", *args], cwd=REPO,
                                env=_env(), stdout=out, stderr=subprocess.STDOUT)


def _rows(run_dir: Path, *, strict: bool = False) -> dict[str, tuple[str, int]]:
    """Every job's (status, executions) as the store shows it now; while a run starts (no
    store or no table yet) {} unless ``strict``."""
    path = run_dir / "run.sqlite"
    if not path.exists() and not strict:
        return {}
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            return {r[0]: (r[1], r[2]) for r in
                    db.execute("SELECT id, status, executions FROM jobs").fetchall()}
        finally:
            db.close()
    except sqlite3.OperationalError:
        if strict:
            raise
        return {}


def _wait(proc: subprocess.Popen, run_dir: Path, ready, what: str, log: list[str]) -> dict:
    """Poll the store until ``ready(rows)``; fail if the process ends or takes too long."""
    start = time.monotonic()
    while time.monotonic() - start < DEADLINE_S:
        rows = _rows(run_dir)
        if ready(rows):
            return rows
        if proc.poll() is not None:
            raise AssertionError(f"the run ended (exit {proc.returncode}) before {what}\n"
                                 + "\n".join(log))
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}\n" + "\n".join(log))


def _done(rows: dict) -> int:
    return sum(1 for status, _ in rows.values() if status == "done")


def _running(rows: dict) -> int:
    return sum(1 for status, _ in rows.values() if status == "running")


def _comparable(event) -> dict:
    """An event without what differs between two runs of the same job (time stamps)."""
    def strip(value):
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in ("time", "latency_s")}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value
    return strip(event.model_dump(mode="json"))


def _final_rows(run_dir: Path) -> dict[str, tuple]:
    db = sqlite3.connect(run_dir / "run.sqlite")
    try:
        return {r[0]: r[1:] for r in db.execute(
            "SELECT id, status, score, raw_reward, executions, transcript FROM jobs")}
    finally:
        db.close()


def test_a_sweep_killed_at_random_moments_resumes_to_the_uninterrupted_result(tmp_path):
    rng = random.Random(SEED)
    log = [f"seed {SEED}"]
    reference_dir, killed_dir = tmp_path / "reference", tmp_path / "killed"
    # the uninterrupted run goes alongside (two cores); it only reads its own directory
    reference = _start([*SWEEP, "-o", str(reference_dir)], tmp_path / "reference.log")

    done_counts: list[dict[str, int]] = []   # after each kill: done jobs -> executions
    kills_while_running = 0
    for kill in range(KILLS):
        args = ([*SWEEP, "-o", str(killed_dir)] if kill == 0
                else ["--resume", str(killed_dir), "--no-progress"])
        before = _done(_rows(killed_dir))
        proc = _start(args, tmp_path / f"kill{kill}.log")
        more = rng.randint(0, 9)      # kill once this many more jobs are done ...
        delay = rng.uniform(0.0, 0.3)  # ... and a job is running, this much later
        # _wait calls the predicate before this iteration ends (the noqa: B023)
        _wait(proc, killed_dir,
              lambda rows: _done(rows) >= before + more and _running(rows) > 0,  # noqa: B023
              f"kill {kill}: {more} more jobs done and one running", log)
        time.sleep(delay)
        assert proc.poll() is None, (f"kill {kill}: the run finished before it could be "
                                     "killed\n" + "\n".join(log))
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        rows = _rows(killed_dir, strict=True)   # the store as the killed process left it
        running = _running(rows)
        kills_while_running += running > 0
        log.append(f"kill {kill}: after {more} more done (+{delay:.3f} s): {_done(rows)} done, "
                   f"{running} running")
        print(log[-1])
        assert _done(rows) < JOBS, "a kill landed after the sweep had finished\n" + "\n".join(log)
        done_counts.append({job: n for job, (status, n) in rows.items() if status == "done"})
    assert kills_while_running >= KILLS // 2, "\n".join(log)

    for attempt in range(3):
        proc = _start(["--resume", str(killed_dir), "--no-progress"],
                      tmp_path / f"resume{attempt}.log")
        code = proc.wait(timeout=DEADLINE_S)
        log.append(f"resume {attempt}: exit {code}")
        print(log[-1])
        if code == 0:
            break
    assert code == 0, "\n".join(log) + "\n" + (tmp_path / f"resume{attempt}.log").read_text()
    assert reference.wait(timeout=DEADLINE_S) == 0, (tmp_path / "reference.log").read_text()

    expected, got = _final_rows(reference_dir), _final_rows(killed_dir)
    message = "\n".join(log)
    assert len(expected) == JOBS and sorted(got) == sorted(expected), message
    for job, (status, score, raw_reward, _, _transcript) in got.items():
        assert status == "done", f"{job}: {status}\n{message}"
        assert (score, raw_reward) == expected[job][1:3], f"{job}\n{message}"

    # no finished job ran again: its execution count never grows after it was seen done
    for kill, seen in enumerate(done_counts):
        for job, executions in seen.items():
            assert got[job][3] == executions, (f"{job} was done with {executions} executions "
                                               f"at kill {kill}, later {got[job][3]}\n{message}")

    for job, row in got.items():
        final = read_transcript(killed_dir / row[4])
        assert final.complete and final.torn is None, f"{job}\n{message}"
        reference_events = read_transcript(reference_dir / expected[job][4]).events
        assert [_comparable(e) for e in final.events] == \
            [_comparable(e) for e in reference_events], f"{job}\n{message}"
    assert sorted(job_of(p) for p in transcript_files(killed_dir / "transcripts")) == \
        sorted(got)

    attempts = transcript_files(killed_dir / "transcripts" / "attempts")
    log.append(f"{len(attempts)} attempts kept")
    for path in attempts:
        transcript = read_transcript(path)   # a torn last line is allowed here
        job = path.name.split(".")[0]
        assert job in got, f"{path.name}\n{message}"
        ends = transcript.of_type("end")
        assert not (ends and ends[-1].status == "done"), (
            f"{path.name}: a finished episode was run again\n" + "\n".join(log))
    print("\n".join(log))
