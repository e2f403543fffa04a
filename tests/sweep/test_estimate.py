"""``llm-eval run --estimate``: a sweep's calls, tokens and cost before it runs, offline.

The check the estimate lives by: a real run of the same sweep against a fake provider on
loopback that plays as the stand-in model does makes the same calls, and the tokens it bills
are counted by a real tokenizer, not by the estimator under test: OpenAI's ``o200k_base``
(GPT-4o and GPT-4.1's), loaded offline from the copy LiteLLM ships in its package. Measured on
these episodes (sparks, 25 interaction steps, the three families), the estimate's input is
13-17% above o200k's count (the estimator errs high, by design) and its output within 2%; the
bounds are: input and cost at least o200k's and at most 25% above it, output within 5%. An
estimator 2x off (or half) is far outside them (the test used to count the fake's tokens with
the estimator itself, so such an estimator passed).
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
from pathlib import Path

import pytest
from cache_billing import REPLY_TEXT, chat_responder, standin_action
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


@functools.cache
def o200k():
    """OpenAI's o200k_base encoding from LiteLLM's package (tiktoken's cache names each file by
    the sha1 of its URL; tiktoken checks the file's sha256); a download is refused."""
    import tiktoken
    import tiktoken.load

    folder = Path(importlib.util.find_spec("litellm").origin).parent / "litellm_core_utils" \
        / "tokenizers"
    assert (folder / "fb374d419588a4632f3f557e76b4b70aebbca790").is_file(), folder
    saved = os.environ.get("TIKTOKEN_CACHE_DIR"), tiktoken.load.read_file

    def no_download(url):
        raise AssertionError(f"tiktoken tried to download {url}")

    os.environ["TIKTOKEN_CACHE_DIR"] = str(folder)
    tiktoken.load.read_file = no_download
    try:
        return tiktoken.get_encoding("o200k_base")
    finally:
        tiktoken.load.read_file = saved[1]
        if saved[0] is None:
            del os.environ["TIKTOKEN_CACHE_DIR"]
        else:
            os.environ["TIKTOKEN_CACHE_DIR"] = saved[0]


@functools.lru_cache(maxsize=None)
def real_tokens(text: str) -> int:
    """o200k's count of ``text`` (kept: each call of an episode sends its whole history
    again, and the count of a text never changes)."""
    return len(o200k().encode(text, disallowed_special=()))


def o200k_prompt_tokens(body: dict) -> int:
    """A Chat Completions request's prompt as o200k counts it: each tool's function as JSON,
    each message's text and tool calls, and 3 tokens a message and 3 for the reply's start
    (OpenAI's published framing of a chat)."""
    total = 3 + sum(real_tokens(json.dumps(t["function"])) for t in body.get("tools", []))
    for message in body["messages"]:
        content = message.get("content") or ""
        if isinstance(content, list):
            content = "\n\n".join(p.get("text", "") for p in content)
        total += 3 + real_tokens(content)
        for call in message.get("tool_calls", ()):
            total += real_tokens(call["function"]["name"]) + \
                real_tokens(call["function"]["arguments"])
    return total


def o200k_responder(path: str, body) -> tuple[int, dict]:
    """The stand-in's action (``cache_billing.standin_action``), billed by o200k's count."""
    turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
    name, args = standin_action(body.get("tools", []), turn)
    arguments = json.dumps(args)
    prompt = o200k_prompt_tokens(body)
    completion = real_tokens(REPLY_TEXT) + real_tokens(name) + real_tokens(arguments)
    return 200, {
        "id": f"chatcmpl-{turn}", "object": "chat.completion", "created": 1764720000,
        "model": body["model"],
        "choices": [{"index": 0, "logprobs": None, "finish_reason": "tool_calls",
                     "message": {"role": "assistant", "content": REPLY_TEXT,
                                 "tool_calls": [{"id": f"call_{turn}", "type": "function",
                                                 "function": {"name": name,
                                                              "arguments": arguments}}]}}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                  "total_tokens": prompt + completion}}


def test_the_tokenizer_is_the_real_one():
    """o200k as published: what the bounds below are measured against."""
    assert o200k().name == "o200k_base" and o200k().n_vocab == 200_019
    assert real_tokens("hello world") == 2 and real_tokens(" step" * 40) == 40


def test_the_estimate_errs_high_by_at_most_25_percent_of_a_real_tokenizers_count(tmp_path):
    with FakeProvider(responder=o200k_responder, keep_bodies=False) as fake:
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
        usage, family = real[job_id].usage, real[job_id].settings["family"]
        assert estimate.calls == usage["calls"]            # the same episodes, call for call
        ratios = {"input": estimate.input_tokens / usage["input_tokens"],
                  "usd": estimate.usd / real[job_id].cost_usd}
        for name, ratio in ratios.items():
            assert 1.0 <= ratio <= 1.25, f"{family}: {name} estimated {ratio:.3f}x o200k's"
        assert estimate.output_tokens == pytest.approx(usage["output_tokens"], rel=0.05)
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
