"""What `llm-eval replay` checks: a run directory against its run store (a job recorded done
must reproduce from a readable, finished transcript), a torn or non-UTF-8 transcript as a
one-line error for that transcript only, and a file that is no transcript as an input error."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from llm_eval.cli import main
from llm_eval.replay import replay_checks
from llm_eval.runstore import RunStore
from llm_eval.sweep import Sweep, run_sweep
from llm_eval.sweep.job import execute_job
from llm_eval.transcripts import TranscriptError, read_transcript, transcript_files

SPEC = {"models": ["random", "oracle"], "worlds": ["hunters"], "families": ["mfp", "planning"],
        "budgets": {"interaction_steps": 5}}


@pytest.fixture(scope="module")
def recorded_run(tmp_path_factory) -> Path:
    run_dir = tmp_path_factory.mktemp("recorded") / "run"
    assert run_sweep(Sweep.from_data(SPEC), run_dir).counts() == {"done": 4}
    return run_dir


@pytest.fixture
def run_dir(recorded_run, tmp_path) -> Path:
    """A fresh copy of a run of 4 jobs, all done."""
    return Path(shutil.copytree(recorded_run, tmp_path / "run"))


def done_job(run_dir: Path, model: str = "random") -> tuple[str, Path]:
    """A done job of ``model`` in ``run_dir``: its id and its transcript."""
    with RunStore(run_dir / "run.sqlite") as store:
        (run,) = store.runs()
        row = next(r for r in store.jobs(run["id"], "done") if r.settings["model"] == model)
    return row.id, run_dir / row.transcript


def replay(capsys, *targets) -> tuple[int, list[str], str]:
    code = main(["replay", *map(str, targets)])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def test_a_run_directory_whose_done_jobs_all_reproduce_passes(run_dir, capsys):
    code, out, err = replay(capsys, run_dir)
    assert (code, out[-1], err) == (0, "reproduced 4/4", "")


# -- 1. the store says done: the transcript must be there, readable and finished ---------------
def text_of(path: Path) -> bytes:
    """A run's transcript (gzip) as its JSON lines."""
    return gzip.decompress(path.read_bytes())


def rewrite(path: Path, data: bytes) -> None:
    """Replace a run's transcript with these JSON lines (compressed, as runs write them)."""
    path.write_bytes(gzip.compress(data))


def _remove(path: Path) -> None:
    path.unlink()


def _tear(path: Path) -> None:           # as a crash leaves it: no end event
    lines = text_of(path).split(b"\n")
    rewrite(path, b"\n".join(lines[:3]) + b"\n" + lines[3][:10])


def _tear_inside_a_character(path: Path) -> None:
    lines = text_of(path).split(b"\n")
    rewrite(path, b"\n".join(lines[:3]) + b'\n{"type":"end","error":"caf\xc3')


def _cut_the_stream(path: Path) -> None:   # the compressed stream itself cut short
    data = path.read_bytes()
    path.write_bytes(data[:len(data) * 2 // 3])


def _end_interrupted(path: Path) -> None:
    events = [json.loads(line) for line in text_of(path).splitlines()]
    events[-1]["status"] = "interrupted"
    rewrite(path, "".join(json.dumps(e) + "\n" for e in events).encode())


def _not_utf8_in_the_middle(path: Path) -> None:
    lines = text_of(path).split(b"\n")
    lines[1] = lines[1][:20] + b"\xc3(" + lines[1][20:]
    rewrite(path, b"\n".join(lines))


BROKEN = [
    (_remove, "missing", "its transcript does not exist"),
    (_tear, "incomplete", "its transcript has no end event (line 4 is torn)"),
    (_tear_inside_a_character, "incomplete", "its transcript has no end event (line 4 is torn)"),
    (_cut_the_stream, "incomplete", "its transcript has no end event"),
    (_end_interrupted, "incomplete", "its transcript ends interrupted"),
    (_not_utf8_in_the_middle, "unreadable", ":2: not UTF-8 text: byte 0xc3 at column 21"),
]


@pytest.mark.parametrize("damage,status,reason", BROKEN, ids=[b[0].__name__ for b in BROKEN])
def test_a_done_job_without_a_good_transcript_fails_the_replay(run_dir, capsys, damage,
                                                               status, reason):
    job, transcript = done_job(run_dir)
    damage(transcript)
    code, out, err = replay(capsys, run_dir)
    assert code == 1
    assert out[-1] == "reproduced 3/4"   # counted, not skipped
    (line,) = [line for line in out if line.startswith(job)]
    assert f"  {status}: the store records the job done, but " in line and reason in line
    assert sum(line.endswith("reproduced score 1.000") for line in out) == 2   # the others ran
    assert f"{status}: job {job} ({transcript}): the store records the job done" in err
    assert "Traceback" not in err


def test_jobs_the_store_does_not_record_done_are_skipped(tmp_path, capsys):
    stopped, broken = None, None

    def execute(job, spec, transcript, **kwargs):
        nonlocal stopped, broken
        if job.model == "oracle":
            return execute_job(job, spec, transcript, **kwargs)
        if job.settings["family"] == "mfp":
            stopped = job.id
            return execute_job(job, spec, transcript, **(kwargs | {"stop": lambda: "test"}))
        broken = job.id
        execute_job(job, spec, transcript, **kwargs)
        _tear(Path(transcript))
        raise RuntimeError("killed in a test")

    report = run_sweep(Sweep.from_data(SPEC), tmp_path, execute=execute)
    assert sorted(report.counts().items()) == [("done", 2), ("failed", 1), ("queued", 1)]
    code, out, err = replay(capsys, tmp_path)
    assert (code, out[-1], err) == (0, "reproduced 2/2 (2 unfinished jobs skipped)", "")
    assert any(line.startswith(stopped) and line.endswith(
        "skipped: the job's status is interrupted") for line in out)
    assert any(line.startswith(broken) and line.endswith(
        "skipped: the job's status is failed") for line in out)

    with RunStore(tmp_path / "run.sqlite") as store:   # killed while running: left running
        store.start(report.run_id, stopped, f"transcripts/{stopped}.jsonl.gz")
    code, out, _ = replay(capsys, tmp_path)
    assert code == 0 and any(line.startswith(stopped) and line.endswith(
        "skipped: the job's status is running") for line in out)


def test_a_run_directory_whose_jobs_none_finished_replays_nothing(tmp_path, capsys):
    def execute(job, spec, transcript, **kwargs):
        return execute_job(job, spec, transcript, **(kwargs | {"stop": lambda: "test"}))

    spec = Sweep.from_data(SPEC | {"models": ["random"]})
    run_sweep(spec, tmp_path, execute=execute)
    code, out, err = replay(capsys, tmp_path)
    assert code == 2 and out[-1] == "reproduced 0/0 (2 unfinished jobs skipped)"
    assert err == ("llm-eval: error: nothing could be replayed: 2 transcript(s) skipped: "
                   "not finished (interrupted 2)\n")


def test_a_transcript_the_store_does_not_know_is_checked_on_its_own(run_dir, capsys):
    _, transcript = done_job(run_dir, "oracle")
    shutil.copy(transcript, run_dir / "transcripts" / "copied.jsonl.gz")
    checks = replay_checks(run_dir)
    assert [(p.name, row) for p, row in checks if row is None] == [("copied.jsonl.gz", None)]
    code, out, _ = replay(capsys, run_dir)
    assert code == 0 and out[-1] == "reproduced 5/5"


# -- 2. torn inside a character, or not UTF-8: one transcript's error, not a traceback ---------
def test_a_last_line_torn_inside_a_character_is_a_torn_line(run_dir):
    _, transcript = done_job(run_dir)
    whole = read_transcript(transcript)
    _tear_inside_a_character(transcript)
    torn = read_transcript(transcript)
    assert torn.torn == 4 and torn.events == whole.events[:3] and not torn.complete


def test_a_line_that_is_not_utf8_is_an_error_naming_the_file_and_line(run_dir):
    _, transcript = done_job(run_dir)
    _not_utf8_in_the_middle(transcript)
    with pytest.raises(TranscriptError) as caught:
        read_transcript(transcript)
    assert str(caught.value) == (f"{transcript}:2: not UTF-8 text: byte 0xc3 at column 21 "
                                 f"(invalid continuation byte)")
    assert (caught.value.path, caught.value.line) == (transcript, 2)


def test_transcripts_on_their_own_torn_inside_a_character_are_skipped(run_dir, capsys):
    job, transcript = done_job(run_dir)
    _tear_inside_a_character(transcript)
    code, out, err = replay(capsys, *transcript_files(run_dir / "transcripts"))
    assert (code, out[-1], err) == (0, "reproduced 3/3 (1 unfinished jobs skipped)", "")
    assert f"{job}  random  hunters-mfp  skipped: the job's status is unfinished" in out or \
        f"{job}  random  hunters-planning  skipped: the job's status is unfinished" in out


def test_a_transcript_on_its_own_that_is_not_utf8_is_named_and_the_others_still_run(run_dir,
                                                                                    capsys):
    _, transcript = done_job(run_dir)
    _not_utf8_in_the_middle(transcript)
    code, out, err = replay(capsys, *transcript_files(run_dir / "transcripts"))
    assert code == 2   # an input that could not be read: the check has not passed
    assert out[-1] == "reproduced 3/3 (1 unreadable files)"
    message = f"not a valid transcript: {transcript}:2: not UTF-8 text: byte 0xc3 at column 21"
    assert f"{transcript}  unreadable: {message}" in "\n".join(out)
    assert err.startswith(f"llm-eval: error: {message}") and err.count("\n") == 1


# -- 3. a file that is not a transcript is an input error naming it ------------------------------
NOT_TRANSCRIPTS = [
    (b"models: [random]\n", "not a transcript: {path}:1: not a JSON line: Expecting value"),
    (b'{"a": "caf\xc3"}\n', "not a transcript: {path}:1: not UTF-8 text: byte 0xc3 at column "
                            "11 (invalid continuation byte)"),
    (b"", "not a transcript: {path}:1: no events"),
]


@pytest.mark.parametrize("content,message", NOT_TRANSCRIPTS, ids=["yaml", "latin", "empty"])
def test_a_file_that_is_not_a_transcript_is_an_input_error(tmp_path, capsys, content, message):
    path = tmp_path / "spec.yaml"
    path.write_bytes(content)
    message = message.format(path=path)
    code, out, err = replay(capsys, path)
    assert code == 2
    assert out == [f"{path}  unreadable: {message}", "reproduced 0/0 (1 unreadable files)"]
    assert err == (f"llm-eval: error: {message}\nllm-eval: error: nothing could be replayed: "
                   f"1 file(s) not readable transcripts\n")


def test_a_file_that_is_not_a_transcript_among_good_ones_is_listed_unreadable(run_dir, tmp_path,
                                                                              capsys):
    job, transcript = done_job(run_dir, "oracle")
    spec = tmp_path / "spec.yaml"
    spec.write_text("models: [random]\n")
    code, out, err = replay(capsys, spec, transcript)
    assert code == 2
    assert out[0] == f"{spec}  unreadable: not a transcript: {spec}:1: not a JSON line: " \
                     f"Expecting value"
    assert out[1].startswith(f"{job}  oracle  ") and out[1].endswith("reproduced score 1.000")
    assert out[2] == "reproduced 1/1 (1 unreadable files)"
    assert err == f"llm-eval: error: not a transcript: {spec}:1: not a JSON line: " \
                  f"Expecting value\n"
