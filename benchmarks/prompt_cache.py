"""What prompt caching saves, what ``--estimate`` says a sweep costs and how fast it says it,
and how close the estimate comes to a real run (issue 23).

Four sections, each printed as it finishes:

- ``episode``: ``--estimate`` of one ``sparks`` planning episode with the default 200
  interaction steps and full history, on Claude Sonnet 4.5 and GPT-4.1 prices, the model
  replying 40 and 300 tokens a call: calls, input tokens, the share read from the cache, and
  the cost with and without caching.
- ``sweep``: the estimate of the demo's six worlds x 3 families x 3 seeds for those two
  models (108 model jobs, default budgets), timed: the table ``llm-eval run --estimate``
  prints, and its wall time; then the time of 108 jobs that are all different episodes
  (36 worlds x 3 families; the stand-in plays the seeds of a task once).
- ``fake``: the same 200-step episode on the real Anthropic adapter against a loopback fake
  server that bills cache reads and writes by prefix as the API documents (its own token
  count, not llm-eval's): the priced input with ``cache: auto`` and ``cache: off`` and their
  ratio.
- ``check``: a real run of three 25-step ``sparks`` jobs on the OpenAI Chat route against a
  loopback fake that plays as the stand-in does and counts prompt tokens on the wire, against
  the estimate of the same jobs: the largest relative difference in input tokens, output
  tokens and cost.

    python benchmarks/prompt_cache.py                  # every section (about 2 minutes)
    python benchmarks/prompt_cache.py --only episode --only fake
    python benchmarks/prompt_cache.py --steps 60       # shorter episodes
    python benchmarks/prompt_cache.py --json

The exit status is 1 when caching saves less than 5x of the fake's priced input at 200 steps,
the estimate differs from the real run by more than 5%, or the sweep's estimate takes a minute
or more.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT, ROOT / "tests" / "adapters"):   # the loopback fakes live with the tests
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

MODELS = ("anthropic/claude-sonnet-4-5", "openai/gpt-4.1")
DEMO_WORLDS = ("warehouse", "easel", "icepond", "hunters", "magnets", "sparks")
SECTIONS = ("episode", "sweep", "fake", "check")


def episode_section(steps: int) -> list[dict]:
    from llm_eval.sweep import Sweep
    from llm_eval.sweep.estimate import estimate_sweep

    rows = []
    for reply in (40, 300):
        spec = Sweep.from_data({"models": list(MODELS), "worlds": ["sparks"],
                                "families": ["planning"],
                                "budgets": {"interaction_steps": [steps]}})
        arms, _ = estimate_sweep(spec, reply_tokens=reply, processes=1)
        for arm in arms:
            rows.append({"model": arm.arm, "reply_tokens": reply, "calls": arm.total("calls"),
                         "input_tokens": arm.total("input_tokens"),
                         "cached_share": round(arm.cached_share, 4),
                         "output_tokens": arm.total("output_tokens"),
                         "usd": arm.total("usd"), "uncached_usd": arm.total("uncached_usd")})
    print(f"One sparks planning episode, {steps} interaction steps, full history (--estimate):")
    print(f"  {'model':<28} {'reply':>5} {'calls':>5} {'input tokens':>13} {'cache':>5} "
          f"{'with cache':>11} {'without':>10} {'saved':>6}")
    for r in rows:
        print(f"  {r['model']:<28} {r['reply_tokens']:>5} {r['calls']:>5} "
              f"{r['input_tokens']:>13,} {r['cached_share']:>5.0%} ${r['usd']:>10.2f} "
              f"${r['uncached_usd']:>9.2f} {r['uncached_usd'] / r['usd']:>5.1f}x")
    return rows


def sweep_section(processes: int | None) -> dict:
    from llm_eval.sweep import Sweep
    from llm_eval.sweep.estimate import estimate_sweep, format_estimate

    spec = Sweep.from_data({"models": list(MODELS), "worlds": list(DEMO_WORLDS),
                            "seeds": [1, 2, 3]})
    start = time.perf_counter()
    arms, local = estimate_sweep(spec, reply_tokens=40, processes=processes)
    seconds = time.perf_counter() - start
    jobs = sum(len(arm.jobs) for arm in arms)
    print(f"The demo's worlds x 3 families x 3 seeds on {' and '.join(MODELS)} "
          f"(llm-eval run --model ... --worlds {' '.join(DEMO_WORLDS)} --seeds 1 2 3 "
          f"--estimate):")
    print("\n".join("  " + line for line in format_estimate(arms, local, 40).splitlines()))
    print(f"  estimate of {jobs} jobs ({sum(a.total('calls') for a in arms):,} calls): "
          f"{seconds:.1f} s wall")
    # every job a different episode: the stand-in plays each seed of a task once, so the sweep
    # above plays 36 episodes; this one plays 108 (36 worlds x 3 families, one model)
    from llm_eval.worlds import world_names

    distinct = Sweep.from_data({"models": [MODELS[0]], "worlds": sorted(world_names())[:36]})
    start = time.perf_counter()
    other, _ = estimate_sweep(distinct, reply_tokens=40, processes=processes)
    distinct_seconds = time.perf_counter() - start
    print(f"  108 different episodes ({MODELS[0]}, the first 36 worlds x 3 families, "
          f"{other[0].total('calls'):,} calls): {distinct_seconds:.1f} s wall")
    return {"jobs": jobs, "seconds": round(seconds, 2),
            "distinct_seconds": round(distinct_seconds, 2),
            "arms": {arm.arm: {"calls": arm.total("calls"),
                               "input_tokens": arm.total("input_tokens"),
                               "cached_share": round(arm.cached_share, 4),
                               "usd": arm.total("usd"),
                               "uncached_usd": arm.total("uncached_usd")} for arm in arms}}


def _anthropic_episode(cache: str, steps: int):
    from cache_billing import AnthropicCache, anthropic_responder
    from fake_provider import FakeProvider

    from llm_eval.agents.llm import LLMAgent
    from llm_eval.calls import CallPolicy
    from llm_eval.tasks.store import load_task
    from llm_eval.worldtest import run_episode

    billing = AnthropicCache()
    with FakeProvider(responder=anthropic_responder(billing), keep_bodies=False) as fake:
        agent = LLMAgent("anthropic/claude-sonnet-4-5", history="full",
                         adapter_options={"base_url": fake.base_url, "cache": cache,
                                          "api_key": "benchmark-not-a-key", "timeout": 30.0},
                         policy=CallPolicy(max_attempts=1, timeout=60.0))
        try:
            run_episode(load_task("sparks", "planning"), agent, interaction_steps=steps)
        finally:
            agent.close()
    parts = [c["cost"]["parts"] for c in agent.calls]
    return {"calls": len(agent.calls),
            "input_tokens": sum(c["usage"]["input_tokens"] for c in agent.calls),
            "cache_read_tokens": sum(c["usage"]["cache_read_tokens"] or 0 for c in agent.calls),
            "input_usd": sum(p["input"] + p["cache_read"] + p["cache_write"] for p in parts)}


def fake_section(steps: int) -> dict:
    start = time.perf_counter()
    on = _anthropic_episode("auto", steps)
    off = _anthropic_episode("off", steps)
    ratio = off["input_usd"] / on["input_usd"]
    print(f"Anthropic adapter against a loopback fake billing cache by prefix, sparks planning, "
          f"{steps} steps, full history ({time.perf_counter() - start:.1f} s):")
    for name, r in (("cache auto", on), ("cache off", off)):
        print(f"  {name:<10} {r['calls']} calls, {r['input_tokens']:,} input tokens "
              f"({r['cache_read_tokens'] / r['input_tokens']:.0%} read from cache), "
              f"input ${r['input_usd']:.2f}")
    print(f"  input cost without cache / with cache: {ratio:.2f}x")
    return {"on": on, "off": off, "ratio": round(ratio, 3)}


def check_section() -> dict:
    from cache_billing import chat_responder
    from fake_provider import FakeProvider

    from llm_eval.runstore import RunStore
    from llm_eval.sweep import Sweep, run_sweep
    from llm_eval.sweep.estimate import estimate_sweep

    model = "openai-chat/fake-model"
    with tempfile.TemporaryDirectory() as tmp, \
            FakeProvider(responder=chat_responder, keep_bodies=False) as fake:
        spec = Sweep.from_data({
            "models": [model], "worlds": ["sparks"], "budgets": {"interaction_steps": [25]},
            "seeds": [1], "calls": {"max_attempts": 1, "timeout": 30},
            "prices": {"models": {model: {"input": 2.0, "output": 8.0, "cache_read": 0.5}}},
            "adapter_options": {model: {"base_url": fake.base_url + "/v1",
                                        "api_key": "not-needed"}}}, "benchmark")
        report = run_sweep(spec, Path(tmp) / "run", processes=0)
        with RunStore(report.store_path) as store:
            real = {row.id: row for row in store.jobs(report.run_id)}
    (arm,), _ = estimate_sweep(spec, reply_tokens=40, processes=1)
    worst = {"input_tokens": 0.0, "output_tokens": 0.0, "usd": 0.0}
    calls_equal = True
    for estimate in arm.jobs:
        row = real[estimate.job_id]
        calls_equal &= estimate.calls == row.usage["calls"]
        for name, actual in (("input_tokens", row.usage["input_tokens"]),
                             ("output_tokens", row.usage["output_tokens"]),
                             ("usd", row.cost_usd)):
            worst[name] = max(worst[name], abs(getattr(estimate, name) - actual) / actual)
    print(f"Estimate against a real run on loopback ({len(arm.jobs)} jobs, sparks, 25 steps): "
          f"same calls: {'yes' if calls_equal else 'NO'}; largest difference: "
          + ", ".join(f"{k} {v:.2%}" for k, v in worst.items()))
    return {"jobs": len(arm.jobs), "same_calls": calls_equal,
            **{k: round(v, 5) for k, v in worst.items()}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", choices=SECTIONS,
                        help="run only this section (repeatable)")
    parser.add_argument("--steps", type=int, default=200,
                        help="interaction steps of the single episodes (default 200)")
    parser.add_argument("--processes", type=int, default=None,
                        help="worker processes for the sweep's estimate (default: per core)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON too")
    args = parser.parse_args(argv)
    wanted = args.only or list(SECTIONS)
    figures: dict = {}
    failed = []
    if "episode" in wanted:
        figures["episode"] = episode_section(args.steps)
    if "sweep" in wanted:
        figures["sweep"] = sweep_section(args.processes)
        if max(figures["sweep"]["seconds"], figures["sweep"]["distinct_seconds"]) >= 60:
            failed.append("the sweep's estimate took a minute or more")
    if "fake" in wanted:
        figures["fake"] = fake_section(args.steps)
        if args.steps >= 200 and figures["fake"]["ratio"] < 5:
            failed.append("caching saved less than 5x at 200 steps")
    if "check" in wanted:
        figures["check"] = check_section()
        check = figures["check"]
        if not check["same_calls"] or max(check[k] for k in
                                          ("input_tokens", "output_tokens", "usd")) > 0.05:
            failed.append("the estimate is more than 5% from the real run")
    if args.json:
        print(json.dumps(figures, indent=1))
    for reason in failed:
        print(f"FAIL: {reason}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
