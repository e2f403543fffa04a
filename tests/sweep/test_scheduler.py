"""A small sweep of the random and oracle agents: one transcript per job, the store's rows,
the command line's table; running again skips what is done and reruns what is not."""

from __future__ import annotations

import gzip
import sqlite3
import threading

import pytest

from llm_eval.cli import main
from llm_eval.cli.run import format_report
from llm_eval.runstore import RunStore
from llm_eval.sweep import SpecError, Sweep, execute_job, resume, run_sweep
from llm_eval.sweep.scheduler import unpriced_models
from llm_eval.transcripts import job_of, read_transcript, transcript_files, transcript_name

SPEC = {"name": "small", "models": ["random", "oracle"], "worlds": ["automaton", "hunters"],
        "families": ["mfp", "cd", "planning"], "budgets": {"interaction_steps": 5}}


class Counting:
    """``execute_job`` that counts executions (and can fail chosen jobs, once)."""

    def __init__(self, fail: dict[str, str] | None = None) -> None:
        self.ran: list[str] = []
        self.fail = dict(fail or {})
        self.lock = threading.Lock()

    def __call__(self, job, spec, path, **kwargs):
        with self.lock:
            self.ran.append(job.id)
            status = self.fail.pop(job.id, None)
        if status is not None:
            from llm_eval.sweep import JobOutcome

            path.write_text("")   # a transcript cut short
            return JobOutcome(status, error=f"simulated {status}")
        return execute_job(job, spec, path, **kwargs)


@pytest.fixture(scope="module")
def first_run(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("run")
    counting = Counting()
    report = run_sweep(Sweep.from_data(SPEC), run_dir, execute=counting)
    return run_dir, report, counting


def test_a_small_sweep_writes_one_transcript_per_job_and_the_store_rows(first_run):
    run_dir, report, counting = first_run
    assert len(report.rows) == 12 and report.counts() == {"done": 12}
    assert sorted(counting.ran) == sorted(r.id for r in report.rows)
    transcripts = transcript_files(run_dir / "transcripts")
    assert [job_of(p) for p in transcripts] == sorted(r.id for r in report.rows)
    assert all(p.name.endswith(".jsonl.gz") for p in transcripts)
    for row in report.rows:
        transcript = read_transcript(run_dir / row.transcript)
        assert transcript.complete and transcript.torn is None
        header = transcript.header
        assert header.job_id == row.id and header.settings == row.settings
        assert header.versions["llm_eval"] and len(header.program_sha256) == 64
        (score,) = transcript.of_type("score")
        assert (score.score, score.raw_reward) == (row.score, row.raw_reward)
        assert row.executions == 1 and row.finished_at >= row.started_at
    oracle = [r.score for r in report.rows if r.settings["model"] == "oracle"]
    assert min(oracle) > 0.9
    db = sqlite3.connect(run_dir / "run.sqlite")
    assert db.execute("SELECT COUNT(*) FROM jobs WHERE status='done'").fetchone()[0] == 12


def test_running_the_same_spec_again_skips_done_jobs(first_run):
    run_dir, report, _ = first_run
    counting = Counting()
    again = run_sweep(Sweep.from_data(SPEC), run_dir, execute=counting)
    assert counting.ran == [] and again.executed == []
    assert sorted(again.skipped) == sorted(r.id for r in report.rows)
    assert [(r.id, r.score) for r in again.rows] == [(r.id, r.score) for r in report.rows]


def test_changing_only_how_a_spec_runs_keeps_the_run(first_run):
    run_dir, report, _ = first_run
    counting = Counting()
    again = run_sweep(Sweep.from_data({**SPEC, "default_concurrency": 1, "spend_cap_usd": 9}),
                      run_dir, execute=counting)
    assert again.run_id == report.run_id and counting.ran == []
    with RunStore(run_dir / "run.sqlite") as store:
        assert store.latest_run()["spec"]["spend_cap_usd"] == 9


def test_unfinished_jobs_are_rerun_on_resume(tmp_path):
    spec = Sweep.from_data({**SPEC, "worlds": ["automaton"]})
    ids = [j.id for j in spec.expand()]
    counting = Counting(fail={ids[0]: "infra_error", ids[1]: "failed"})
    report = run_sweep(spec, tmp_path, execute=counting)
    assert report.counts() == {"done": 4, "infra_error": 1, "failed": 1}
    # a job left running, as a run killed in the middle of its episode leaves it
    left_running(tmp_path, ids[2], keep_lines=4)

    counting = Counting()
    (report,) = resume(tmp_path, execute=counting)
    assert sorted(counting.ran) == sorted(ids[:3])
    assert report.counts() == {"done": 6}
    with RunStore(tmp_path / "run.sqlite") as store:
        executions = {r.id: r.executions for r in store.jobs(report.run_id)}
    assert [executions[i] for i in ids] == [2, 2, 2, 1, 1, 1]
    assert read_transcript(tmp_path / "transcripts" / transcript_name(ids[0])).complete
    kept = sorted(p.name for p in (tmp_path / "transcripts" / "attempts").iterdir())
    assert kept == sorted(f"{i}.1.jsonl.gz" for i in ids[:3])   # earlier executions kept aside


def test_a_job_done_by_another_run_of_the_directory_is_not_run_again(tmp_path):
    from llm_eval.analysis import load_episodes

    first_spec = Sweep.from_data({**SPEC, "worlds": ["automaton"], "seeds": [1]})
    first = run_sweep(first_spec, tmp_path)
    transcripts = {r.id: (tmp_path / r.transcript).read_bytes() for r in first.rows}
    wider = Sweep.from_data({**SPEC, "worlds": ["automaton"], "seeds": [1, 2]})
    counting = Counting()
    second = run_sweep(wider, tmp_path, execute=counting)
    assert second.run_id != first.run_id
    assert sorted(counting.ran) == sorted(set(j.id for j in wider.expand()) - set(transcripts))
    assert sorted(second.adopted) == sorted(transcripts)
    assert "(6 by another run in this directory)" in format_report(second)
    by_id = {r.id: r for r in second.rows}
    for row in first.rows:   # the same result and the same, untouched transcript
        assert (by_id[row.id].status, by_id[row.id].score) == ("done", row.score)
        assert by_id[row.id].transcript == row.transcript
        assert (tmp_path / row.transcript).read_bytes() == transcripts[row.id]
    assert not (tmp_path / "transcripts" / "attempts").exists()
    episodes = load_episodes([tmp_path])   # each job once, though both runs name it
    assert sorted(e.job_id for e in episodes) == sorted(by_id)


def test_resume_finishes_every_unfinished_run_of_the_directory(tmp_path):
    older = Sweep.from_data({**SPEC, "worlds": ["automaton"]})
    ids = [j.id for j in older.expand()]
    run_sweep(older, tmp_path, execute=Counting(fail={ids[0]: "infra_error"}))
    newer = Sweep.from_data({**SPEC, "worlds": ["hunters"], "families": ["mfp"]})
    run_sweep(newer, tmp_path)   # the latest run is complete; the older one is not
    counting = Counting()
    reports = resume(tmp_path, execute=counting)
    assert counting.ran == [ids[0]] and len(reports) == 1
    assert reports[0].counts() == {"done": 6}
    assert resume(tmp_path, execute=counting) == [] and counting.ran == [ids[0]]


def test_a_spend_cap_needs_a_price_for_every_model(tmp_path):
    spec = Sweep.from_data({**SPEC, "models": ["random", "openai-chat/no-such-model-priced"],
                            "worlds": ["automaton"], "spend_cap_usd": 1.0})
    counting = Counting()
    with pytest.raises(SpecError) as refused:
        run_sweep(spec, tmp_path, execute=counting)
    assert str(refused.value).startswith(
        "spend_cap_usd: unpriced: openai-chat/no-such-model-priced; the cap cannot see what "
        "it spends: LiteLLM price map (litellm ")
    assert "give it a price (--prices FILE, or prices: in the spec" in str(refused.value)
    assert counting.ran == [] and not (tmp_path / "run.sqlite").exists()
    priced = Sweep.from_data({**SPEC, "models": ["openai-chat/gpt-4.1-mini"],
                              "worlds": ["automaton"], "spend_cap_usd": 1.0})
    assert unpriced_models(priced) == []
    # a price given by the user lets the capped run start
    prices = tmp_path / "prices.yaml"
    prices.write_text("models:\n  openai-chat/no-such-model-priced: {input: 0, output: 0}\n")
    given = Sweep.from_data({**spec.canonical(), "prices": str(prices)})
    assert unpriced_models(given) == [] and given.prices == str(prices.resolve())
    run_sweep(given, tmp_path / "given", execute=counting)
    assert counting.ran


def test_a_missing_key_is_one_error_before_any_job(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    code = main(["run", "--model", "openai/gpt-5", "--worlds", "automaton", "--no-progress",
                 "-o", str(tmp_path / "run")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "OPENAI_API_KEY is not set" in err
    assert "model openai/gpt-5" in err and not (tmp_path / "run" / "run.sqlite").exists()


def test_resume_of_a_directory_that_is_not_a_run_exits_2(tmp_path, capsys):
    assert main(["run", "--resume", str(tmp_path / "nothing")]) == 2
    assert "not a run directory" in capsys.readouterr().err


def left_running(run_dir, job: str, keep_lines: int | None) -> None:
    """Set ``job`` back to ``running`` and cut its transcript to ``keep_lines`` lines."""
    db = sqlite3.connect(run_dir / "run.sqlite")
    db.execute("UPDATE jobs SET status='running' WHERE id=?", (job,))
    db.commit()
    db.close()
    if keep_lines is not None:
        path = run_dir / "transcripts" / transcript_name(job)
        lines = gzip.decompress(path.read_bytes()).splitlines(keepends=True)
        path.write_bytes(gzip.compress(b"".join(lines[:keep_lines])))


def test_a_job_killed_after_its_episode_ended_is_recorded_not_rerun(tmp_path):
    spec = Sweep.from_data({**SPEC, "worlds": ["automaton"], "families": ["mfp"]})
    first = run_sweep(spec, tmp_path)
    row = first.rows[0]
    left_running(tmp_path, row.id, keep_lines=None)   # the transcript ended "done"
    counting = Counting()
    (report,) = resume(tmp_path, execute=counting)
    assert counting.ran == [] and report.recovered == [row.id]
    again = next(r for r in report.rows if r.id == row.id)
    assert again.status == "done" and again.score == row.score and again.executions == 1
    assert not (tmp_path / "transcripts" / "attempts").exists()


def test_episodes_run_as_wide_as_the_provider_limit_allows(tmp_path):
    from llm_eval.sweep import JobOutcome

    lock, running, peak = threading.Lock(), [0], [0]
    all_in = threading.Event()

    def execute(job, spec, path, **kwargs):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
            if running[0] == 36:
                all_in.set()
        # each job holds its slot until all 36 run at once (however slowly a loaded machine
        # starts them); a scheduler that runs fewer lets them go after the wait instead
        all_in.wait(timeout=20)
        with lock:
            running[0] -= 1
        return JobOutcome("done", score=0.0, raw_reward=0.0)

    spec = Sweep.from_data({**SPEC, "worlds": ["automaton", "hunters"], "seeds": [1, 2, 3],
                            "concurrency": {"local": 40}})
    report = run_sweep(spec, tmp_path, execute=execute)
    assert len(report.rows) == 36 and report.counts() == {"done": 36}
    assert peak[0] == 36   # not the default thread pool's min(32, cpus + 4)


def test_a_spend_cap_stops_starting_paid_jobs_only(tmp_path):
    """At the cap no model job starts; random and oracle spend nothing, so they still run."""
    spec = Sweep.from_data({**SPEC, "models": ["random", "openai/gpt-4.1-mini"],
                            "worlds": ["automaton"], "spend_cap_usd": 0})
    counting = Counting()
    report = run_sweep(spec, tmp_path, execute=counting)
    assert report.stopped_by_spend_cap
    assert {r.settings["model"] for r in report.rows if r.status == "done"} == {"random"}
    assert report.counts() == {"done": 3, "queued": 3} and len(counting.ran) == 3

    free = Sweep.from_data({**SPEC, "worlds": ["automaton"], "spend_cap_usd": 0})
    report = run_sweep(free, tmp_path / "free", execute=Counting())
    assert not report.stopped_by_spend_cap and report.counts() == {"done": 6}


def test_resume_with_a_higher_cap_finishes_a_run_the_cap_stopped(tmp_path, capsys):
    spec = Sweep.from_data({**SPEC, "models": ["openai/gpt-4.1-mini"], "worlds": ["automaton"],
                            "spend_cap_usd": 0})
    assert run_sweep(spec, tmp_path, execute=Counting()).counts() == {"queued": 3}
    (stopped,) = resume(tmp_path, execute=Counting())   # the same cap stops it again
    assert stopped.stopped_by_spend_cap and stopped.counts() == {"queued": 3}
    def paid(job, spec, path, **kwargs):   # a model episode, without the model
        from llm_eval.sweep import JobOutcome

        return JobOutcome("done", score=0.5, raw_reward=0.5, cost_usd=0.01)

    (done,) = resume(tmp_path, spend_cap=1.0, execute=paid)
    assert not done.stopped_by_spend_cap and done.counts() == {"done": 3}
    assert done.run_id == stopped.run_id   # the same run, now with the new cap
    with RunStore(tmp_path / "run.sqlite") as store:
        (run,) = store.runs()
    assert run["spec"]["spend_cap_usd"] == 1.0


def test_the_command_line_runs_flags_and_resumes(tmp_path, capsys):
    run_dir = tmp_path / "run"
    code = main(["run", "--model", "random", "--model", "oracle", "--worlds", "automaton",
                 "--families", "mfp", "cd", "--interaction-steps", "5", "-o", str(run_dir)])
    out, err = capsys.readouterr()
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["job", "model", "task", "status", "score"]
    assert sum(1 for line in lines if " done " in line) == 4
    assert "4 jobs (4 done); ran 4, 0 already done" in out
    assert f"store: {run_dir / 'run.sqlite'}" in out and "transcripts: " in out
    assert len(transcript_files(run_dir / "transcripts")) == 4

    code = main(["run", "--resume", str(run_dir)])
    out, err = capsys.readouterr()
    assert code == 0 and out == f"every job in {run_dir} is done; nothing to resume\n"


def test_the_command_line_runs_a_yaml_spec(tmp_path, capsys):
    spec = tmp_path / "sweep.yaml"
    spec.write_text("models: [oracle]\nworlds: [hunters]\nfamilies: [mfp]\n"
                    "budgets: {interaction_steps: 3}\n")
    code = main(["run", str(spec), "-o", str(tmp_path / "run")])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "hunters-mfp" in out and "1.000" in out


@pytest.mark.parametrize("argv, message", [
    (["run", "--model", "randm", "--worlds", "automaton", "-o", "x"],
     "command line: models: unknown agent 'randm'"),
    (["run", "--model", "random", "--worlds", "automaton"], "-o RUN_DIR is required"),
    (["run", "-o", "x"], "give a SPEC.yaml, or --model and --worlds"),
    (["run", "--model", "random", "--worlds", "automaton", "--concurrency", "=3", "-o", "x"],
     "--concurrency: expected PROVIDER=N, got '=3'"),
    (["run", "--model", "random", "--worlds", "automaton", "--concurrency", "lcoal=3",
      "-o", "x"], "concurrency: no model of this sweep goes to provider 'lcoal'"),
    (["run", "--resume", "x", "--seeds", "5", "--families", "cd", "-o", "y"],
     "it takes no -o, --families, --seeds (only --spend-cap"),
])
def test_command_line_mistakes_are_one_line_errors(argv, message, capsys, tmp_path,
                                                   monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


@pytest.mark.parametrize("text, message", [
    ("models: [random]\nworlds: [automaton]\nrepeats: -1\n", "bad.yaml:3: repeats: "),
    ("models: [random]\nworlds: [automaton]\nmodels: [oracle]\n",
     "bad.yaml:3:1: not valid YAML: key 'models' given twice (first on line 1)"),
    ("models: [random]\nworlds: [automaton]\nseeds: [1, true]\n",
     "bad.yaml:3: seeds.1: Input should be a valid integer"),
    ("models: [random, openai-chat/m]\nworlds: [automaton]\nconcurrency: {openai: 2}\n",
     "bad.yaml:3: concurrency: no model of this sweep goes to provider 'openai' "
     "(its providers: local, openai-chat)"),
    ("models: [openai-chat/m]\nworlds: [automaton]\n"
     "adapter_options:\n  openai-chat/mm: {base_url: 'http://127.0.0.1:1'}\n",
     "bad.yaml:3: adapter_options: 'openai-chat/mm' is not one of the sweep's models; "
     "did you mean 'openai-chat/m'?"),
])
def test_a_spec_file_error_names_the_file_line_and_field(text, message, tmp_path, capsys):
    spec = tmp_path / "bad.yaml"
    spec.write_text(text)
    assert main(["run", str(spec), "-o", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_a_spec_file_that_is_not_utf8_is_one_error(tmp_path, capsys):
    spec = tmp_path / "latin.yaml"
    spec.write_bytes(b"models: [random]\nworlds: [caf\xe9]\n")
    assert main(["run", str(spec), "-o", str(tmp_path / "run")]) == 2
    assert "latin.yaml: not UTF-8 text (byte 29: b'\\xe9')" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_concurrent_episodes_match_serial_ones(first_run):
    """Episodes in worker threads give the results of the same episodes run one by one."""
    from llm_eval.agents import make_agent
    from llm_eval.sweep import Job
    from llm_eval.tasks.store import load_task
    from llm_eval.worldtest import run_episode

    run_dir, report, _ = first_run
    for row in report.rows:
        job = Job(row.id, row.settings)
        task = load_task(row.settings["world"], row.settings["family"])
        result = run_episode(task, make_agent(job.model, task, seed=job.agent_seed),
                             interaction_steps=row.settings["interaction_steps"])
        transcript = read_transcript(run_dir / row.transcript)
        assert [a.action for a in transcript.of_type("action")] == \
            [r.action for r in result.records], row.id
        assert (row.score, row.raw_reward) == (result.score, result.raw_reward)


def test_each_provider_has_its_own_limit(tmp_path):
    """Jobs run concurrently up to their provider's limit, never beyond it."""
    import time

    from llm_eval.sweep import JobOutcome

    running: dict[str, int] = {}
    peak: dict[str, int] = {}
    lock = threading.Lock()

    def execute(job, spec, path, **kwargs):
        with lock:
            running[job.provider] = running.get(job.provider, 0) + 1
            peak[job.provider] = max(peak.get(job.provider, 0), running[job.provider])
        time.sleep(0.05)
        with lock:
            running[job.provider] -= 1
        return JobOutcome("done", score=0.0, raw_reward=0.0)

    spec = Sweep.from_data({**SPEC, "models": ["random", "openai/gpt-5", "anthropic/x"],
                            "seeds": [1, 2, 3], "concurrency": {"openai": 2, "anthropic": 1},
                            "default_concurrency": 5})
    report = run_sweep(spec, tmp_path, execute=execute)
    assert report.counts() == {"done": len(report.rows)}
    assert peak == {"local": 5, "openai": 2, "anthropic": 1}


@pytest.mark.parametrize("name", ["t.jsonl", "t.jsonl.gz"])
def test_a_transcript_is_readable_while_its_episode_runs(tmp_path, name):
    """Flushed per event: the file holds every event written so far at any moment (gzip:
    each event ends with a sync flush, so the stream decodes up to it)."""
    from llm_eval.agents import make_agent
    from llm_eval.tasks.store import load_task
    from llm_eval.transcripts import EpisodeRecorder, Header, TranscriptWriter
    from llm_eval.worldtest import run_episode

    task = load_task("automaton", "cd")
    path = tmp_path / name
    seen: list[int] = []
    with TranscriptWriter(path) as writer:
        recorder = EpisodeRecorder(writer)
        writer.write(Header(job_id="j", settings={}, task_id=task.id, world=task.world,
                            family=task.family, seed=task.seed))

        def observer(kind, data):
            recorder.observer(kind, data)
            transcript = read_transcript(path)
            assert len(transcript.events) == writer.events and transcript.torn is None
            seen.append(writer.events)

        run_episode(task, make_agent("random", task, seed=2), interaction_steps=4,
                    observer=observer)
    assert seen == sorted(seen) and len(seen) > 10


def test_every_spec_setting_has_a_flag(tmp_path):
    """The flags build the spec the same YAML would."""
    import argparse

    from llm_eval.cli.run import _spec_from_flags, add_run_parser

    parser = argparse.ArgumentParser()
    add_run_parser(parser.add_subparsers())
    args = parser.parse_args([
        "run", "--model", "openai-chat/m", "--worlds", "automaton", "--families", "cd",
        "--seeds", "1", "2", "--repeats", "2", "--prompts", "default", "reflective",
        "--renderings", "compact", "--interaction-steps", "5", "--history", "full", "3",
        "--max-output-tokens", "100", "--tool-mode", "text", "--temperature", "0.5",
        "--model-seed", "7", "--concurrency", "openai-chat=2", "--spend-cap", "1.5",
        "-o", str(tmp_path)])
    spec = _spec_from_flags(args)
    assert spec == Sweep.from_data({
        "models": ["openai-chat/m"], "worlds": ["automaton"], "families": ["cd"],
        "seeds": [1, 2], "repeats": 2, "prompts": ["default", "reflective"],
        "renderings": ["compact"], "budgets": {"interaction_steps": [5], "history": ["full", 3],
                                               "max_output_tokens": [100]},
        "tool_mode": "text", "temperature": 0.5, "model_seed": 7,
        "concurrency": {"openai-chat": 2}, "spend_cap_usd": 1.5})
    assert {job.settings["model_seed"] for job in spec.expand()} == {7}


def test_the_job_table_names_each_arm(tmp_path):
    from types import SimpleNamespace

    from llm_eval.sweep import RunReport

    def row(job, prompt):
        return SimpleNamespace(id=job, status="done", score=0.5, settings={
            "model": "openai/m", "task": "easel-mfp", "prompt": prompt, "history": "full"})

    report = RunReport("r", tmp_path, tmp_path / "run.sqlite", tmp_path / "transcripts",
                       rows=[row("a1", "default"), row("b2", "reflective")])
    lines = format_report(report).splitlines()
    assert lines[1].split() == ["a1", "openai/m", "prompt=default", "easel-mfp", "done",
                                "0.500"]
    assert lines[2].split()[1:3] == ["openai/m", "prompt=reflective"]
