"""Sweeps on Ray (``executor: ray``): the same job ids, run id, scores and transcripts as the
local executor; a Ray worker killed mid-episode reruns its job once more, its partial
transcript kept under attempts/, even with every core busy (a restarting episode host is
waited for, not counted as a lost worker); the spend cap is counted across the cluster;
replay and a second run work on a run made by Ray. One local Ray cluster (2 CPUs) serves
every test of this file: they share an xdist worker under the default tier's ``--dist
loadfile`` and, as the group ``ray``, under the slow tier's ``--dist loadgroup`` (CI). The two
worker-kill tests (two of the default tier's longest, a CPU hog each) are in the slow tier."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'llm-eval[ray]')")

from fake_provider import FakeProvider  # noqa: E402  (tests/sweep/conftest.py)
from scripts import REPO, load_script  # noqa: E402
from test_llm_jobs import MODEL, SECRET, reference_actions, reply  # noqa: E402
from test_processes import CpuHog, StopAfterFirst  # noqa: E402
from tiers import slow  # noqa: E402

from llm_eval.replay import compare_transcripts, replay_check, replay_checks  # noqa: E402
from llm_eval.runstore import RunStore  # noqa: E402
from llm_eval.sweep import SpecError, Sweep, resume, run_sweep  # noqa: E402
from llm_eval.transcripts import read_transcript, transcript_files  # noqa: E402

# one worker for the whole file in either tier: one cluster, never two CPU hogs at once
pytestmark = pytest.mark.xdist_group("ray")

SPEC = {"models": ["random", "oracle"], "worlds": ["automaton", "hunters"],
        "families": ["mfp", "cd", "planning"], "seeds": [1],
        "budgets": {"interaction_steps": 5}}


@pytest.fixture(scope="module")
def ray_cluster():
    """A local Ray cluster for this file's tests (no other file uses one), shut down when the
    last of them ends: an idle cluster (raylet, GCS, two workers) still took 1.1 s of CPU in
    30 s here, taken from the tests that run after it on two cores. Its workers get their environment from this
    process as it is now (as on a real cluster they get that of ``ray start``): no real
    provider key, a fake OpenAI one for the fake provider, LiteLLM kept offline."""
    from llm_eval.adapters.classify import SECRET_ENV_VARS

    saved = {name: os.environ.pop(name) for name in SECRET_ENV_VARS if name in os.environ}
    os.environ["OPENAI_API_KEY"] = SECRET
    try:
        ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING")
    finally:
        os.environ.pop("OPENAI_API_KEY", None)
        os.environ.update(saved)
    yield ray
    ray.shutdown()


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    """The reference: SPEC run by the local executor."""
    run_dir = tmp_path_factory.mktemp("local")
    return run_dir, run_sweep(Sweep.from_data(SPEC, "test"), run_dir)


def _scores(report) -> dict[str, tuple[str, str, str]]:
    """Every job's status, score and raw reward, floats as their exact hex."""
    return {r.id: (r.status, float(r.score).hex(), float(r.raw_reward).hex())
            for r in report.rows}


def _same_transcripts(expected_dir: Path, got_dir: Path, report) -> None:
    for row in report.rows:
        assert compare_transcripts(expected_dir / row.transcript, got_dir / row.transcript) \
            == "", row.id


def test_a_sweep_on_ray_equals_the_local_executor(tmp_path, ray_cluster, local_run):
    local_dir, local = local_run
    spec = Sweep.from_data({**SPEC, "executor": "ray"}, "test")
    assert [j.id for j in spec.expand()] == [j.id for j in Sweep.from_data(SPEC).expand()]
    report = run_sweep(spec, tmp_path)
    assert report.run_id == local.run_id and report.processes == 0 and not report.lost
    assert len(report.rows) == 12 and report.counts() == {"done": 12}, \
        [r.error for r in report.rows if r.status != "done"][:1]
    assert _scores(report) == _scores(local)
    _same_transcripts(local_dir, tmp_path, report)
    results = [replay_check(path, row) for path, row in replay_checks(tmp_path)]
    assert len(results) == 12 and all(r.reproduced for r in results), \
        [r.line() for r in results if not r.reproduced]
    again = run_sweep(spec, tmp_path)   # as --resume would: every job done, none run
    assert again.run_id == report.run_id and not again.executed and len(again.skipped) == 12


def test_a_stop_reaches_episodes_on_ray_workers_and_resume_finishes_here(tmp_path,
                                                                          ray_cluster):
    spec = Sweep.from_data({**SPEC, "executor": "ray", "budgets": {"interaction_steps": 1000}},
                           "test")
    stop = threading.Event()
    report = run_sweep(spec, tmp_path, stop=stop, progress=StopAfterFirst(stop))
    counts = report.counts()
    assert report.stopped_by_user and counts.get("running", 0) == 0 and counts["queued"] > 0
    assert report.interrupted, [(r.settings["task"], r.status, r.error) for r in report.rows]
    for row in report.rows:
        if row.id in report.interrupted:
            assert read_transcript(tmp_path / row.transcript).events[-1].status == \
                "interrupted"
    # --resume DIR --executor local: the run Ray started, finished here
    (finished,) = resume(tmp_path, executor="local")
    assert finished.run_id == report.run_id and finished.counts() == {"done": 12}
    with RunStore(tmp_path / "run.sqlite", readonly=True) as store:
        assert store.runs()[0]["spec"]["executor"] == "local"
    attempts = {p.name.split(".")[0] for p in
                transcript_files(tmp_path / "transcripts" / "attempts")}
    assert attempts == set(report.interrupted)


def _titles() -> dict[int, bytes]:
    """The command line of every process this test session started, however deep (Ray
    titles its workers after the running task); another session's Ray workers on the same
    machine are not ours to kill."""
    parents, titles = {}, {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
                parents[int(entry)] = int(stat[stat.rindex(")") + 2:].split()[1])
                titles[int(entry)] = Path(f"/proc/{entry}/cmdline").read_bytes()
            except (OSError, ValueError, IndexError):
                continue
    ours = {os.getpid()}
    grew = True
    while grew:
        grew = False
        for pid, parent in parents.items():
            if parent in ours and pid not in ours:
                ours.add(pid)
                grew = True
    return {pid: title for pid, title in titles.items() if pid in ours and pid != os.getpid()}


def _episodes_under_way(transcripts: Path) -> list[Path]:
    """Transcripts with a header and no ``end`` yet."""
    found = []
    for path in transcripts.glob("*.jsonl.gz"):
        try:
            events = read_transcript(path).events
        except Exception:   # being written: a torn gzip member
            continue
        if events and not any(e.type == "end" for e in events):
            found.append(path)
    return found


def _host_pids() -> set[int]:
    """The processes of this session's episode hosts (Ray actors playing model jobs)."""
    return {pid for pid, title in _titles().items() if title.startswith(b"ray::EpisodeHost")}


# a bound on a stuck test only: the CPU hog is over by then (it lasts while a lost job or a
# restarting host is taken over, not the rest of the sweep, which on a slow CI machine under a
# hog took more than 240 s)
JOIN_S = 600
RESTART_S = 180


def _until(condition, runner: threading.Thread) -> None:
    """Polls ``condition`` until it holds, the sweep ends or RESTART_S pass (the assertions
    after it say what went wrong)."""
    deadline = time.monotonic() + RESTART_S
    while runner.is_alive() and time.monotonic() < deadline and not condition():
        time.sleep(0.05)


def _sent_again(transcripts: Path) -> bool:
    """Whether a lost job has begun again (its first transcript moved under attempts/)."""
    attempts = transcripts / "attempts"
    return attempts.is_dir() and any(attempts.iterdir())


def _play_job_pids() -> set[int]:
    """Ray worker processes playing a local agent's job now."""
    return {pid for pid, title in _titles().items() if title.startswith(b"ray::play_job")}


@slow
@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs Linux /proc")
def test_a_ray_worker_killed_mid_episode_reruns_its_job_once(tmp_path, ray_cluster,
                                                             local_run):
    local_dir, local = local_run
    spec = Sweep.from_data({**SPEC, "executor": "ray"}, "test")
    killed: list[int] = []
    result: dict = {}
    runner = threading.Thread(target=lambda: result.setdefault("report",
                                                               run_sweep(spec, tmp_path)))
    with CpuHog():   # the machine fully loaded while the job is lost and sent again
        runner.start()
        deadline = time.monotonic() + 60
        while not killed and time.monotonic() < deadline and runner.is_alive():
            playing = _play_job_pids()
            # every worker playing a job is into its episode: as many transcripts begun,
            # not ended
            if playing and len(_episodes_under_way(tmp_path / "transcripts")) >= len(playing):
                for pid in sorted(playing & _play_job_pids())[:1]:
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
            time.sleep(0.02)
        _until(lambda: _sent_again(tmp_path / "transcripts"), runner)
    runner.join(timeout=JOIN_S)
    assert killed and not runner.is_alive()
    report = result["report"]
    assert report.counts() == {"done": 12}, [r.error for r in report.rows][:3]
    assert len(report.lost) == 1, report.lost
    (lost,) = report.lost
    with RunStore(tmp_path / "run.sqlite", readonly=True) as store:
        executions = {r.id: r.executions for r in store.jobs(report.run_id)}
    assert executions == {r.id: 2 if r.id == lost else 1 for r in report.rows}
    assert _scores(report) == _scores(local)   # every job done once, as the local run did
    _same_transcripts(local_dir, tmp_path, report)
    attempts = transcript_files(tmp_path / "transcripts" / "attempts")
    assert [p.name.split(".")[:2] for p in attempts] == [[lost, "1"]]
    partial = read_transcript(attempts[0])   # a torn last line is allowed here
    assert partial.events and partial.events[0].type == "header"
    assert not any(e.type == "end" for e in partial.events)   # cut mid-episode


def _fake_server_module():
    """benchmarks/scheduler.py: its loopback fake provider answers each request with a legal
    action chosen from the request alone (so concurrent episodes replay the same), after a
    set latency."""
    return load_script(REPO / "benchmarks" / "scheduler.py", "scheduler_bench")


@slow
@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs Linux /proc")
def test_an_episode_host_killed_mid_episode_reruns_its_model_jobs(tmp_path, ray_cluster):
    bench = _fake_server_module()
    with bench.FakeServer(latency=0.02) as server:
        local_spec = bench.sweep_spec(server.base_url, 6, 6)
        local = run_sweep(local_spec, tmp_path / "local")
        spec = Sweep.from_data({**local_spec.canonical(), "executor": "ray"}, "test")
        result: dict = {}
        runner = threading.Thread(target=lambda: result.setdefault(
            "report", run_sweep(spec, tmp_path / "ray")))
        server.hold(8)   # a call some turns into the episodes: it waits until released
        runner.start()
        server.held()    # ... and has arrived: the host is mid-episode, its call in flight
        hosts = _host_pids()
        killed = sorted(hosts)[:1]
        with CpuHog():   # every core busy while the host restarts: it is waited for
            os.kill(killed[0], signal.SIGKILL)
            server.release()
            _until(lambda: _host_pids() - hosts and _sent_again(tmp_path / "ray" / "transcripts"),
                   runner)   # the host's new process is up, a lost job sent to it again
        runner.join(timeout=JOIN_S)
    assert killed and not runner.is_alive()
    report = result["report"]
    assert report.counts() == {"done": 6}, [r.error for r in report.rows][:3]
    assert report.lost, "no episode was in flight on the killed host"
    assert {r.id: (r.score, r.raw_reward) for r in report.rows} == \
        {r.id: (r.score, r.raw_reward) for r in local.rows}
    with RunStore(tmp_path / "ray" / "run.sqlite", readonly=True) as store:
        executions = {r.id: r.executions for r in store.jobs(report.run_id)}
    assert executions == {r.id: 2 if r.id in report.lost else 1 for r in report.rows}
    attempts = transcript_files(tmp_path / "ray" / "transcripts" / "attempts")
    assert sorted(p.name.split(".")[0] for p in attempts) == sorted(report.lost)
    for row in report.rows:   # the fake's replies carry a serial number: compare the play
        assert _plays(tmp_path / "ray" / row.transcript) == \
            _plays(tmp_path / "local" / row.transcript), row.id


def _plays(path: Path) -> list[tuple]:
    """A transcript's observations and actions, in order."""
    return [(e.phase, e.action, e.valid) if e.type == "action" else (e.phase, e.observation)
            for e in read_transcript(path).events if e.type in ("action", "observation")]


def _capped(fake: FakeProvider, cap: float, seeds: list[int]) -> Sweep:
    return Sweep.from_data({
        "models": [MODEL], "worlds": ["hunters"], "families": ["mfp"], "seeds": seeds,
        "spend_cap_usd": cap, "executor": "ray", "concurrency": {"openai-chat": 2},
        "calls": {"max_attempts": 1, "timeout": 20},
        "adapter_options": {MODEL: {"base_url": fake.base_url + "/v1", "timeout": 2.0}}})


def test_a_calls_cost_is_counted_before_the_workers_next_question(ray_cluster):
    """A worker reports each model call's cost to the run's control and asks it before the
    next call whether to stop. Ray does not promise to run an async actor's calls in the
    order one caller sent them: here the control takes half a second to count a report, so a
    question sent without waiting for the report would be answered before the call is
    counted, and a second call would go out past the cap (as it once did on a loaded
    machine)."""
    import asyncio
    from types import SimpleNamespace

    from llm_eval.sweep.ray_executor import RunControl, play_job
    from llm_eval.sweep.spend import spend_cap_reached

    class SlowToCount(RunControl):
        async def record(self, job: str, usd: float) -> None:
            await asyncio.sleep(0.5)
            await super().record(job, usd)

    control = ray_cluster.remote(SlowToCount).options(
        num_cpus=0, max_concurrency=10_000).remote(0.0, 0.001)
    answers = []

    def execute(job, spec, transcript, *, run_id, stop, on_call):
        assert stop() is None                        # nothing spent yet
        on_call({"cost": {"usd": 0.002}})            # a call that costs more than the cap
        answers.append(stop())                       # asked before the next call
        return "done"

    try:
        assert play_job(SimpleNamespace(id="job-1"), None, "unused", "run", control, "token",
                        True, execute) == "done"
    finally:
        ray_cluster.kill(control)    # the session's cluster keeps no actor of this test
    assert answers == [spend_cap_reached(0.001)]


def test_the_spend_cap_holds_across_the_cluster(tmp_path, ray_cluster):
    actions = reference_actions("hunters", "mfp")
    with FakeProvider() as fake:
        for i, action in enumerate(actions * 2):
            fake.reply(reply(i, action))
        # one call (900 tokens in, 40 out at gpt-4.1-mini prices) costs more than the cap
        report = run_sweep(_capped(fake, 0.0001, [1]), tmp_path / "one")
        assert len(fake.seen) == 1   # the call in flight finished; the worker asked first
    (row,) = report.rows
    assert report.stopped_by_spend_cap and report.interrupted == [row.id]
    assert row.status == "queued" and "spend cap" in row.error
    assert row.spent_usd == row.cost_usd > 0.0001
    call = row.cost_usd

    # two episodes on two workers: the cap is one and a half calls, so the cluster stops
    # after two or three calls (those in flight finish); counted per worker, each episode
    # would make two calls before its own spend reached the cap (four)
    with FakeProvider() as fake:
        for i, action in enumerate(actions * 2):
            fake.reply(reply(i, action))
        report = run_sweep(_capped(fake, 1.5 * call, [1, 2]), tmp_path / "two")
        calls = len(fake.seen)
    assert report.stopped_by_spend_cap and 2 <= calls <= 3, calls
    assert {r.status for r in report.rows} == {"queued"}
    with RunStore(tmp_path / "two" / "run.sqlite", readonly=True) as store:
        assert abs(store.total_cost(report.run_id) - calls * call) < 1e-9


def test_no_key_reaches_the_ray_logs(ray_cluster):
    """The fake key is in the workers' environment (the fake provider got it) but in no
    file of the Ray session's logs (task arguments, worker output)."""
    from ray._private.worker import global_worker

    logs = Path(global_worker.node.get_session_dir_path()) / "logs"
    assert logs.is_dir()
    for path in logs.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path


def test_ray_settings_are_checked(monkeypatch, tmp_path, capsys, ray_cluster):
    with pytest.raises(SpecError, match="ray_address: only with executor: ray"):
        Sweep.from_data({**SPEC, "ray_address": "10.0.0.5:6379"}, "test")
    from llm_eval.sweep.ray_executor import _check_reachable

    with pytest.raises(SpecError, match=r"ray_address 'nowhere' \(--ray-address\): expected"):
        _check_reachable("nowhere")
    with pytest.raises(SpecError, match="nothing answers at 127.0.0.1:1"):
        _check_reachable("127.0.0.1:1")
    from llm_eval.cli import main

    assert main(["run", "--model", "random", "--worlds", "hunters", "--ray-address",
                 "10.0.0.5:6379", "-o", str(tmp_path / "flags")]) == 2
    assert "ray_address: only with executor: ray" in capsys.readouterr().err
    assert main(["run", "--model", "random", "--worlds", "hunters", "--executor", "ray",
                 "--ray-address", "127.0.0.1:1", "-o", str(tmp_path / "flags")]) == 2
    assert "(--ray-address): this process has already joined" in capsys.readouterr().err
    monkeypatch.setitem(__import__("sys").modules, "ray", None)   # as if not installed
    with pytest.raises(SpecError, match=r"Ray is not installed.*llm-eval\[ray\]"):
        run_sweep(Sweep.from_data({**SPEC, "executor": "ray"}, "test"), tmp_path)
    assert not (tmp_path / "run.sqlite").exists()   # refused before anything was written
