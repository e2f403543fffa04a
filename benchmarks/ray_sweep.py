"""Sweeps on Ray against the local executor, on this machine (``executor: ray``, docs/ray.md).

A local Ray cluster with one CPU per core is started first (its start-up is timed apart).
Printed figures:

- executor overhead: the same sweep of no-op episodes (an ``execute`` that writes an empty
  transcript) with the local executor (threads) and with Ray (one task per job), in ms per job;
- local agents: ``--jobs`` random + oracle jobs (default 2,000: cheap worlds, MFP and CD,
  3 interaction steps, as many seeds as it takes) with the local executor (worker processes,
  one per core) and with Ray: wall seconds, jobs/s, core-ms per job and Ray's extra per job;
- model-bound: ``--episodes`` episodes of a model against the loopback fake provider of
  ``benchmarks/scheduler.py`` at concurrency 64, both executors: calls/s, wall, and for Ray
  the most worker processes alive at once and their summed RSS;
- transcripts, shared storage against streaming (the choice docs/ray.md explains): the bytes
  of the local-agent transcripts Ray wrote, then what moving them to the driver would cost
  per job, measured: whole at the end (a task returns the file's bytes, the driver writes
  them) and event by event (each flushed event sent to an actor beside the driver, the only
  streaming that would keep a partial transcript when a worker dies).

    python benchmarks/ray_sweep.py                   # 2,000 jobs, 96 episodes @64
    python benchmarks/ray_sweep.py --jobs 400 --episodes 48
    python benchmarks/ray_sweep.py --quick           # a minute: 80 jobs, 12 episodes
    python benchmarks/ray_sweep.py --json
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
for path in (REPO_ROOT, REPO_ROOT / "benchmarks"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

WORLDS = ["garden", "easel", "automaton", "sparks", "hunters"]   # quick episodes
FAMILIES = ["mfp", "cd"]
CONCURRENCY = 64


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def local_spec(jobs: int, executor: str):
    """About ``jobs`` random + oracle jobs (rounded up to whole seeds)."""
    from llm_eval.sweep import Sweep

    per_seed = 2 * len(WORLDS) * len(FAMILIES)
    seeds = -(-jobs // per_seed)
    return Sweep.from_data({
        "name": f"ray-bench-{jobs}", "models": ["random", "oracle"], "worlds": WORLDS,
        "families": FAMILIES, "seeds": list(range(1, seeds + 1)),
        "budgets": {"interaction_steps": 3}, "concurrency": {"local": 256},
        "executor": executor}, "benchmark")


def noop_execute(job, spec, transcript, **kwargs):
    """An episode that does nothing: what is left is the executor's own cost."""
    from llm_eval.sweep import JobOutcome

    Path(transcript).write_bytes(b"")
    return JobOutcome("done", score=0.0, raw_reward=0.0)


def timed(spec, run_dir: Path, **options) -> tuple[float, object]:
    from llm_eval.sweep import run_sweep

    start = time.perf_counter()
    report = run_sweep(spec, run_dir, **options)
    wall = time.perf_counter() - start
    not_done = [r for r in report.rows if r.status != "done"]
    if not_done:
        raise RuntimeError(f"{len(not_done)} jobs not done: {not_done[0].error}")
    return wall, report


def overhead(jobs: int, work: Path) -> dict:
    out = {"jobs": jobs}
    for executor in ("local", "ray"):
        wall, _ = timed(local_spec(jobs, executor), work / f"noop-{executor}",
                        execute=noop_execute)
        out[executor] = {"wall_s": round(wall, 2), "ms_per_job": round(wall / jobs * 1e3, 2)}
    return out


def local_agents(jobs: int, work: Path) -> dict:
    out = {"cores": cores()}
    for executor in ("local", "ray"):
        spec = local_spec(jobs, executor)
        wall, report = timed(spec, work / f"agents-{executor}")
        n = len(report.rows)
        out[executor] = {"jobs": n, "wall_s": round(wall, 2), "jobs_per_s": round(n / wall, 2),
                         "core_ms_per_job": round(wall * cores() / n * 1e3, 1)}
    out["ray_extra_core_ms_per_job"] = round(
        out["ray"]["core_ms_per_job"] - out["local"]["core_ms_per_job"], 1)
    return out


class RayWorkers:
    """Samples the Ray worker processes (titled ``ray::...``) while a block runs: the most
    alive at once and the most RSS they held together."""

    def __enter__(self) -> RayWorkers:
        self.peak_count = self.peak_rss_mib = 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self) -> None:
        while not self._done.wait(0.25):
            count, rss = 0, 0
            for entry in os.listdir("/proc"):
                if not entry.isdigit():
                    continue
                try:
                    if not Path(f"/proc/{entry}/cmdline").read_bytes().startswith(b"ray::"):
                        continue
                    status = Path(f"/proc/{entry}/status").read_text()
                except OSError:
                    continue
                count += 1
                rss += next((int(line.split()[1]) for line in status.splitlines()
                             if line.startswith("VmRSS:")), 0)
            self.peak_count = max(self.peak_count, count)
            self.peak_rss_mib = max(self.peak_rss_mib, round(rss / 1024))

    def __exit__(self, *exc) -> None:
        self._done.set()
        self._thread.join()


def model_bound(episodes: int, work: Path) -> dict:
    from scheduler import FakeServer, sweep_spec

    from llm_eval.sweep import Sweep

    out = {"episodes": episodes, "concurrency": CONCURRENCY}
    with FakeServer() as server:
        for executor in ("local", "ray"):
            spec = sweep_spec(server.base_url, episodes, CONCURRENCY)
            spec = Sweep.from_data({**spec.canonical(), "executor": executor}, "benchmark")
            with RayWorkers() as workers:
                wall, report = timed(spec, work / f"model-{executor}")
            calls = sum((r.usage or {}).get("calls", 0) for r in report.rows)
            out[executor] = {"episodes": len(report.rows), "calls": calls,
                             "wall_s": round(wall, 2), "calls_per_s": round(calls / wall, 1)}
            if executor == "ray":
                out[executor] |= {"peak_workers": workers.peak_count,
                                  "peak_workers_rss_mib": workers.peak_rss_mib}
    return out


# -- transcripts: what streaming them to the driver would cost --------------------------------

def read_back(path: str) -> bytes:
    """In a worker: a finished transcript's bytes (as if written to the worker's own disk)."""
    return Path(path).read_bytes()


class EventSink:
    """Beside the driver: receives a transcript event by event, as streaming would."""

    def __init__(self) -> None:
        self.received = 0

    def event(self, job: str, data: bytes) -> None:
        self.received += len(data)

    def total(self) -> int:
        return self.received


def send_events(path: str, sink) -> int:
    """In a worker: send each event of a transcript (its JSON line) to ``sink``; wait for the
    last, so the time counts the whole transfer."""
    import ray

    with gzip.open(path, "rb") as stream:
        lines = stream.read().splitlines(keepends=True)
    last = None
    for line in lines:
        last = sink.event.remote(Path(path).name, gzip.compress(line, 1))
    if last is not None:
        ray.get(last)
    return len(lines)


def transcripts(run_dir: Path, work: Path) -> dict:
    import ray

    paths = sorted((run_dir / "transcripts").glob("*.jsonl.gz"))
    sizes = sorted(p.stat().st_size for p in paths)
    out = {"transcripts": len(paths), "median_bytes": sizes[len(sizes) // 2],
           "max_bytes": sizes[-1], "total_bytes": sum(sizes)}

    target = work / "streamed"
    target.mkdir()
    start = time.perf_counter()
    task = ray.remote(read_back).options(num_cpus=1)
    pending = {task.remote(str(p)): p.name for p in paths}
    while pending:
        done, _ = ray.wait(list(pending), num_returns=min(len(pending), 64))
        for ref in done:
            (target / pending.pop(ref)).write_bytes(ray.get(ref))
    whole = time.perf_counter() - start
    out["whole_at_end_ms_per_job"] = round(whole / len(paths) * 1e3, 2)

    sink = ray.remote(EventSink).options(num_cpus=0).remote()
    sender = ray.remote(send_events).options(num_cpus=1)
    start = time.perf_counter()
    events = sum(ray.get([sender.remote(str(p), sink) for p in paths]))
    per_event = time.perf_counter() - start
    out["events"] = events
    out["per_event_ms_per_job"] = round(per_event / len(paths) * 1e3, 2)
    out["per_event_bytes"] = ray.get(sink.total.remote())
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2000, help="random + oracle jobs")
    parser.add_argument("--episodes", type=int, default=96, help="model-bound episodes")
    parser.add_argument("--quick", action="store_true", help="80 jobs and 12 episodes")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.quick:
        args.jobs, args.episodes = 80, 12
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import ray

    start = time.perf_counter()
    ray.init(num_cpus=cores(), include_dashboard=False, logging_level="WARNING")
    results = {"ray": ray.__version__, "cluster_start_s": round(time.perf_counter() - start, 2)}
    try:
        with tempfile.TemporaryDirectory(prefix="ray-bench-") as work:
            work = Path(work)
            timed(local_spec(20, "ray"), work / "warm-up")   # workers started, code imported
            results["overhead"] = overhead(args.jobs, work)
            results["local_agents"] = local_agents(args.jobs, work)
            results["model_bound"] = model_bound(args.episodes, work)
            results["transcripts"] = transcripts(work / "agents-ray", work)
    finally:
        ray.shutdown()
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    o, a, m, t = (results[k] for k in ("overhead", "local_agents", "model_bound", "transcripts"))
    print(f"Ray {results['ray']} on this machine ({a['cores']} cores); local cluster started in "
          f"{results['cluster_start_s']:.1f} s\n")
    print(f"executor overhead ({o['jobs']} no-op jobs): local {o['local']['ms_per_job']:.2f} "
          f"ms/job, Ray {o['ray']['ms_per_job']:.2f} ms/job")
    for name in ("local", "ray"):
        r = a[name]
        print(f"random+oracle, {name:5}: {r['jobs']} jobs in {r['wall_s']:.1f} s, "
              f"{r['jobs_per_s']:.1f} jobs/s, {r['core_ms_per_job']:.0f} core-ms/job")
    print(f"Ray's extra per job: {a['ray_extra_core_ms_per_job']:.0f} core-ms")
    for name in ("local", "ray"):
        r = m[name]
        extra = (f", at most {r['peak_workers']} Ray worker processes, "
                 f"{r['peak_workers_rss_mib']} MiB RSS together") if name == "ray" else ""
        print(f"model-bound @ concurrency {m['concurrency']}, {name:5}: {r['episodes']} episodes, "
              f"{r['calls']} calls in {r['wall_s']:.1f} s, {r['calls_per_s']:.1f} calls/s{extra}")
    print(f"transcripts ({t['transcripts']}): median {t['median_bytes']} B, max "
          f"{t['max_bytes']} B, {t['events']} events; streamed to the driver whole at the "
          f"end {t['whole_at_end_ms_per_job']:.2f} ms/job, event by event "
          f"{t['per_event_ms_per_job']:.2f} ms/job; written on shared storage: 0 extra")
    return 0


if __name__ == "__main__":
    sys.exit(main())
