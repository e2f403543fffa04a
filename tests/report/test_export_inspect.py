"""``llm-eval export inspect``: each arm as an inspect_ai log, read back with inspect_ai's own
reader: one sample per episode with its messages, tool calls, score and usage."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from llm_eval.cli import main

pytest.importorskip("inspect_ai")

from inspect_ai.log import read_eval_log  # noqa: E402

from llm_eval.analysis.data import load_episodes  # noqa: E402
from llm_eval.transcripts import TranscriptStream  # noqa: E402


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    from llm_eval.demo import recorded_transcripts
    from llm_eval.replay import run_recorded
    from llm_eval.sweep import Sweep, run_sweep

    run_dir = tmp_path_factory.mktemp("inspect-run")
    run_sweep(Sweep.from_data({"models": ["random", "oracle"], "worlds": ["warehouse"],
                               "families": ["mfp", "cd"], "seeds": [1, 2]}, "test"), run_dir)
    run_recorded(recorded_transcripts()[0], run_dir)
    return run_dir


def test_each_arm_is_a_log_with_one_sample_per_episode(run, tmp_path, capsys):
    assert main(["export", "inspect", str(run), "-o", str(tmp_path / "logs")]) == 0
    assert "3 inspect_ai log(s) written" in capsys.readouterr().out
    episodes = {e.job_id: e for e in load_episodes([run])}
    logs = {read_eval_log(str(p)).eval.model: read_eval_log(str(p))
            for p in sorted((tmp_path / "logs").glob("*.eval"))}
    assert set(logs) == {"random", "oracle", "litellm/openai/smollm2-135m"}
    for model, log in logs.items():
        mine = {j for j, e in episodes.items() if e.model == model}
        assert {s.id for s in log.samples} == mine
        for sample in log.samples:
            assert sample.scores["worldtest"].value == episodes[sample.id].score
            assert sample.epoch == 1 and sample.error is None
        done = [episodes[s.id].score for s in log.samples]
        assert log.results.scores[0].metrics["mean"].value == pytest.approx(sum(done) / len(done))
        assert log.status == "success"


def test_a_model_episode_keeps_its_messages_tool_calls_and_usage(run, tmp_path):
    from llm_eval.report.export_inspect import export_inspect

    paths = export_inspect(run, tmp_path / "logs")
    log = next(read_eval_log(str(p)) for p in paths if "smollm2" in p.name)
    (sample,) = log.samples
    episode = load_episodes([run])
    episode = next(e for e in episode if e.job_id == sample.id)
    calls = [e for e in TranscriptStream(episode.transcript) if e.type == "model_call"]
    roles = [m.role for m in sample.messages]
    assert roles[0] == "system" and roles.count("assistant") == len(calls)
    assistants = [m for m in sample.messages if m.role == "assistant"]
    assert [[c.function for c in (m.tool_calls or [])] for m in assistants] == \
        [[c["name"] for c in call.response["tool_calls"]] for call in calls]
    tools = [m for m in sample.messages if m.role == "tool"]
    assert tools and all(m.content.startswith("action: ") for m in tools)
    usage = sample.model_usage[episode.model]
    assert usage.input_tokens == episode.usage["input_tokens"] > 0
    assert usage.output_tokens == episode.usage["output_tokens"]
    assert sample.scores["worldtest"].metadata["raw_reward"] is not None
    assert log.eval.metadata["model_snapshot"] == {"smollm2-135m": len(calls)}


def test_an_episode_not_done_is_an_unscored_sample_with_its_error(hostile_run, tmp_path):
    from llm_eval.report.export_inspect import export_inspect

    logs = [read_eval_log(str(p)) for p in export_inspect(hostile_run, tmp_path / "logs")]
    samples = {s.id: s for log in logs for s in log.samples}
    assert set(samples) == {"a1", "b2", "c3"}
    assert samples["a1"].scores["worldtest"].value == 0.5
    for job in ("b2", "c3"):
        assert samples[job].scores is None and "not scored" in samples[job].error.message
    assert all(log.status == "error" for log in logs if any(
        s.id in ("b2", "c3") for s in log.samples))


def test_without_inspect_ai_the_command_says_how_to_install_it(run, tmp_path, monkeypatch,
                                                                 capsys):
    monkeypatch.setitem(sys.modules, "inspect_ai", None)
    assert main(["export", "inspect", str(run), "-o", str(tmp_path / "logs")]) == 2
    assert "pip install 'llm-eval[inspect]'" in capsys.readouterr().err
    assert not (tmp_path / "logs").exists()


def test_inspect_view_serves_the_log_and_shows_a_samples_messages(run, tmp_path):
    """``inspect view`` (inspect_ai's own viewer) opens the exported log: in headless
    chromium the model episode's sample shows its system prompt and tool answers."""
    import shutil
    import socket
    import subprocess
    import time
    import urllib.request

    from report_fixtures import CHROMIUM

    from llm_eval.report.export_inspect import export_inspect

    playwright = pytest.importorskip("playwright.sync_api")
    inspect_bin = shutil.which("inspect")
    if CHROMIUM is None or inspect_bin is None:
        pytest.skip("needs chromium and inspect_ai's inspect command")
    paths = export_inspect(run, tmp_path / "logs")
    name = next(p.name for p in paths if "smollm2" in p.name)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([inspect_bin, "view", "--log-dir", str(tmp_path / "logs"),
                               "--port", str(port)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        for _ in range(150):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/logs", timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        with playwright.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = browser.new_page()
            page.goto(f"http://127.0.0.1:{port}/#/logs/{name}", wait_until="networkidle")
            page.get_by_text("You are an agent exploring").first.wait_for(timeout=30000)
            text = page.inner_text("body")
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert "warehouse-planning seed 1" in text and "action: click" in text
