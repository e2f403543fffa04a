"""``llm-eval run --estimate``: a sweep's calls, tokens and cost before it runs, offline.

The check the estimate lives by: a real run of the same sweep against a fake provider on
loopback that plays as the stand-in model does and counts prompt tokens on the wire makes the
same calls, and its input and output tokens and its cost are within 5% of the estimate's.
"""

from __future__ import annotations

import json

import pytest
from cache_billing import chat_responder
from fake_provider import FakeProvider

from llm_eval.cli import main
from llm_eval.runstore import RunStore
from llm_eval.sweep import Sweep, run_sweep
from llm_eval.sweep.estimate import estimate_job, estimate_sweep, format_estimate
from llm_eval.sweep.spec import SpecError
from llm_eval.transcripts import read_transcript

MODEL = "openai-chat/fake-model"
PRICES = {"models": {MODEL: {"input": 2.0, "output": 8.0, "cache_read": 0.5}}}


def spec_for(base_url: str, **extra) -> Sweep:
    return Sweep.from_data({
        "models": [MODEL, "random"], "worlds": ["sparks"],
        "budgets": {"interaction_steps": [25]}, "seeds": [1], "prices": PRICES,
        "calls": {"max_attempts": 1, "timeout": 30},
        "adapter_options": {MODEL: {"base_url": base_url + "/v1", "api_key": "not-needed"}},
        **extra}, "test")


def test_the_estimate_is_within_5_percent_of_a_real_run(tmp_path):
    with FakeProvider(responder=chat_responder, keep_bodies=False) as fake:
        spec = spec_for(fake.base_url)
        report = run_sweep(spec, tmp_path / "run", processes=0)
    assert all(row.status == "done" for row in report.rows)
    with RunStore(report.store_path) as store:
        real = {row.id: row for row in store.jobs(report.run_id)
                if row.settings["model"] == MODEL}
    arms, local = estimate_sweep(spec, reply_tokens=40, processes=1)
    assert local == 3 and [arm.arm for arm in arms] == [MODEL]
    estimates = {e.job_id: e for e in arms[0].jobs}
    assert set(estimates) == set(real) and len(real) == 3
    for job_id, estimate in estimates.items():
        usage = real[job_id].usage
        assert estimate.calls == usage["calls"]            # the same episodes, call for call
        for name in ("input_tokens", "output_tokens"):
            assert getattr(estimate, name) == pytest.approx(usage[name], rel=0.05), name
        assert estimate.usd == pytest.approx(real[job_id].cost_usd, rel=0.05)
    # the figures do not depend on how many processes computed them
    again, _ = estimate_sweep(spec, reply_tokens=40, processes=2)
    assert [e for arm in again for e in arm.jobs] == list(estimates.values())
    table = format_estimate(arms, local, 40)
    assert MODEL in table and "3 jobs of local agents" in table


def test_caching_is_priced_apart_and_off_costs_what_no_cache_costs():
    """Claude: the estimate reads most of a full-history episode's input from the cache and
    prices it below the uncached figure; ``cache: off`` reads nothing and costs exactly it."""
    data = {"models": ["anthropic/claude-sonnet-4-5"], "worlds": ["sparks"],
            "families": ["planning"], "budgets": {"interaction_steps": [60]}}
    (arm,), _ = estimate_sweep(Sweep.from_data(data), reply_tokens=40, processes=1)
    (off,), _ = estimate_sweep(Sweep.from_data({**data, "cache": "off"}), reply_tokens=40,
                               processes=1)
    assert arm.cached_share > 0.8 and off.cached_share == 0
    assert arm.total("usd") < arm.total("uncached_usd") / 3
    assert off.total("usd") == pytest.approx(off.total("uncached_usd"))
    assert off.total("uncached_usd") == pytest.approx(arm.total("uncached_usd"))


def test_history_auto_takes_its_window_into_the_jobs_settings():
    spec = Sweep.from_data({"models": ["anthropic/claude-sonnet-4-5"], "worlds": ["sparks"],
                            "families": ["planning"], "budgets": {"history": ["auto", "full"]}})
    windows = {job.settings["history"]: job.settings.get("context_window")
               for job in spec.expand()}
    assert windows == {"auto": 200_000, "full": None}   # full keeps the ids it had
    local = Sweep.from_data({"models": [MODEL], "worlds": ["sparks"], "families": ["mfp"],
                             "budgets": {"history": "auto"}, "context_window": 8192})
    assert local.expand()[0].settings["context_window"] == 8192
    with pytest.raises(SpecError, match="context-window N"):
        Sweep.from_data({"models": [MODEL], "worlds": ["sparks"], "families": ["mfp"],
                         "budgets": {"history": "auto"}}).expand()


def test_a_context_window_the_estimate_outgrows_ends_the_episode_there():
    spec = Sweep.from_data({"models": ["anthropic/claude-sonnet-4-5"], "worlds": ["sparks"],
                            "families": ["planning"], "context_window": 4096,
                            "budgets": {"interaction_steps": [80]}})
    (arm,), _ = estimate_sweep(spec, reply_tokens=40, processes=1)
    assert arm.jobs[0].ended == "context" and arm.jobs[0].calls < 80
    assert "1 episodes outgrew" in format_estimate([arm], 0, 40)


def test_the_header_records_the_cache_setting(tmp_path):
    with FakeProvider(responder=chat_responder, keep_bodies=False) as fake:
        spec = spec_for(fake.base_url, families=["planning"], cache="off")
        report = run_sweep(spec, tmp_path, processes=0)
    headers = {r.settings["model"]: read_transcript(tmp_path / r.transcript).header
               for r in report.rows}
    assert headers[MODEL].cache == {"setting": "off", "route": "none", "prefix": "whole"}
    assert headers["random"].cache is None


def test_the_command_prints_the_estimate_and_writes_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = main(["run", "--model", "anthropic/claude-sonnet-4-5", "--model", "openai/gpt-4.1",
                 "--worlds", "sparks", "--families", "planning", "--interaction-steps", "30",
                 "--estimate", "--estimate-reply-tokens", "100", "--processes", "1"])
    out = capsys.readouterr().out
    assert code == 0 and list(tmp_path.iterdir()) == []
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["arm", "jobs", "calls"]
    claude = next(line for line in lines if line.startswith("anthropic/claude-sonnet-4-5"))
    assert claude.split()[1] == "1" and "$" in claude
    assert any(line.startswith("total") for line in lines)
    assert "replying 100 tokens" in out
    code = main(["run", "--resume", str(tmp_path), "--estimate"])
    assert code == 2 and "not --resume" in capsys.readouterr().err


def test_spec_settings_reach_the_estimate_from_a_file(tmp_path, capsys):
    path = tmp_path / "sweep.yaml"
    path.write_text(json.dumps({"models": ["anthropic/claude-sonnet-4-5"],
                                "worlds": ["sparks"], "families": ["mfp"],
                                "budgets": {"interaction_steps": [5]}}))
    assert main(["run", str(path), "--estimate", "--processes", "1"]) == 0
    assert "anthropic/claude-sonnet-4-5" in capsys.readouterr().out


def test_seeds_and_repeats_of_a_task_are_played_once_and_each_job_gets_the_figures():
    """The stand-in does not sample, so the seeds and repeats of a task are one episode: each
    job's figures equal its own episode's, played alone."""
    spec = Sweep.from_data({"models": ["anthropic/claude-sonnet-4-5"], "worlds": ["easel"],
                            "families": ["mfp", "planning"], "seeds": [1, 2], "repeats": 2,
                            "budgets": {"interaction_steps": [15]}})
    (arm,), _ = estimate_sweep(spec, reply_tokens=40, processes=1)
    jobs = spec.expand()
    assert [e.job_id for e in arm.jobs] == [j.id for j in jobs] and len(jobs) == 8
    for job, estimate in zip(jobs, arm.jobs):
        assert estimate == estimate_job(job, spec, 40)
