"""Transcript size and memory: one full-history LLM episode against a zero-latency fake model.

The model is ``openai-chat/fake-model`` through the real OpenAI Chat Completions adapter and
SDK, with the HTTP answered in process (an ``httpx2.MockTransport``, so no socket and no
wait): every request gets a tool call for a legal action at once (arrows, ``noop`` and
clicks in turn during the interaction phase, then ``choose 0`` in the masked-frame test).
Each episode is one job run by ``execute_job`` (the sweep's own path: agent, recorder,
transcript writer) with ``--history full``, ``interaction_steps`` = N, in a child process
that reports:

- the transcript's bytes on disk (the file; no images with the compact rendering) and bytes
  per model call;
- the peak memory the episode allocated (``tracemalloc``, started after the imports and a
  warm-up episode) and the child's peak resident set (``ru_maxrss``, imports included);
- wall seconds (tracing slows Python down: the times are for comparison between runs only).

    python benchmarks/transcripts.py                    # N = 50, 100, 200, 400
    python benchmarks/transcripts.py --steps 50 100     # some lengths only
    python benchmarks/transcripts.py --no-trace         # faster, RSS only
    python benchmarks/transcripts.py --json
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

MODEL = "openai-chat/fake-model"
WORLD = "platformer"
FAMILY = "mfp"
STEPS = (50, 100, 200, 400)
CYCLE = ("left", "up", "right", "down", "noop", "click")
TARGET_BYTES_400 = 2_000_000
TARGET_PEAK_MIB = 60


def choose_call(body: dict) -> tuple[str, dict]:
    """A legal tool call for the request ``body``, from the number of messages so far."""
    tools = {t["function"]["name"]: t["function"]["parameters"] for t in body.get("tools", ())}
    turn = len(body.get("messages", ())) // 2
    if "choose" in tools:
        return "choose", {"k": 0}
    name = CYCLE[turn % len(CYCLE)]
    if name not in tools:
        name = "noop" if "noop" in tools else next(iter(tools))
    params = tools[name].get("properties", {})
    if name == "click":
        size = params["x"].get("maximum", 7) + 1
        return name, {"x": (3 * turn) % size, "y": (5 * turn) % size}
    return name, {p: schema.get("minimum", 0) for p, schema in params.items()}


def completion(body: dict) -> dict:
    """A Chat Completions reply in the real shape: one tool call, usage numbers."""
    name, args = choose_call(body)
    serial = len(body.get("messages", ()))
    prompt = sum(len(json.dumps(m)) for m in body.get("messages", ())) // 4
    return {
        "id": f"chatcmpl-{serial}", "object": "chat.completion", "created": 1764720000,
        "model": body.get("model", "fake-model"), "system_fingerprint": "fp_fake",
        "choices": [{"index": 0, "logprobs": None, "finish_reason": "tool_calls",
                     "message": {"role": "assistant", "content": None, "refusal": None,
                                 "tool_calls": [{"id": f"call_{serial}", "type": "function",
                                                 "function": {"name": name,
                                                              "arguments": json.dumps(args)}}]}}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": 12,
                  "total_tokens": prompt + 12,
                  "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
                  "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0}},
    }


def fake_adapter(reply=completion):
    """The OpenAI Chat adapter with its HTTP answered in process by ``reply`` (a request
    body to a response body; ``completion`` by default)."""
    import httpx2
    import openai

    from llm_eval.adapters.openai_chat import OpenAIChatAdapter

    def handle(request):
        return httpx2.Response(200, json=reply(json.loads(request.content)))

    return OpenAIChatAdapter(
        "fake-model", api_key="not-needed", base_url="http://fake.invalid/v1",
        http_client=openai.DefaultAsyncHttpxClient(transport=httpx2.MockTransport(handle)))


def episode_job(steps: int, history: str | int = "full"):
    """The job and its one-job sweep: ``steps`` interaction steps, full history (or the
    last ``history`` turns)."""
    from llm_eval.sweep import Sweep

    spec = Sweep.from_data({
        "name": f"transcript-bench-{steps}", "models": [MODEL], "worlds": [WORLD],
        "families": [FAMILY], "budgets": {"interaction_steps": [steps], "history": [history]},
        "calls": {"max_attempts": 1, "timeout": 60}})
    (job,) = spec.expand()
    return job, spec


def play(steps: int, out: Path, *, history: str | int = "full", reply=completion):
    """Play one episode into ``out`` (a transcript path); the job's outcome."""
    from llm_eval.sweep import execute_job

    job, spec = episode_job(steps, history)
    outcome = execute_job(job, spec, out, adapter=fake_adapter(reply))
    if outcome.status != "done":
        raise RuntimeError(f"the episode ended {outcome.status}: {outcome.error}")
    return outcome


def child(steps: int, trace: bool) -> dict:
    """One measured episode (in this process, a child of ``main``)."""
    import tracemalloc

    with tempfile.TemporaryDirectory(prefix="transcript-bench-") as scratch:
        play(3, Path(scratch) / "warm-up" / "t.jsonl.gz")   # imports, caches, fused code
        path = Path(scratch) / "transcripts" / "t.jsonl.gz"   # as runs write it
        if trace:
            tracemalloc.start()
        wall = time.perf_counter()
        outcome = play(steps, path)
        wall = time.perf_counter() - wall
        peak = tracemalloc.get_traced_memory()[1] if trace else None
        tracemalloc.stop()
        files = [p for p in path.parent.iterdir() if p.is_file()]
        size = sum(p.stat().st_size for p in files)
    calls = outcome.usage["calls"]
    return {"steps": steps, "calls": calls, "bytes": size,
            "bytes_per_call": round(size / calls), "files": sorted(p.name for p in files),
            "peak_traced_mib": round(peak / 2**20, 1) if peak is not None else None,
            "max_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "wall_s": round(wall, 2)}


def measure(steps: int, trace: bool) -> dict:
    args = [sys.executable, __file__, "--child", str(steps)] + ([] if trace else ["--no-trace"])
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"the {steps}-step episode failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, nargs="+", default=list(STEPS))
    parser.add_argument("--no-trace", action="store_true", help="skip tracemalloc (faster)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        print(json.dumps(child(args.child, not args.no_trace)))
        return 0
    rows = []
    for steps in args.steps:
        rows.append(measure(steps, not args.no_trace))
        if not args.json:
            r = rows[-1]
            traced = f"{r['peak_traced_mib']:>8.1f}" if r["peak_traced_mib"] is not None \
                else f"{'-':>8}"
            if len(rows) == 1:
                print(f"{'steps':>5} {'calls':>5} {'bytes':>11} {'bytes/call':>10} "
                      f"{'peak MiB':>8} {'RSS MiB':>7} {'seconds':>7}  file")
            print(f"{r['steps']:>5} {r['calls']:>5} {r['bytes']:>11,} {r['bytes_per_call']:>10,} "
                  f"{traced} {r['max_rss_mib']:>7.1f} {r['wall_s']:>7.2f}  "
                  f"{' '.join(r['files'])}", flush=True)
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    print("peak MiB: the episode's own allocations (tracemalloc); RSS: the child process, "
          "imports included")
    by_steps = {r["steps"]: r for r in rows}
    if 400 in by_steps:
        r = by_steps[400]
        verdict = "PASS" if r["bytes"] < TARGET_BYTES_400 else "FAIL"
        print(f"target 400 steps under {TARGET_BYTES_400:,} bytes on disk: {verdict}")
        if r["peak_traced_mib"] is not None:
            verdict = "PASS" if r["peak_traced_mib"] < TARGET_PEAK_MIB else "FAIL"
            print(f"target 400 steps under {TARGET_PEAK_MIB} MiB peak: {verdict}")
    if len(rows) > 1:
        first, last = rows[0], rows[-1]
        ratio = last["bytes_per_call"] / first["bytes_per_call"]
        verdict = "PASS" if ratio <= 1.25 else "FAIL"
        print(f"target bytes per call flat from {first['steps']} to {last['steps']} steps "
              f"(ratio {ratio:.2f}, at most 1.25): {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
