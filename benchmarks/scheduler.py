"""Scheduler overhead: sweeps of an LLM model against a zero-latency fake provider on loopback.

A fake OpenAI-compatible Chat Completions server runs in a separate process on 127.0.0.1 and
answers every ``POST /v1/chat/completions`` at once with a tool call for a legal action (with
usage numbers), so what is measured is our side of a model call: the scheduler, the episode
runner, the world, the prompt, the SDK and the transcript. Printed figures:

- model calls per second and CPU milliseconds per call (this process only, the server is
  elsewhere) at concurrency 1 and 64, over the same sweep of episodes, and how many episodes
  were in flight at once at most;
- the peak RSS of a 500-episode sweep (501: a whole number of seeds for the three
  families), run in a child process that reports its own peak.

    python benchmarks/scheduler.py               # 96 episodes at 1 and 64, RSS of 500
    python benchmarks/scheduler.py --quick       # seconds: 3 and 30 episodes, RSS of 12
    python benchmarks/scheduler.py --latency-ms 500 --episodes 64   # a slow provider
    python benchmarks/scheduler.py --json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import select
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

MODEL = "openai-chat/fake-model"
PROVIDER = "openai-chat"
WORLD = "automaton"
FAMILIES = ["mfp", "cd", "planning"]
EXPLORE_TURNS = 6   # the fake model plays noop for this many turns, then heads for the end


# --- the fake provider (its own process) ----------------------------------------------------

def choose_call(body: dict) -> tuple[str, dict]:
    """A legal tool call for the request ``body``: a few ``noop`` turns, then the actions that
    end each phase (go to the test, choose, declare and submit, quit). Stateless: the turn is
    the number of messages so far."""
    tools = {t["function"]["name"]: t["function"]["parameters"] for t in body.get("tools", ())}
    turns = len(body.get("messages", ()))
    order = (["noop"] if turns < 2 * EXPLORE_TURNS else []) + \
        ["go_to_test", "choose", "declare", "submit", "quit", "noop", "watch"]
    name = next((n for n in order if n in tools), None) or next(iter(tools))
    params = tools[name]
    args = {p: schema.get("minimum", 0) for p, schema in params.get("properties", {}).items()}
    return name, args


def completion(body: dict, serial: int) -> bytes:
    name, args = choose_call(body)
    prompt = sum(len(json.dumps(m)) for m in body.get("messages", ())) // 4
    reply = {
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
    return json.dumps(reply).encode()


class Gate:
    """Holds one chosen request before answering it, on commands read from stdin: ``ARM k``
    holds the k-th request from now on; when it arrives the server prints ``HELD <serial>``
    and answers once it reads ``GO``. A test learns that a call is in flight, and which one,
    without watching files or process titles."""

    def __init__(self, counter: list[int]) -> None:
        self.counter = counter
        self.target = 0
        self.go = asyncio.Event()
        self.loop = asyncio.get_running_loop()
        threading.Thread(target=self._commands, daemon=True).start()

    def _commands(self) -> None:
        for line in sys.stdin:
            word, _, arg = line.strip().partition(" ")
            if word == "ARM":
                self.loop.call_soon_threadsafe(self._arm, int(arg))
            elif word == "GO":
                self.loop.call_soon_threadsafe(self.go.set)

    def _arm(self, k: int) -> None:
        self.target = self.counter[0] + k
        self.go.clear()

    async def passage(self, serial: int) -> None:
        if serial == self.target:
            print(f"HELD {serial}", flush=True)
            await self.go.wait()


async def _serve_connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                            counter: list[int], latency: float, gate: Gate) -> None:
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, path = lines[0].split(" ")[:2]
            headers = {k.strip().lower(): v.strip()
                       for k, _, v in (line.partition(":") for line in lines[1:] if line)}
            body = await reader.readexactly(int(headers.get("content-length", 0)))
            counter[0] += 1
            await gate.passage(counter[0])
            if latency:
                await asyncio.sleep(latency)
            if method == "POST" and path.split("?")[0] == "/v1/chat/completions":
                status, data = "200 OK", completion(json.loads(body), counter[0])
            else:
                status, data = "404 Not Found", b'{"error": {"message": "no such route"}}'
            writer.write(f"HTTP/1.1 {status}\r\ncontent-type: application/json\r\n"
                         f"content-length: {len(data)}\r\n\r\n".encode() + data)
            await writer.drain()
            if headers.get("connection", "").lower() == "close":
                break
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


async def _serve(latency: float) -> None:
    counter = [0]
    gate = Gate(counter)
    server = await asyncio.start_server(
        lambda r, w: _serve_connection(r, w, counter, latency, gate), "127.0.0.1", 0,
        backlog=1024)
    print(f"PORT {server.sockets[0].getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


class FakeServer:
    """The fake provider in a child process (answering after ``latency`` seconds);
    ``base_url`` ends in ``/v1``. ``hold(k)`` makes the k-th request from now wait until
    ``release()``; ``held()`` blocks until it has arrived."""

    def __init__(self, latency: float = 0.0) -> None:
        self.latency = latency

    def _command(self, line: str) -> None:
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def hold(self, k: int) -> None:
        self._command(f"ARM {k}")

    def held(self, timeout: float = 120.0) -> int:
        """Wait for the held request to arrive; its serial number."""
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        if not ready:
            raise RuntimeError(f"the fake provider held no request within {timeout:g} s")
        line = self.process.stdout.readline()
        if not line.startswith("HELD "):
            raise RuntimeError(f"the fake provider did not hold a request: {line!r}")
        return int(line.split()[1])

    def release(self) -> None:
        self._command("GO")

    def __enter__(self) -> FakeServer:
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--serve", str(self.latency)], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        if not line.startswith("PORT "):
            self.process.kill()
            raise RuntimeError(f"the fake provider did not start: {line!r}")
        self.base_url = f"http://127.0.0.1:{int(line.split()[1])}/v1"
        return self

    def __exit__(self, *exc) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)
        self.process.stdin.close()
        self.process.stdout.close()


# --- the sweeps ------------------------------------------------------------------------------

def sweep_spec(base_url: str, episodes: int, concurrency: int):
    """``episodes`` jobs (families x seeds, so rounded up to a multiple of the families) of
    the fake model at ``base_url``."""
    from llm_eval.sweep import Sweep

    seeds = -(-episodes // len(FAMILIES))
    return Sweep.from_data({
        "name": f"scheduler-bench-{episodes}x{concurrency}", "models": [MODEL],
        "worlds": [WORLD], "families": FAMILIES, "seeds": list(range(1, seeds + 1)),
        "budgets": {"interaction_steps": EXPLORE_TURNS + 2}, "horizon": 4,
        "concurrency": {PROVIDER: concurrency}, "calls": {"max_attempts": 2, "timeout": 60},
        "adapter_options": {MODEL: {"base_url": base_url, "api_key": "not-needed"}}})


class InFlight:
    """``execute_job`` that counts the episodes running at once (its peak)."""

    def __init__(self) -> None:
        self.now = self.peak = 0
        self._lock = threading.Lock()

    def __call__(self, *args, **kwargs):
        from llm_eval.sweep import execute_job

        with self._lock:
            self.now += 1
            self.peak = max(self.peak, self.now)
        try:
            return execute_job(*args, **kwargs)
        finally:
            with self._lock:
                self.now -= 1


def run(base_url: str, episodes: int, concurrency: int) -> dict:
    """Run one sweep in a fresh directory; its calls, wall and CPU seconds (this process)."""
    from llm_eval.sweep import run_sweep

    spec = sweep_spec(base_url, episodes, concurrency)
    in_flight = InFlight()
    with tempfile.TemporaryDirectory(prefix="scheduler-bench-") as run_dir:
        wall, cpu = time.perf_counter(), time.process_time()
        report = run_sweep(spec, run_dir, execute=in_flight)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    not_done = {r.id: r.error for r in report.rows if r.status != "done"}
    if not_done:
        raise RuntimeError(f"{len(not_done)} episodes not done: "
                           f"{next(iter(not_done.values()))}")
    calls = sum((r.usage or {}).get("calls", 0) for r in report.rows)
    return {"episodes": len(report.rows), "concurrency": concurrency, "calls": calls,
            "wall_s": round(wall, 3), "cpu_s": round(cpu, 3), "peak_in_flight": in_flight.peak,
            "calls_per_s": round(calls / wall, 1), "cpu_ms_per_call": round(cpu / calls * 1e3, 3)}


def peak_rss(base_url: str, episodes: int, concurrency: int) -> dict:
    """Run a sweep in a child process, which reports its own peak RSS (MiB)."""
    done = subprocess.run([sys.executable, __file__, "--child", base_url, str(episodes),
                           str(concurrency)], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _child(base_url: str, episodes: int, concurrency: int) -> None:
    figures = run(base_url, episodes, concurrency)
    # Linux reports ru_maxrss in KiB
    figures["peak_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    print(json.dumps(figures))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a run of a few seconds")
    parser.add_argument("--episodes", type=int, help="episodes per throughput sweep")
    parser.add_argument("--rss-episodes", type=int, help="episodes of the peak-RSS sweep")
    parser.add_argument("--latency-ms", type=float, default=0.0,
                        help="the fake provider answers after this long (default 0)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--serve", type=float, metavar="LATENCY", help=argparse.SUPPRESS)
    parser.add_argument("--child", nargs=3, metavar=("URL", "N", "C"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve is not None:
        asyncio.run(_serve(args.serve))
        return 0
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    if args.child:
        _child(args.child[0], int(args.child[1]), int(args.child[2]))
        return 0

    serial_episodes = args.episodes or (3 if args.quick else 96)
    parallel_episodes = args.episodes or (30 if args.quick else 96)
    rss_episodes = args.rss_episodes or (12 if args.quick else 500)
    with FakeServer(args.latency_ms / 1e3) as server:
        run(server.base_url, 3, 1)   # warm up: imports, the SDK's first client
        results = {"concurrency_1": run(server.base_url, serial_episodes, 1),
                   "concurrency_64": run(server.base_url, parallel_episodes, 64),
                   "rss": peak_rss(server.base_url, rss_episodes, 64)}
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"Scheduler overhead: {MODEL} against a fake provider on loopback answering in "
          f"{args.latency_ms:g} ms ({WORLD}, {'/'.join(FAMILIES)})\n")
    for key in ("concurrency_1", "concurrency_64"):
        r = results[key]
        c = r["concurrency"]
        print(f"sweep @ concurrency {c}: {r['episodes']} episodes, {r['calls']} calls, "
              f"{r['wall_s']:.2f} s wall, {r['cpu_s']:.2f} s CPU, at most "
              f"{r['peak_in_flight']} episodes in flight")
        print(f"calls/s @ concurrency {c}: {r['calls_per_s']:.1f}")
        print(f"CPU ms/call @ concurrency {c}: {r['cpu_ms_per_call']:.2f}")
    rss = results["rss"]
    print(f"peak RSS {rss['episodes']} episodes: {rss['peak_rss_mib']:.1f} MiB "
          f"({rss['calls']} calls, {rss['wall_s']:.1f} s, concurrency {rss['concurrency']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
